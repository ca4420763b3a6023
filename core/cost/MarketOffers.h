#pragma once
// The cost model applied to the live book: what the asks on a cluster would cost a workload
// in completed work, and which clusters a constraint order should prefer.
#include "core/cost/EffectiveCostModel.h"
#include "core/cost/Interruption.h"
#include "core/domain/Order.h"
#include "core/engine/Matcher.h"

#include <functional>
#include <optional>
#include <vector>

namespace tessera::cost {

// The average price of buying `gpus` GPUs for every hour of [start, end) from the resting
// asks of `cluster`, walking each hour's levels best first. nullopt when some hour has
// fewer than `gpus` offered.
std::optional<Offer> offerFromBook(const Matcher& book, ClusterId cluster, Hour start, Hour end, GpuCount gpus);

// An offer priced at one book level, for showing that level as an effective cost.
Offer offerFromLevel(const BookLevel& level, Hour hours);

// One candidate per listed cluster whose asks can supply `gpus` GPUs for all of [start, end),
// priced at that fill's average: what the planner ranks for a workload of that size.
std::vector<CandidateOffer> candidatesFromBook(
    const Matcher& book, GpuCount gpus, Hour start, Hour end,
    const std::function<Topology(const Cluster&)>& topologyOf = deriveTopology);

struct ClusterRanking {
  Cluster cluster;
  Offer offer;
  CostResult result;
};

// The clusters of `book` matching `constraints` that can supply the workload's GPUs for the
// whole window, cheapest effective cost first (then the ones that cannot serve it, with the
// reason). `topologyOf` supplies a cluster's topology; by default it is derived. Interruptible
// clusters (only when `constraints` accept them) are priced with their reclaims as preemptions,
// at the rate `reclaimsPerDayOf` gives (by default, with nothing observed: cost/Interruption.h).
std::vector<ClusterRanking> rankClustersByEffectiveCost(
    const Matcher& book, const WorkloadProfile& w, const ClusterConstraints& constraints, Hour start, Hour end,
    const std::function<Topology(const Cluster&)>& topologyOf = deriveTopology,
    const std::function<double(const Cluster&)>& reclaimsPerDayOf = {});

// Firm or interruptible for one workload at the book's asks: each interruptible cluster of the
// book (of an accelerator in `kinds`; empty: any) against its firm cluster, both priced at the
// mean best ask over the 24 hours from `start` (a pair with no ask on either side is left out),
// for the workload's GPUs on the firm cluster's topology, the interruptible one reclaimed
// `reclaimsPerDayOf(cluster)` times a day (cost/Interruption.h's chooseCapacity). Cheapest
// first (by the cost of the cheaper capacity; pairs neither can run last).
struct CapacityComparison {
  Cluster firm;
  Cluster interruptible;
  Offer firmOffer;
  Offer interruptibleOffer;
  double reclaimsPerDay = 0;
  CapacityChoice choice;
};
std::vector<CapacityComparison> compareCapacityOnBook(
    const Matcher& book, const WorkloadProfile& w, const std::vector<Accelerator>& kinds, Hour start,
    const std::function<double(const Cluster&)>& reclaimsPerDayOf,
    const std::function<Topology(const Cluster&)>& topologyOf = deriveTopology);

// Effective-cost factors for an all-or-none order (docs/matching.md): for each ranked cluster
// that can serve the workload, its effective price per GPU-hour over its hourly price, in ppm,
// so that the engine ranks the order's placements by what the work really costs. Clusters the
// model cannot price are left out (the engine then counts them at their hourly price).
std::vector<ClusterCostFactor> effectiveCostFactors(const std::vector<ClusterRanking>& ranking);
// One cluster's factor: effective price per GPU-hour over the hourly price, in ppm, within the
// engine's range. The breakdown's prices must be positive.
std::int64_t costFactorPpm(const CostBreakdown& b);

}  // namespace tessera::cost
