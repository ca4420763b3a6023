#include "core/options/OptionPricing.h"

#include <algorithm>
#include <cmath>

namespace tessera::indexoptions {
namespace {

constexpr double kMicros = 1'000'000.0;

std::optional<double> forwardOf(const OptionSeries& s, const IndexCurve& curve, Hour now) {
  const DeliveryPeriod p = s.period();
  const double from = std::max<double>(static_cast<double>(now), static_cast<double>(p.start));
  const double middle = 0.5 * (from + static_cast<double>(p.end));
  return forwardFromTerms(curve.terms, middle - static_cast<double>(now));
}

AverageOption averageOf(const OptionSeries& s, KnownAverage known) {
  const DeliveryPeriod p = s.period();
  return AverageOption{s.kind,
                       static_cast<double>(s.strike) / kMicros,
                       static_cast<double>(p.start),
                       static_cast<double>(p.end),
                       static_cast<double>(known.hours),
                       static_cast<double>(known.mean) / kMicros};
}

}  // namespace

std::optional<SeriesValue> referenceValue(const OptionSeries& s, const IndexCurve& curve, Hour now,
                                          KnownAverage known) {
  const auto forward = forwardOf(s, curve, now);
  if (!forward) return std::nullopt;
  SeriesValue v;
  v.forward = *forward;
  v.volatility = curve.volatility;
  v.greeks = averageOptionValue(averageOf(s, known), *forward, curve.volatility, static_cast<double>(now));
  v.value = static_cast<Price>(std::llround(v.greeks.value * kMicros));
  return v;
}

std::optional<Price> scenarioMarginPerGpuHour(const OptionSeries& s, const IndexCurve& curve, Hour now,
                                              KnownAverage known) {
  const auto forward = forwardOf(s, curve, now);
  if (!forward) return std::nullopt;
  const AverageOption o = averageOf(s, known);
  double worst = 0;
  for (double move : kIndexMoves)
    for (double volMove : kVolMoves)
      worst = std::max(worst, averageOptionValue(o, *forward * (1.0 + move), curve.volatility * (1.0 + volMove),
                                                 static_cast<double>(now))
                                  .value);
  const double minimum = *forward * kShortMinimumPpm / kMicros;
  return static_cast<Price>(std::ceil((worst + minimum) * kMicros));
}

std::variant<double, ImpliedVolError> impliedVolatilityOf(const OptionSeries& s, const IndexCurve& curve, Hour now,
                                                          Price premium) {
  const auto forward = forwardOf(s, curve, now);
  const DeliveryPeriod p = s.period();
  if (!forward || now >= p.start) return ImpliedVolError::NoTime;
  // The same effective time as averageOptionValue before delivery.
  const double years =
      (static_cast<double>(p.start - now) + static_cast<double>(p.end - p.start) / 3.0) / kHoursPerYear;
  return impliedVolatility(s.kind, static_cast<double>(premium) / kMicros, *forward,
                           static_cast<double>(s.strike) / kMicros, years);
}

IndexCurve indexCurve(Price nextDay, Price nextWeek, Price nextMonth, const std::vector<ForwardMid>& forwardMids,
                      double volatility) {
  IndexCurve c;
  c.volatility = std::clamp(volatility, kMinVolatility, kMaxVolatility);
  // Each tenor stands at the middle of its lead-time bucket (core/settlement/PriceIndex.h).
  if (nextDay > 0) c.terms.push_back({12, nextDay / kMicros});
  if (nextWeek > 0) c.terms.push_back({96, nextWeek / kMicros});
  if (nextMonth > 0) c.terms.push_back({444, nextMonth / kMicros});
  for (const ForwardMid& f : forwardMids)
    if (f.mid > 0) c.terms.push_back({f.leadHours, f.mid / kMicros});
  return c;
}

}  // namespace tessera::indexoptions
