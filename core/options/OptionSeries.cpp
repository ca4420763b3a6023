#include "core/options/OptionSeries.h"
#include "core/settlement/ContractSettlement.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <cstdio>

namespace tessera::indexoptions {
namespace {

using namespace std::chrono;

year_month_day dateOf(Hour h) { return year_month_day{sys_days{days{h >= 0 ? h / 24 : (h - 23) / 24}}}; }
Hour hourOf(year_month_day d) { return static_cast<Hour>(sys_days{d}.time_since_epoch().count()) * 24; }

// The first day of the period of `kind` that contains `d`.
year_month_day periodFloor(PeriodKind kind, year_month_day d) {
  const unsigned m = static_cast<unsigned>(d.month());
  switch (kind) {
    case PeriodKind::Month: return d.year() / d.month() / 1;
    case PeriodKind::Quarter: return d.year() / month((m - 1) / 3 * 3 + 1) / 1;
    case PeriodKind::Year: return d.year() / January / 1;
  }
  return d;
}

year_month_day periodAfter(PeriodKind kind, year_month_day first) {
  const year_month ym{first.year(), first.month()};
  switch (kind) {
    case PeriodKind::Month: return (ym + months(1)) / 1;
    case PeriodKind::Quarter: return (ym + months(3)) / 1;
    case PeriodKind::Year: return (ym + years(1)) / 1;
  }
  return first;
}

// How far ahead each kind of period is listed, in months from the current one.
int listedMonthsAhead(PeriodKind kind) {
  switch (kind) {
    case PeriodKind::Month: return 12;
    case PeriodKind::Quarter: return 24;
    case PeriodKind::Year: return 36;
  }
  return 0;
}

}  // namespace

std::string_view toString(PeriodKind k) {
  switch (k) {
    case PeriodKind::Month: return "month";
    case PeriodKind::Quarter: return "quarter";
    case PeriodKind::Year: return "year";
  }
  return "?";
}

std::optional<PeriodKind> parsePeriodKind(std::string_view s) {
  for (PeriodKind k : {PeriodKind::Month, PeriodKind::Quarter, PeriodKind::Year})
    if (s == toString(k)) return k;
  return std::nullopt;
}

std::optional<DeliveryPeriod> periodStarting(PeriodKind kind, Hour start) {
  if (start % 24 != 0) return std::nullopt;
  const year_month_day d = dateOf(start);
  if (periodFloor(kind, d) != d) return std::nullopt;
  return DeliveryPeriod{kind, start, hourOf(periodAfter(kind, d))};
}

bool isListed(const DeliveryPeriod& p, Hour now) {
  if (p.start <= now) return false;
  const year_month_day today = dateOf(now);
  const year_month limit = year_month{today.year(), today.month()} + months(listedMonthsAhead(p.kind));
  return p.start <= hourOf(limit / 1);
}

std::vector<DeliveryPeriod> listedPeriods(Hour now) {
  std::vector<DeliveryPeriod> out;
  for (PeriodKind kind : {PeriodKind::Month, PeriodKind::Quarter, PeriodKind::Year}) {
    year_month_day d = periodFloor(kind, dateOf(now));
    for (;;) {
      d = periodAfter(kind, d);
      const auto p = periodStarting(kind, hourOf(d));
      if (!p || !isListed(*p, now)) break;
      out.push_back(*p);
    }
  }
  std::sort(out.begin(), out.end(), [](const DeliveryPeriod& a, const DeliveryPeriod& b) {
    return a.start != b.start ? a.start < b.start : a.kind < b.kind;
  });
  return out;
}

std::string periodName(const DeliveryPeriod& p) {
  const year_month_day d = dateOf(p.start);
  char buf[32];
  const int y = static_cast<int>(d.year());
  const unsigned m = static_cast<unsigned>(d.month());
  switch (p.kind) {
    case PeriodKind::Month: std::snprintf(buf, sizeof buf, "%04d-%02u", y, m); break;
    case PeriodKind::Quarter: std::snprintf(buf, sizeof buf, "%04d-Q%u", y, (m - 1) / 3 + 1); break;
    case PeriodKind::Year: std::snprintf(buf, sizeof buf, "%04d", y); break;
  }
  return buf;
}

DeliveryPeriod OptionSeries::period() const {
  const auto p = periodStarting(periodKind, start);
  if (!p) throw std::logic_error("option series with a start that begins no period");
  return *p;
}

std::string seriesName(const OptionSeries& s) {
  return std::string(toString(s.accelerator)) + " " + periodName(s.period()) + " " + std::string(toString(s.kind)) +
         " " + toDollars(s.strike);
}

Money payoffPerGpuHour(OptionKind kind, Price strike, Price average) {
  const Money diff = kind == OptionKind::Call ? average - strike : strike - average;
  return diff > 0 ? diff : 0;
}

}  // namespace tessera::indexoptions
