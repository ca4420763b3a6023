#pragma once
// The exchange's reference value and scenario margin of an option series at one hour, from the
// index curve of its accelerator class (term points in dollars per GPU-hour: the published index
// tenors and the forward books' mids, docs/settlement.md "Options") and a volatility estimated
// from the hourly index.
//
// Scenario margin of a written option, per GPU-hour of notional: the highest reference value over
// a grid of index moves (kIndexMoves, applied to the forward) and volatility changes
// (kVolMoves), plus a minimum of kShortMinimumPpm of the forward. Because a Black-76 value with
// no interest is never below the intrinsic value, this covers the payoff of every settlement
// average inside the grid's range of the forward.
#include "core/options/OptionSeries.h"

#include <array>
#include <optional>
#include <vector>

namespace tessera::indexoptions {

inline constexpr std::array<double, 7> kIndexMoves{-0.30, -0.20, -0.10, 0.0, 0.10, 0.20, 0.30};
inline constexpr std::array<double, 3> kVolMoves{-0.30, 0.0, 0.30};
inline constexpr int kShortMinimumPpm = 20'000;     // 2% of the forward
inline constexpr double kDefaultVolatility = 0.60;  // until the index has a day of history
inline constexpr double kMinVolatility = 0.05, kMaxVolatility = 3.0;

struct IndexCurve {
  std::vector<TermPoint> terms;  // lead hours from now -> $ per GPU-hour
  double volatility = kDefaultVolatility;
};

// The part of a delivery period's average already fixed: hours averaged and their mean, micro.
struct KnownAverage {
  std::int64_t hours = 0;
  Price mean = 0;
};

struct SeriesValue {
  double forward = 0;  // $ per GPU-hour, of the period's remaining average
  double volatility = 0;
  Black76Greeks greeks;  // value in $ per GPU-hour
  Price value = 0;       // the value in micro-dollars per GPU-hour, rounded to nearest
};
// Nothing when the curve has no point.
std::optional<SeriesValue> referenceValue(const OptionSeries& s, const IndexCurve& curve, Hour now,
                                          KnownAverage known = {});
// Micro-dollars per GPU-hour a writer holds as margin; nothing when the curve has no point.
std::optional<Price> scenarioMarginPerGpuHour(const OptionSeries& s, const IndexCurve& curve, Hour now,
                                              KnownAverage known = {});

// The volatility at which a series not yet in delivery is worth `premium` (micro-dollars per
// GPU-hour); an error when the premium is outside the no-arbitrage bounds (Black76.h) or the
// series is already in delivery (NoTime, also when the class has no index yet).
[[nodiscard]] std::variant<double, ImpliedVolError> impliedVolatilityOf(const OptionSeries& s, const IndexCurve& curve,
                                                                        Hour now, Price premium);

// The mid of a forward book: lead hours from now to the middle of its week, micro-dollars.
struct ForwardMid {
  double leadHours = 0;
  Price mid = 0;
};
// The curve of one class from its index tenors (micro-dollars; 0 = none published) and any
// forward book mids.
IndexCurve indexCurve(Price nextDay, Price nextWeek, Price nextMonth, const std::vector<ForwardMid>& forwardMids,
                      double volatility);

}  // namespace tessera::indexoptions
