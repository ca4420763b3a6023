#include "core/auction/ClearingProblem.h"

#include <algorithm>

namespace tessera::auction {

namespace {

const Cluster* findCluster(const std::vector<Cluster>& clusters, ClusterId id) {
  for (const Cluster& c : clusters)
    if (c.id == id) return &c;
  return nullptr;
}

}  // namespace

std::variant<ClearingProblem, BuildFailure> buildClearingProblem(const std::vector<OrderRequest>& orders,
                                                                 const std::vector<Cluster>& clusters, Hour now) {
  std::vector<CallEntry> entries;
  entries.reserve(orders.size());
  for (const OrderRequest& o : orders) entries.push_back(CallEntry{o, {}});
  return buildClearingProblem(entries, clusters, now);
}

std::variant<ClearingProblem, BuildFailure> buildClearingProblem(const std::vector<CallEntry>& entries,
                                                                 const std::vector<Cluster>& clusters, Hour now) {
  std::vector<const Cluster*> byId;
  byId.reserve(clusters.size());
  for (const Cluster& c : clusters) byId.push_back(&c);
  std::sort(byId.begin(), byId.end(), [](const Cluster* a, const Cluster* b) { return a->id < b->id; });

  ClearingProblem p;
  p.now = now;
  for (const CallEntry& entry : entries) {
    const OrderRequest& o = entry.request;
    const std::size_t index = p.orders.size();
    const bool aon = o.fill == FillStyle::AllOrNone;
    p.orders.push_back(CallOrder{o.id, o.account, o.side, aon});
    if (!aon) {
      if (!o.cluster || !findCluster(clusters, *o.cluster))
        return BuildFailure{BuildError::UnknownCluster, o.id, "divisible orders name a known cluster"};
      auto wanted = [&](Hour h) {
        return entry.remaining.empty() ? o.gpus : entry.remaining[static_cast<std::size_t>(h - o.start)];
      };
      auto& steps = o.side == Side::Buy ? p.bidSteps : p.askSteps;
      bool any = false;
      for (Hour h = std::max(o.start, now); h < o.end;) {
        const GpuCount g = wanted(h);
        Hour e = h + 1;
        while (e < o.end && wanted(e) == g) ++e;
        if (g > 0) steps.push_back(Step{index, *o.cluster, h, e, g, o.limit}), any = true;
        h = e;
      }
      if (!any) p.expired.push_back(o.id);
      continue;
    }
    // Candidates: the named cluster, or every known cluster meeting the constraints and big
    // enough, in ascending id (as in continuous trading).
    std::vector<const Cluster*> candidates;
    if (o.cluster) {
      const Cluster* c = findCluster(clusters, *o.cluster);
      if (!c) return BuildFailure{BuildError::UnknownCluster, o.id, "unknown cluster"};
      candidates.push_back(c);
    } else if (!o.constraints) {
      return BuildFailure{BuildError::Unsupported, o.id, "an order names a cluster or constraints"};
    } else {
      for (const Cluster* c : byId)
        if (o.constraints->matches(*c) && c->totalGpus() >= o.gpus) candidates.push_back(c);
    }
    const Hour d = o.hours();
    bool any = false;
    for (const Cluster* c : candidates) {
      for (Hour t = std::max(o.start, now); t + d <= o.end; ++t) {
        p.blocks.push_back(Block{index, c->id, t, t + d, o.gpus, o.limit, p.groups});
        any = true;
      }
    }
    if (!any) {
      p.expired.push_back(o.id);
      continue;
    }
    ++p.groups;
  }
  auto touch = [&p](ClusterId c, Hour s, Hour e) {
    for (Hour h = s; h < e; ++h) p.rows.push_back(RowKey{c, h});
  };
  for (const Step& s : p.bidSteps) touch(s.cluster, s.start, s.end);
  for (const Step& s : p.askSteps) touch(s.cluster, s.start, s.end);
  for (const Block& b : p.blocks) touch(b.cluster, b.start, b.end);
  std::sort(p.rows.begin(), p.rows.end());
  p.rows.erase(std::unique(p.rows.begin(), p.rows.end()), p.rows.end());
  return p;
}

std::size_t ClearingProblem::row(ClusterId cluster, Hour hour) const {
  const RowKey key{cluster, hour};
  return static_cast<std::size_t>(std::lower_bound(rows.begin(), rows.end(), key) - rows.begin());
}

}  // namespace tessera::auction
