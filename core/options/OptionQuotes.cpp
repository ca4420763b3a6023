#include "core/options/OptionQuotes.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace tessera::indexoptions {
namespace {
constexpr Price kCent = 10'000;
}  // namespace

std::optional<double> periodForward(const IndexCurve& curve, Accelerator a, const DeliveryPeriod& p, Hour now) {
  const OptionSeries probe{a, OptionKind::Call, p.kind, p.start, kStrikeTick};
  if (const auto v = referenceValue(probe, curve, now)) return v->forward;
  return std::nullopt;
}

std::vector<Price> strikeLadder(double forward, int halfWidth) {
  const Price tenCents = 10 * kStrikeTick;
  const Price step = std::max<Price>(tenCents, std::llround(forward * 1e6 * 0.05 / tenCents) * tenCents);
  const Price centre = std::llround(forward * 1e6 / tenCents) * tenCents;
  std::vector<Price> out;
  for (int k = -halfWidth; k <= halfWidth; ++k)
    if (centre + k * step > 0) out.push_back(centre + k * step);
  return out;
}

std::vector<Price> nearestStrikes(std::vector<Price> strikes, Price forward, int count) {
  std::sort(strikes.begin(), strikes.end());
  strikes.erase(std::unique(strikes.begin(), strikes.end()), strikes.end());
  std::stable_sort(strikes.begin(), strikes.end(),
                   [&](Price x, Price y) { return std::llabs(x - forward) < std::llabs(y - forward); });
  if (strikes.size() > static_cast<std::size_t>(std::max(count, 0))) strikes.resize(static_cast<std::size_t>(count));
  return strikes;
}

TwoSidedQuote quoteAround(Price value, const DealerSpread& spread) {
  const Price half = std::max<Price>(spread.minHalfSpread, value * spread.halfSpreadPpm / 1'000'000);
  TwoSidedQuote q;
  const Price bid = (value - half) / kCent * kCent;  // down to a cent
  if (bid >= kCent) q.bid = bid;
  const Price ask = (value + half + kCent - 1) / kCent * kCent;  // up to a cent
  if (ask >= kCent) q.ask = ask;
  return q;
}

}  // namespace tessera::indexoptions
