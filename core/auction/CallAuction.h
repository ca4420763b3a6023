#pragma once
// One call of the call auction (docs/matching.md, "Call auction"): choose the blocks (CBC),
// clear every (cluster, hour) exactly, price the call (CLP), and repeat without a selection
// that needs a paradoxically accepted block until the prices keep every accepted block in the
// money. A pure function of the problem and the options (given a node limit rather than the
// time limit ends the solve).
#include "core/auction/BlockSelection.h"
#include "core/auction/ClearingProblem.h"

#include <string>
#include <vector>

namespace tessera::auction {

struct CallOptions {
  SolverLimits solver;      // its time limit is the whole call's
  int exactPabRounds = 20;  // rounds of "not exactly this selection" before forbidding blocks
};

struct HourPrice {
  ClusterId cluster = 0;
  Hour hour = 0;
  Price price = 0;
  GpuCount volume = 0;
  bool operator==(const HourPrice&) const = default;
};

// What one order trades in a run of consecutive hours at one size and price.
struct CallFill {
  OrderId order = 0;
  AccountId account = 0;
  Side side = Side::Buy;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  Price price = 0;
  bool operator==(const CallFill&) const = default;
};

struct AcceptedBlock {
  OrderId order = 0;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  bool operator==(const AcceptedBlock&) const = default;
};

struct CallResult {
  std::vector<HourPrice> prices;      // by (cluster, hour)
  std::vector<AcceptedBlock> blocks;  // in order of the orders
  std::vector<CallFill> fills;        // by order (arrival), then hour
  std::vector<OrderId> expired;       // orders with nothing left to trade at the call
  Money welfare = 0;                  // surplus at the orders' limits, micro-dollars
  Money firstRoundWelfare = 0;        // the programme's optimum before the no-PAB rule
  double bound = 0.0;                 // proven upper bound on the first round's welfare, dollars
  double gap = 0.0;                   // (bound - first round's welfare) / |welfare|
  bool optimal = true;                // every round proven optimal
  bool stoppedOnTime = false;         // some round ended on the time limit
  int rounds = 1;                     // solves, including the no-PAB loop's
  double seconds = 0.0;               // wall time (not part of the result's JSON)
};

[[nodiscard]] CallResult clearCall(const ClearingProblem& problem, const CallOptions& options = {});

// The result as JSON, without the wall time: two clearings of the same call give the same bytes.
std::string toJson(const CallResult& result);

// Surplus at the limits of a set of fills (bids' value minus asks' cost), micro-dollars.
Money welfareOf(const ClearingProblem& problem, const std::vector<CallFill>& fills);

}  // namespace tessera::auction
