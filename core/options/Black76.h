#pragma once
// Reference values of European options on a forward (Black 1976): the value, the greeks and
// the implied volatility of a call or a put struck at K on a forward F with volatility sigma
// and T years to expiry, discounted at a continuous rate r (0 on this exchange, whose premiums
// and settlements are paid in cash without interest). Plain doubles in dollars per GPU-hour:
// the exchange's integer money is converted at its edges (core/options/OptionSeries).
//
//   d1 = (ln(F/K) + sigma^2 T / 2) / (sigma sqrt T),  d2 = d1 - sigma sqrt T
//   call = e^{-rT} (F N(d1) - K N(d2)),  put = e^{-rT} (K N(-d2) - F N(-d1))
//
// With T = 0 or sigma = 0 the value is the discounted intrinsic value and the greeks are those
// of the limit (delta 0 or +-1, gamma and vega 0).
#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::indexoptions {

enum class OptionKind : std::uint8_t { Call, Put };
std::string_view toString(OptionKind k);  // "call", "put"
std::optional<OptionKind> parseOptionKind(std::string_view s);

inline constexpr double kHoursPerYear = 8760.0;

struct Black76Greeks {
  double value = 0;  // per unit of the underlying (per GPU-hour of notional)
  double delta = 0;  // d value / d F
  double gamma = 0;  // d2 value / d F2
  double vega = 0;   // d value / d sigma (per 1.00 of volatility, not per point)
  double theta = 0;  // d value / d t, per year of calendar time passing (T shrinking)
};

// F, K > 0, sigma >= 0, T >= 0; anything else is a caller's bug (std::invalid_argument).
Black76Greeks black76(OptionKind kind, double forward, double strike, double sigma, double years, double rate = 0);

enum class ImpliedVolError : std::uint8_t {
  BelowIntrinsic,  // the price is under the discounted intrinsic value: no volatility gives it
  AboveBound,      // a call above e^{-rT} F, or a put above e^{-rT} K: no volatility gives it
  NoTime,          // T = 0: only the intrinsic value is possible and volatility is undefined
  NotConverged,    // inside the bounds but outside the volatilities searched (above 1000%)
};
std::string_view toString(ImpliedVolError e);

inline constexpr double kMinImpliedVol = 1e-4;
inline constexpr double kMaxImpliedVol = 10.0;
// The volatility at which black76(...).value equals `price`, to 1e-10 of the price: Newton's
// method safeguarded by bisection on [kMinImpliedVol, kMaxImpliedVol], so it converges whatever
// the starting point. A price within 1e-12 of the intrinsic value gives kMinImpliedVol.
[[nodiscard]] std::variant<double, ImpliedVolError> impliedVolatility(OptionKind kind, double price, double forward,
                                                                      double strike, double years, double rate = 0);

// Annualised volatility of an index from its values at a fixed step (e.g. the hourly next-day
// index): the sample standard deviation of the log changes times sqrt(periods per year).
// Non-positive values are skipped with the change across them; fewer than `minChanges` changes
// give nothing, so the caller falls back to its default.
[[nodiscard]] std::optional<double> historicalVolatility(const std::vector<double>& values, double stepHours,
                                                         std::size_t minChanges = 24);

// A forward level for a delivery period from the index term structure: points (lead hours from
// now to the start of delivery, index level) of the published tenors; linear between them, flat
// outside; the level of a period is that of its middle. Nothing when there is no point.
struct TermPoint {
  double leadHours = 0;
  double level = 0;
};
[[nodiscard]] std::optional<double> forwardFromTerms(std::vector<TermPoint> points, double leadHoursToMiddle);
// The mid of a two-sided forward book, or the side there is; nothing for an empty book.
[[nodiscard]] std::optional<double> forwardFromBook(std::optional<double> bestBid, std::optional<double> bestAsk);

// An option on the average index over a delivery period [start, end), valued at `now`
// (all in hours): Black-76 on the average of the hours still to come, whose variance is that of
// a forward observed at its middle (T = lead to start + a third of the remaining period, the
// usual approximation of an arithmetic average). Hours already averaged (`knownHours` hours
// with mean `knownMean`) shift the strike: the option pays (1 - w) max(0, A - K') with w the
// known share and K' = (K - w knownMean) / (1 - w); with K' <= 0 it is certainly in the money.
struct AverageOption {
  OptionKind kind = OptionKind::Call;
  double strike = 0;
  double start = 0, end = 0;  // delivery period, hours
  double knownHours = 0;
  double knownMean = 0;
};
Black76Greeks averageOptionValue(const AverageOption& o, double forward, double sigma, double now);

}  // namespace tessera::indexoptions
