#include "core/engine/MarketState.h"

namespace tessera {

GpuCount MarketState::physicalSize(const Cluster& c) const {
  // An interruptible book's grants count on its firm cluster, so they are bounded by its size
  // (docs/matching.md, "Interruptible capacity"); validateCluster makes sure it exists.
  if (c.interruptibleOf)
    if (const Cluster* firm = clusters.find(*c.interruptibleOf)) return firm->totalGpus();
  return c.totalGpus();
}

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
    } else if (const Cluster* c = clusters.find(g->cluster); !inventory.grant(
                   g->account, g->cluster, g->start, g->end, g->gpus, physicalSize(*c), c->interruptibleOf)) {
      out.emplace_back(OrderRejected{0, g->account, RejectReason::ExceedsClusterSize,
                                     "grant would put more GPUs on the market than the cluster has"});
    } else {
      out.emplace_back(CapacityAdded{*g});
    }
    return true;
  }
  if (const auto* t = std::get_if<CapacityTransfer>(&in)) {
    if (auto r = validateTransfer(*t, view())) {
      out.emplace_back(std::move(*r));
      return true;
    }
    // Offered first, so the transfer moves GPU-hours exactly as a trade would.
    inventory.offer(t->from, t->cluster, t->start, t->end, t->gpus);
    inventory.transfer(t->from, t->to, t->cluster, t->start, t->end, t->gpus);
    Contract k;
    k.id = ++lastContract;
    k.buyer = t->to;
    k.seller = t->from;
    k.cluster = t->cluster;
    k.gpus = t->gpus;
    k.start = t->start;
    k.end = t->end;
    k.price = t->price;
    k.terms = contracts.find(t->replaces)->terms;
    k.replaces = t->replaces;
    contracts.add(k);
    out.emplace_back(ContractCreated{k});
    return true;
  }
  if (const auto* r = std::get_if<CapacityReclaim>(&in)) {
    if (auto rej = validateReclaim(*r, view())) {
      out.emplace_back(std::move(*rej));
      return true;
    }
    // Offered first, so the hours go back to the provider exactly as a trade would move them.
    const ClusterId cluster = contracts.find(r->contract)->cluster;
    inventory.offer(r->holder, cluster, r->start, r->end, r->gpus);
    inventory.transfer(r->holder, r->provider, cluster, r->start, r->end, r->gpus);
    return true;
  }
  return false;
}

}  // namespace tessera
