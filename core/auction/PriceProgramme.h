#pragma once
// The prices of a call (docs/matching.md, "Call auction", "Prices"): one per (cluster, hour),
// inside each row's dual interval, every accepted block in the money, as close as possible
// (sum of distances) to the rows' targets. A linear programme solved with CLP; its matrix is
// an interval matrix, so the optimum found is whole micro-dollars, and it is checked exactly.
#include "core/auction/HourlyClearing.h"

#include <optional>
#include <vector>

namespace tessera::auction {

// Prices parallel to ClearingProblem::rows; empty when no prices keep every accepted block in
// the money (a paradoxically accepted block).
[[nodiscard]] std::optional<std::vector<Price>> solvePrices(const ClearingProblem& problem,
                                                            const std::vector<char>& accepted,
                                                            const HourlyClearing& clearing);

// What an accepted block loses at `prices` (micro-dollars; negative: it gains).
Money blockLoss(const ClearingProblem& problem, std::size_t block, const std::vector<Price>& prices);

}  // namespace tessera::auction
