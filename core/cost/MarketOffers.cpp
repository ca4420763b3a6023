#include "core/cost/MarketOffers.h"

#include "core/cost/Interruption.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

namespace {

// The mean best ask of `cluster` over [start, start + hours), in dollars per GPU-hour; nullopt
// when no hour has one.
std::optional<double> meanBestAsk(const Matcher& book, ClusterId cluster, Hour start, Hour hours) {
  double sum = 0;
  int n = 0;
  for (Hour h = start; h < start + hours; ++h) {
    const auto best = book.depth(cluster, h, Side::Sell, 1);
    if (best.empty()) continue;
    sum += static_cast<double>(best.front().price);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n / kMicrosPerDollar;
}

// The cost of the cheaper capacity, for ordering (infinite when neither can run it).
double cheaperCost(const CapacityChoice& c) {
  double best = std::numeric_limits<double>::infinity();
  for (const CostResult* r : {&c.firm, &c.interruptible})
    if (const auto* b = std::get_if<CostBreakdown>(r); b && b->fitsWindow) best = std::min(best, b->terms.total());
  return best;
}

}  // namespace

std::vector<CapacityComparison> compareCapacityOnBook(const Matcher& book, const WorkloadProfile& w,
                                                      const std::vector<Accelerator>& kinds, Hour start,
                                                      const std::function<double(const Cluster&)>& reclaimsPerDayOf,
                                                      const std::function<Topology(const Cluster&)>& topologyOf) {
  std::vector<CapacityComparison> out;
  for (const Cluster& c : book.clusters()) {
    if (!c.interruptible()) continue;
    if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), c.accelerator) == kinds.end()) continue;
    const Cluster* firm = book.cluster(*c.interruptibleOf);
    if (!firm) continue;
    const auto firmAsk = meanBestAsk(book, firm->id, start, kHoursPerDay);
    const auto spotAsk = meanBestAsk(book, c.id, start, kHoursPerDay);
    if (!firmAsk || !spotAsk) continue;
    CapacityComparison k;
    k.firm = *firm;
    k.interruptible = c;
    k.firmOffer.label = firm->name;
    k.firmOffer.pricePerGpuHour = *firmAsk;
    k.firmOffer.gpus = w.gpus();
    k.interruptibleOffer = k.firmOffer;
    k.interruptibleOffer.label = c.name;
    k.interruptibleOffer.pricePerGpuHour = *spotAsk;
    k.reclaimsPerDay = reclaimsPerDayOf ? reclaimsPerDayOf(c) : reclaimsPerDay({});
    k.choice = chooseCapacity(w, topologyOf(*firm), k.firmOffer, k.interruptibleOffer, k.reclaimsPerDay);
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(), [](const CapacityComparison& a, const CapacityComparison& b) {
    return cheaperCost(a.choice) < cheaperCost(b.choice);
  });
  return out;
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
