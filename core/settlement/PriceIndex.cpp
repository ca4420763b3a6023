#include "core/settlement/PriceIndex.h"
#include "core/engine/SnapshotCodec.h"

namespace tessera {

std::string_view toString(Tenor t) {
  switch (t) {
    case Tenor::NextDay: return "next_day";
    case Tenor::NextWeek: return "next_week";
    case Tenor::NextMonth: return "next_month";
  }
  return "?";
}

std::optional<Tenor> tenorOf(Hour lead) {
  if (lead < 0) return std::nullopt;
  if (lead < kHoursPerDay) return Tenor::NextDay;
  if (lead < 7 * kHoursPerDay) return Tenor::NextWeek;
  if (lead < 30 * kHoursPerDay) return Tenor::NextMonth;
  return std::nullopt;
}

void PriceIndex::record(const TradePrint& p) {
  const auto tenor = tenorOf(p.deliveryStart - p.tradedAt);
  if (!tenor || p.gpuHours <= 0) return;
  series_[{p.accelerator, *tenor}].prints.push_back(p);
}

void PriceIndex::dropOutOfWindow(Series& s, Hour asOf) const {
  while (!s.prints.empty() && s.prints.front().tradedAt <= asOf - window_) s.prints.pop_front();
}

void PriceIndex::prune(Hour asOf) {
  for (auto& [key, s] : series_) dropOutOfWindow(s, asOf);
}

std::optional<IndexValue> PriceIndex::value(Accelerator a, Tenor t, Hour asOf) {
  auto it = series_.find({a, t});
  if (it == series_.end()) return std::nullopt;
  Series& s = it->second;
  dropOutOfWindow(s, asOf);
  // 128-bit sum: a day of trades can exceed int64 in price * GPU-hours.
  __extension__ using Wide = __int128;
  Wide notional = 0;
  std::int64_t volume = 0;
  int trades = 0;
  for (const auto& p : s.prints) {
    if (p.tradedAt > asOf) break;
    notional += static_cast<Wide>(p.price) * p.gpuHours;
    volume += p.gpuHours;
    ++trades;
  }
  if (volume == 0) {
    if (!s.last) return std::nullopt;
    IndexValue stale = *s.last;
    stale.stale = true;
    stale.gpuHours = 0;
    stale.trades = 0;
    return stale;
  }
  IndexValue v{static_cast<Price>((notional + volume / 2) / volume), volume, trades, false};
  s.last = v;
  return v;
}

void PriceIndex::save(SnapshotWriter& w) const {
  w.pod(window_);
  w.pod<std::uint64_t>(series_.size());
  for (const auto& [key, s] : series_) {
    w.pod(key.first);
    w.pod(key.second);
    w.pod<std::uint64_t>(s.prints.size());
    for (const TradePrint& p : s.prints) w.pod(p);
    w.pod(s.last.has_value());
    w.pod(s.last.value_or(IndexValue{}));
  }
}

void PriceIndex::load(SnapshotReader& r) {
  window_ = r.pod<Hour>();
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto a = r.pod<Accelerator>();
    Series& s = series_[{a, r.pod<Tenor>()}];
    for (std::size_t k = r.count(sizeof(TradePrint)); k > 0; --k) s.prints.push_back(r.pod<TradePrint>());
    const bool last = r.pod<bool>();
    const auto v = r.pod<IndexValue>();
    if (last) s.last = v;
  }
}

}  // namespace tessera
