#pragma once
// The planning question on a live book: "train this workload (N GPUs of these kinds, starting
// between E and L): where, when, at what effective cost?"
//
// For every listed cluster the search prices the workload's own window (its wall clock on that
// cluster, rounded up to whole hours) at every start in [E, L] against the resting asks, keeps
// the cheapest start, and ranks the clusters by effective cost of completed work. A cluster that
// cannot serve says why (wrong kind, too few GPUs, the model refuses it, supply short in some
// hours and by how much, over budget), and the earliest start at which some cluster could serve
// is found even past L. Pure and deterministic; no Qt, so the terminal and tessera-cli share it.
#include "core/cost/EffectiveCostModel.h"
#include "core/engine/Matcher.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cost {

struct PlanRequest {
  WorkloadProfile workload;               // its parallelism gives the GPU count
  std::vector<Accelerator> accelerators;  // the kinds that will do; empty: any
  Hour earliestStart = 0;
  Hour latestStart = 0;                 // inclusive
  std::optional<double> budgetDollars;  // bound on the effective cost
  // When nothing serves inside [E, L], how far past L to look for the earliest feasible start.
  Hour lookAheadHours = 42 * kHoursPerDay;
};

// A feasible placement: the workload's window on one cluster, priced at the asks it would take.
struct PlannedPlacement {
  Cluster cluster;
  Topology topology;
  Placement placement;  // packed onto whole nodes
  Hour start = 0;
  Hour end = 0;  // the window [start, end): the wall clock rounded up to whole hours
  GpuCount gpus = 0;
  Offer offer;         // the window's average ask price, as cost::offerFromBook prices it
  CostBreakdown cost;  // evaluate(workload, topology, offer)
  // What an all-or-none bid for this placement carries: the limit (the average ask rounded up
  // to the cent, so the bid fills at the plan's price) and the effective-cost factor.
  Price limit = 0;
  ClusterCostFactor costFactor;
};

enum class Unfit { Kind, TooFewGpus, Model, ShortOfSupply, OverBudget };
std::string_view toString(Unfit u);

struct ClusterUnfit {
  Cluster cluster;
  Unfit why = Unfit::Kind;
  std::string reason;          // one sentence for people
  Hour windowHours = 0;        // ShortOfSupply, OverBudget: the window the workload needs there
  Hour hoursShort = 0;         // ShortOfSupply: hours below N GPUs at the least-short start
  GpuCount fewestOffered = 0;  // ShortOfSupply: the thinnest hour of that window
  double overBudgetBy = 0;     // OverBudget: dollars, at the cheapest start
};

struct EarliestStart {
  Cluster cluster;
  Hour start = 0;
};

struct PlanResult {
  // Cheapest effective cost first; ties by earlier start, then by cluster id.
  std::vector<PlannedPlacement> placements;
  std::vector<ClusterUnfit> unfit;  // the other clusters, by cluster id
  // The earliest start (in [E, L + lookAhead]) at which some cluster serves within budget.
  std::optional<EarliestStart> earliestFeasible;
  std::string problem;  // set when the request itself is wrong
};

// Checks the request (a valid workload, E <= L, a positive budget); empty when it is fine.
std::string validate(const PlanRequest& r);

PlanResult planPlacements(const Matcher& book, const PlanRequest& request,
                          const std::function<Topology(const Cluster&)>& topologyOf = deriveTopology);

}  // namespace tessera::cost
