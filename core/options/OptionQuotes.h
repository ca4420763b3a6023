#pragma once
// How the chain lays out strikes and how a dealer quotes around a reference value: shared by the
// exchange's option chain and dealer (core/net) and the backtester's dealer (backtest/), so a
// strategy meets the same strikes and spreads in a replay as on the live demo market.
#include "core/options/OptionPricing.h"

#include <optional>
#include <vector>

namespace tessera::indexoptions {

// The forward of a period's average (dollars per GPU-hour) on a class's curve at `now`.
std::optional<double> periodForward(const IndexCurve& curve, Accelerator a, const DeliveryPeriod& p, Hour now);
// A ladder of strikes around a forward (dollars per GPU-hour): the forward rounded to ten cents
// and `halfWidth` strikes each side, 5% of the forward apart (at least ten cents), all positive,
// ascending.
std::vector<Price> strikeLadder(double forward, int halfWidth);
// The `count` strikes of `strikes` nearest the forward (micro-dollars), nearest first.
std::vector<Price> nearestStrikes(std::vector<Price> strikes, Price forward, int count);

struct DealerSpread {
  int halfSpreadPpm = 80'000;    // 8% of the reference value each side
  Price minHalfSpread = 10'000;  // and at least a cent
};
// A side is none when it would be under a cent (far out of the money).
struct TwoSidedQuote {
  std::optional<Price> bid, ask;
};
// A bid rounded down and an ask rounded up to whole cents around `value` (micro-dollars per
// GPU-hour).
TwoSidedQuote quoteAround(Price value, const DealerSpread& spread);

}  // namespace tessera::indexoptions
