#pragma once
// What an option on the price index is: a European call or put on the next-day index of one
// accelerator class, averaged over a delivery period (a calendar month, quarter or year, UTC),
// struck at a price per GPU-hour. It is cash-settled when the period ends: a call pays
// max(0, average - strike), a put max(0, strike - average), per GPU-hour of notional.
//
// Listed periods (docs/settlement.md, "Options"): the 12 calendar months, the 8 quarters and the
// 3 years that start after the current hour and within 1, 2 and 3 years of it. Strikes are any
// multiple of kStrikeTick, so a series exists as soon as somebody quotes it.
#include "core/domain/Cluster.h"
#include "core/domain/Types.h"
#include "core/options/Black76.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::indexoptions {

enum class PeriodKind : std::uint8_t { Month, Quarter, Year };
std::string_view toString(PeriodKind k);  // "month", "quarter", "year"
std::optional<PeriodKind> parsePeriodKind(std::string_view s);

struct DeliveryPeriod {
  PeriodKind kind = PeriodKind::Month;
  Hour start = 0;  // 00:00 UTC of the first day of the month, quarter or year
  Hour end = 0;    // exclusive
  auto operator<=>(const DeliveryPeriod&) const = default;
};
// The period of this kind starting at `start`, or nothing if `start` does not begin one.
std::optional<DeliveryPeriod> periodStarting(PeriodKind kind, Hour start);
// The periods open for trading at `now`, by start then kind.
std::vector<DeliveryPeriod> listedPeriods(Hour now);
bool isListed(const DeliveryPeriod& p, Hour now);
// "2027-01", "2027-Q1", "2027".
std::string periodName(const DeliveryPeriod& p);

inline constexpr Price kStrikeTick = 10'000;  // $0.01 per GPU-hour

struct OptionSeries {
  Accelerator accelerator = Accelerator::H100;
  OptionKind kind = OptionKind::Call;
  PeriodKind periodKind = PeriodKind::Month;
  Hour start = 0;
  Price strike = 0;  // micro-dollars per GPU-hour, a multiple of kStrikeTick
  auto operator<=>(const OptionSeries&) const = default;
  DeliveryPeriod period() const;  // start must begin a period of periodKind
};
// "H100 2027-01 call $2.30".
std::string seriesName(const OptionSeries& s);

// What one GPU-hour of notional pays at expiry, in micro-dollars, on the period's average index.
Money payoffPerGpuHour(OptionKind kind, Price strike, Price average);

}  // namespace tessera::indexoptions
