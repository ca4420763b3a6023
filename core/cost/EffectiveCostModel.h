#pragma once
// The cost of completed work on an offer, not the hourly rate:
//   effective_cost = instance_cost + storage_and_egress + orchestration_overhead
//                  + failed_work + migration_or_restart_cost
// Pure and deterministic: the same inputs give the same breakdown. The model and its
// assumptions are written up in docs/cost-model.md.
#include "core/cost/Placement.h"
#include "core/cost/Topology.h"
#include "core/cost/WorkloadProfile.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::cost {

// What a seller offers, in dollars (the book's micro-dollars are converted by the caller).
struct Offer {
  std::string label;
  double pricePerGpuHour = 0;
  GpuCount gpus = 0;                  // available; 0: the whole cluster
  std::optional<double> windowHours;  // a fixed delivery window the job must finish in
  double preemptionsPerDay = 0;       // interruptible capacity
  double egressPerGb = 0.05;
  double storagePerTbMonth = 20;
  double orchestrationFeePerGpuHour = 0;
  double wanGbps = 10;  // for staging data from another region
};

struct CostTerms {
  double instance = 0;            // GPU-hours spent making progress (including sync stalls)
  double storageAndEgress = 0;    // storage fees, data in from another region, results out
  double orchestration = 0;       // startup, data staging and checkpoint writes, platform fee
  double failedWork = 0;          // work redone after failures and preemptions
  double migrationOrRestart = 0;  // GPUs held while the job restarts or moves
  double total() const { return instance + storageAndEgress + orchestration + failedWork + migrationOrRestart; }
};

struct CostBreakdown {
  CostTerms terms;
  GpuCount gpus = 0;
  double pricePerGpuHour = 0;
  double wallClockHours = 0;   // from lease start to the job's end
  double productiveHours = 0;  // running steps or serving
  double computeSecondsPerStep = 0;
  double allReduceSecondsPerStep = 0;
  double exposedSyncSecondsPerStep = 0;  // the part of the all-reduce compute does not hide
  double stepSeconds = 0;
  double commFraction = 0;    // exposed sync / step time
  std::optional<double> mfu;  // model FLOP utilisation while running (not for inference)
  double expectedInterruptions = 0;
  double usefulUnits = 0;
  std::string unit;  // "1M tokens" or "step"
  double costPerUnit = 0;
  double rateTimesComputeHours = 0;  // what the hourly rate suggests: price x GPUs x compute time
  // Effective cost per GPU-hour of pure compute: the rate a book level "really" costs this
  // workload (equal to the price when nothing but compute is paid for).
  double effectivePricePerGpuHour = 0;
  PlacementSpan span;
  SyncPath sync;
  bool fitsWindow = true;
  std::vector<std::string> notes;  // assumptions that matter for this result
};

struct CostError {
  std::string message;
};

using CostResult = std::variant<CostBreakdown, CostError>;

// Evaluates on an explicit placement (e.g. a contract's GPUs).
CostResult evaluate(const WorkloadProfile& w, const Topology& t, const Placement& p, const Offer& o);
// Evaluates on the most compact placement the cluster allows.
CostResult evaluate(const WorkloadProfile& w, const Topology& t, const Offer& o);

struct CandidateOffer {
  Topology topology;
  Offer offer;
  std::optional<Placement> placement;  // unset: packed
};

struct RankedOffer {
  std::size_t candidate = 0;  // index into the input
  CostResult result;
};

// Feasible candidates by effective cost (cheapest first; ties by wall-clock time, then input
// order), then the infeasible ones in input order with their reasons.
std::vector<RankedOffer> rankByEffectiveCost(const WorkloadProfile& w, const std::vector<CandidateOffer>& candidates);

}  // namespace tessera::cost
