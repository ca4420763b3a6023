#include "core/options/Black76.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera::indexoptions {
namespace {

double normCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }
double normPdf(double x) { return std::exp(-0.5 * x * x) / std::sqrt(2.0 * M_PI); }

double intrinsic(OptionKind kind, double forward, double strike) {
  return kind == OptionKind::Call ? std::max(0.0, forward - strike) : std::max(0.0, strike - forward);
}

}  // namespace

std::string_view toString(OptionKind k) { return k == OptionKind::Call ? "call" : "put"; }

std::optional<OptionKind> parseOptionKind(std::string_view s) {
  if (s == "call") return OptionKind::Call;
  if (s == "put") return OptionKind::Put;
  return std::nullopt;
}

std::string_view toString(ImpliedVolError e) {
  switch (e) {
    case ImpliedVolError::BelowIntrinsic: return "price below the intrinsic value";
    case ImpliedVolError::AboveBound: return "price above the no-arbitrage bound";
    case ImpliedVolError::NoTime: return "the option has expired";
    case ImpliedVolError::NotConverged: return "no volatility up to 1000% gives this price";
  }
  return "?";
}

Black76Greeks black76(OptionKind kind, double forward, double strike, double sigma, double years, double rate) {
  if (!(forward > 0) || !(strike > 0) || !(sigma >= 0) || !(years >= 0) || !std::isfinite(rate))
    throw std::invalid_argument("black76: needs forward > 0, strike > 0, sigma >= 0, years >= 0");
  const double discount = std::exp(-rate * years);
  const bool call = kind == OptionKind::Call;
  Black76Greeks g;
  const double sd = sigma * std::sqrt(years);
  if (sd < 1e-12) {
    g.value = discount * intrinsic(kind, forward, strike);
    if (call)
      g.delta = forward > strike ? discount : 0;
    else
      g.delta = forward < strike ? -discount : 0;
    g.theta = rate * g.value;
    return g;
  }
  const double d1 = (std::log(forward / strike) + 0.5 * sd * sd) / sd;
  const double d2 = d1 - sd;
  g.value = call ? discount * (forward * normCdf(d1) - strike * normCdf(d2))
                 : discount * (strike * normCdf(-d2) - forward * normCdf(-d1));
  g.delta = call ? discount * normCdf(d1) : -discount * normCdf(-d1);
  g.gamma = discount * normPdf(d1) / (forward * sd);
  g.vega = discount * forward * normPdf(d1) * std::sqrt(years);
  // theta = -dV/dT: the discount's drift less the time value's decay, alike for calls and puts.
  g.theta = rate * g.value - discount * forward * normPdf(d1) * sigma / (2.0 * std::sqrt(years));
  return g;
}

std::variant<double, ImpliedVolError> impliedVolatility(OptionKind kind, double price, double forward, double strike,
                                                        double years, double rate) {
  if (!(forward > 0) || !(strike > 0) || !std::isfinite(price))
    throw std::invalid_argument("impliedVolatility: needs forward > 0, strike > 0 and a finite price");
  if (!(years > 0)) return ImpliedVolError::NoTime;
  const double discount = std::exp(-rate * years);
  const double lower = discount * intrinsic(kind, forward, strike);
  const double upper = discount * (kind == OptionKind::Call ? forward : strike);
  const double tol = 1e-10 * std::max(1.0, price);
  if (price < lower - tol) return ImpliedVolError::BelowIntrinsic;
  if (price >= upper) return ImpliedVolError::AboveBound;
  if (price <= lower + 1e-12) return kMinImpliedVol;
  auto f = [&](double s) { return black76(kind, forward, strike, s, years, rate).value - price; };
  double lo = kMinImpliedVol, hi = kMaxImpliedVol;
  if (f(lo) > 0) return kMinImpliedVol;  // the price is below any volatility we quote
  if (f(hi) < 0) return ImpliedVolError::NotConverged;
  // Brenner-Subrahmanyam's at-the-money guess, kept inside the bracket.
  double s = std::clamp(std::sqrt(2.0 * M_PI / years) * price / (discount * forward), lo, hi);
  for (int i = 0; i < 200; ++i) {
    const Black76Greeks g = black76(kind, forward, strike, s, years, rate);
    const double diff = g.value - price;
    if (std::abs(diff) <= tol) return s;
    if (diff > 0)
      hi = s;
    else
      lo = s;
    double next = g.vega > 1e-14 ? s - diff / g.vega : lo;
    // Newton steps that leave the bracket give way to bisection: value is increasing in sigma.
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    s = next;
    if (hi - lo < 1e-15) return s;
  }
  return ImpliedVolError::NotConverged;
}

std::optional<double> historicalVolatility(const std::vector<double>& values, double stepHours,
                                           std::size_t minChanges) {
  std::vector<double> changes;
  double prev = 0;
  for (double v : values) {
    if (!(v > 0)) continue;
    if (prev > 0) changes.push_back(std::log(v / prev));
    prev = v;
  }
  if (changes.size() < std::max<std::size_t>(minChanges, 2) || !(stepHours > 0)) return std::nullopt;
  double mean = 0;
  for (double c : changes) mean += c;
  mean /= static_cast<double>(changes.size());
  double ss = 0;
  for (double c : changes) ss += (c - mean) * (c - mean);
  const double variance = ss / static_cast<double>(changes.size() - 1);
  return std::sqrt(variance * kHoursPerYear / stepHours);
}

std::optional<double> forwardFromTerms(std::vector<TermPoint> points, double lead) {
  std::erase_if(points, [](const TermPoint& p) { return !(p.level > 0); });
  if (points.empty()) return std::nullopt;
  std::sort(points.begin(), points.end(),
            [](const TermPoint& a, const TermPoint& b) { return a.leadHours < b.leadHours; });
  if (lead <= points.front().leadHours) return points.front().level;
  if (lead >= points.back().leadHours) return points.back().level;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const TermPoint& a = points[i - 1];
    const TermPoint& b = points[i];
    if (lead > b.leadHours) continue;
    if (b.leadHours == a.leadHours) return b.level;
    return a.level + (b.level - a.level) * (lead - a.leadHours) / (b.leadHours - a.leadHours);
  }
  return points.back().level;
}

std::optional<double> forwardFromBook(std::optional<double> bestBid, std::optional<double> bestAsk) {
  if (bestBid && bestAsk) return 0.5 * (*bestBid + *bestAsk);
  if (bestBid) return bestBid;
  return bestAsk;
}

Black76Greeks averageOptionValue(const AverageOption& o, double forward, double sigma, double now) {
  const bool call = o.kind == OptionKind::Call;
  const double from = std::max(now, o.start);
  const double remaining = std::max(0.0, o.end - from);
  const double total = o.knownHours + remaining;
  Black76Greeks g;
  if (total <= 0) return g;
  const double w = o.knownHours / total;
  if (remaining <= 0) {
    g.value = intrinsic(o.kind, o.knownMean, o.strike);
    return g;
  }
  const double shifted = (o.strike - w * o.knownMean) / (1.0 - w);
  if (shifted <= 0) {
    // Whatever the rest of the period averages, the call pays and the put does not.
    if (call) {
      g.value = w * o.knownMean + (1.0 - w) * forward - o.strike;
      g.delta = 1.0 - w;
    }
    return g;
  }
  const bool before = now < o.start;
  const double effectiveHours = (before ? o.start - now : 0.0) + remaining / 3.0;
  Black76Greeks b = black76(o.kind, forward, shifted, sigma, effectiveHours / kHoursPerYear);
  const double scale = 1.0 - w;
  g.value = scale * b.value;
  g.delta = scale * b.delta;
  g.gamma = scale * b.gamma;
  g.vega = scale * b.vega;
  // Calendar time shortens the effective time one for one before delivery, a third inside it.
  g.theta = scale * b.theta * (before ? 1.0 : 1.0 / 3.0);
  return g;
}

}  // namespace tessera::indexoptions
