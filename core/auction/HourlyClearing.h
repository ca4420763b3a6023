#pragma once
// The exact clearing of every (cluster, hour) of a call once its blocks are chosen
// (docs/matching.md, "Call auction"): accepted blocks are served first, then bids dearest first
// trade with asks cheapest first while the bid's limit is at least the ask's; equal limits go
// to the earlier order. In integers, so it is the same on every machine. It also gives each
// row's dual interval [low, high] (complementary slackness with this clearing) and the row's
// price target.
#include "core/auction/ClearingProblem.h"

#include <optional>
#include <vector>

namespace tessera::auction {

struct RowClearing {
  GpuCount volume = 0;  // GPUs bought (= sold) in this (cluster, hour)
  Price low = 0;        // the row's duals: every price in [low, high] supports the clearing
  Price high = 0;
  Price target = 0;        // the price the price programme stays closest to
  bool divisible = false;  // a divisible order touches the row
};

// GPUs a divisible step trades in one hour.
struct StepTrade {
  std::size_t step = 0;  // index into bidSteps or askSteps
  Side side = Side::Buy;
  std::size_t row = 0;
  GpuCount gpus = 0;
};

struct HourlyClearing {
  std::vector<RowClearing> rows;  // parallel to ClearingProblem::rows
  std::vector<StepTrade> trades;  // by row, then bids before asks, each in priority order
};

// `accepted[b]`: block b is accepted. Empty when some row cannot balance its accepted blocks.
[[nodiscard]] std::optional<HourlyClearing> clearHours(const ClearingProblem& problem,
                                                       const std::vector<char>& accepted);

// Surplus of a selection and its clearing at the orders' limits, micro-dollars.
Money selectionWelfare(const ClearingProblem& problem, const std::vector<char>& accepted,
                       const HourlyClearing& clearing);

}  // namespace tessera::auction
