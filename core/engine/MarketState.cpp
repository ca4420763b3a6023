#include "core/engine/MarketState.h"

namespace tessera {

bool MarketState::applyNonOrder(const InputEvent& in, std::vector<Event>& out) {
  if (const auto* c = std::get_if<Cluster>(&in)) {
    if (auto r = validateCluster(*c, clusters)) {
      out.emplace_back(std::move(*r));
    } else {
      clusters.add(*c);
      out.emplace_back(ClusterAdded{c->id});
    }
    return true;
  }
  if (const auto* g = std::get_if<CapacityGrant>(&in)) {
    if (auto r = validateGrant(*g, view())) {
      out.emplace_back(std::move(*r));
    } else if (!inventory.grant(g->account, g->cluster, g->start, g->end, g->gpus,
                                clusters.find(g->cluster)->totalGpus())) {
      out.emplace_back(OrderRejected{0, g->account, RejectReason::ExceedsClusterSize,
                                     "grant would put more GPUs on the market than the cluster has"});
    } else {
      out.emplace_back(CapacityAdded{*g});
    }
    return true;
  }
  return false;
}

}  // namespace tessera
