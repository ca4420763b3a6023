#include "core/cost/MarketOffers.h"

#include "core/cost/Interruption.h"

#include <algorithm>
#include <cmath>

namespace tessera::cost {

std::optional<Offer> offerFromBook(const Matcher& book, ClusterId cluster, Hour start, Hour end, GpuCount gpus) {
  if (end <= start || gpus <= 0) return std::nullopt;
  const Cluster* c = book.cluster(cluster);
  if (!c) return std::nullopt;
  double totalMicros = 0;
  for (Hour h = start; h < end; ++h) {
    GpuCount left = gpus;
    // Deep enough for any realistic book; a level per order at worst.
    for (const BookLevel& level : book.depth(cluster, h, Side::Sell, 4096)) {
      const GpuCount take = std::min(left, level.gpus);
      totalMicros += static_cast<double>(take) * static_cast<double>(level.price);
      left -= take;
      if (left == 0) break;
    }
    if (left > 0) return std::nullopt;
  }
  Offer o;
  o.label = c->name;
  o.gpus = gpus;
  o.windowHours = static_cast<double>(end - start);
  o.pricePerGpuHour = totalMicros / (static_cast<double>(gpus) * (end - start)) / kMicrosPerDollar;
  return o;
}

Offer offerFromLevel(const BookLevel& level, Hour hours) {
  Offer o;
  o.label = "level @ " + std::to_string(static_cast<double>(level.price) / kMicrosPerDollar);
  o.pricePerGpuHour = static_cast<double>(level.price) / kMicrosPerDollar;
  o.gpus = level.gpus;
  if (hours > 0) o.windowHours = static_cast<double>(hours);
  return o;
}

std::vector<CandidateOffer> candidatesFromBook(const Matcher& book, GpuCount gpus, Hour start, Hour end,
                                               const std::function<Topology(const Cluster&)>& topologyOf) {
  std::vector<CandidateOffer> out;
  for (const Cluster& c : book.clusters())
    if (auto offer = offerFromBook(book, c.id, start, end, gpus)) out.push_back({topologyOf(c), *offer, std::nullopt});
  return out;
}

std::vector<ClusterRanking> rankClustersByEffectiveCost(const Matcher& book, const WorkloadProfile& w,
                                                        const ClusterConstraints& constraints, Hour start, Hour end,
                                                        const std::function<Topology(const Cluster&)>& topologyOf,
                                                        const std::function<double(const Cluster&)>& reclaimsPerDayOf) {
  std::vector<ClusterRanking> out;
  std::vector<CandidateOffer> candidates;
  std::vector<Cluster> clusters;
  for (const Cluster& c : book.clusters()) {
    if (!constraints.matches(c)) continue;
    if (auto offer = offerFromBook(book, c.id, start, end, w.gpus())) {
      if (c.interruptible())
        *offer = asInterruptible(*offer, reclaimsPerDayOf ? reclaimsPerDayOf(c) : reclaimsPerDay({}));
      candidates.push_back({topologyOf(c), *offer, std::nullopt});
      clusters.push_back(c);
    } else {
      Offer none;
      none.label = c.name;
      out.push_back({c, none, CostError{"not enough GPUs offered on " + c.name + " for every hour of the window"}});
    }
  }
  std::vector<ClusterRanking> ranked;
  for (RankedOffer& r : rankByEffectiveCost(w, candidates))
    ranked.push_back({clusters[r.candidate], candidates[r.candidate].offer, std::move(r.result)});
  ranked.insert(ranked.end(), out.begin(), out.end());
  return ranked;
}

std::vector<ClusterCostFactor> effectiveCostFactors(const std::vector<ClusterRanking>& ranking) {
  std::vector<ClusterCostFactor> out;
  for (const ClusterRanking& r : ranking) {
    const auto* b = std::get_if<CostBreakdown>(&r.result);
    if (!b || b->pricePerGpuHour <= 0 || b->effectivePricePerGpuHour <= 0) continue;
    out.push_back({r.cluster.id, costFactorPpm(*b)});
  }
  return out;
}

std::int64_t costFactorPpm(const CostBreakdown& b) {
  const double ppm = std::round(b.effectivePricePerGpuHour / b.pricePerGpuHour * 1e6);
  return static_cast<std::int64_t>(std::clamp(ppm, 1.0, 1e8));
}

}  // namespace tessera::cost
