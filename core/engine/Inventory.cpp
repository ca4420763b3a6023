#include "core/engine/Inventory.h"
#include "core/engine/SnapshotCodec.h"

#include <algorithm>

namespace tessera {

void Inventory::Series::grow(Hour start, Hour end) {
  if (held.empty()) {
    // Holdings spread over the weeks a market lists: room for three of them from the start, so
    // that a series does not reallocate (and copy itself, cold) each time it reaches a later hour.
    constexpr std::size_t kFirstRoom = 3 * 7 * kHoursPerDay;
    base = start;
    const auto n = static_cast<std::size_t>(end - start);
    held.reserve(std::max(n, kFirstRoom));
    offered.reserve(std::max(n, kFirstRoom));
    held.assign(n, 0);
    offered.assign(n, 0);
    return;
  }
  if (start < base) {
    // Grow the front geometrically, so holdings arriving at ever-earlier hours stay linear.
    const auto more = std::max(static_cast<std::size_t>(base - start), held.size());
    held.insert(held.begin(), more, 0);
    offered.insert(offered.begin(), more, 0);
    base -= static_cast<Hour>(more);
  }
  const auto need = static_cast<std::size_t>(end - base);
  if (need > held.size()) {
    held.resize(need, 0);
    offered.resize(need, 0);
  }
}

const Inventory::Series* Inventory::findSeries(AccountId a, ClusterId c) const {
  auto it = series_.find(key(a, c));
  return it == series_.end() ? nullptr : &it->second;
}

GpuCount Inventory::at(const Series* s, const std::pmr::vector<GpuCount> Series::*field, Hour h) {
  if (!s) return 0;
  const auto& v = s->*field;
  if (h < s->base || h >= s->base + static_cast<Hour>(v.size())) return 0;
  return v[static_cast<std::size_t>(h - s->base)];
}

bool Inventory::grant(AccountId account, ClusterId cluster, Hour start, Hour end, GpuCount gpus, GpuCount clusterSize,
                      std::optional<ClusterId> countedOn) {
  auto& total = granted_.try_emplace(countedOn.value_or(cluster), memory_).first->second;
  total.cover(start, end);
  for (Hour h = start; h < end; ++h)
    if (total.held[static_cast<std::size_t>(h - total.base)] + gpus > clusterSize) return false;
  for (Hour h = start; h < end; ++h) total.held[static_cast<std::size_t>(h - total.base)] += gpus;
  auto& s = seriesOf(account, cluster);
  s.cover(start, end);
  for (Hour h = start; h < end; ++h) s.held[static_cast<std::size_t>(h - s.base)] += gpus;
  return true;
}

GpuCount Inventory::granted(ClusterId cluster, Hour hour) const {
  auto it = granted_.find(cluster);
  return it == granted_.end() ? 0 : at(&it->second, &Series::held, hour);
}

GpuCount Inventory::held(AccountId account, ClusterId cluster, Hour hour) const {
  return at(findSeries(account, cluster), &Series::held, hour);
}

GpuCount Inventory::offered(AccountId account, ClusterId cluster, Hour hour) const {
  return at(findSeries(account, cluster), &Series::offered, hour);
}

bool Inventory::canOffer(AccountId account, ClusterId cluster, Hour start, Hour end, GpuCount gpus) const {
  const Series* s = findSeries(account, cluster);
  if (!s) return false;
  // Hours the series does not cover hold nothing, which is too little for any gpus > 0.
  const Hour lo = std::max(start, s->base);
  const Hour hi = std::min(end, s->base + static_cast<Hour>(s->held.size()));
  if (gpus > 0 && (lo > start || hi < end)) return false;
  if (lo >= hi) return true;
  // The seller's hours are cold and a sell's window spans up to a week of them: all their lines
  // are asked for at once rather than one after another as the loop reaches them.
  prefetch(*s, lo, hi);
  // Counted over every hour rather than stopping at the first short one, so that the loop is
  // vectorised: a sell is nearly always valid, and then every hour is read anyway.
  const GpuCount* held = s->held.data();
  const GpuCount* offered = s->offered.data();
  std::uint32_t shortHours = 0;
  for (auto i = static_cast<std::size_t>(lo - s->base); i < static_cast<std::size_t>(hi - s->base); ++i)
    shortHours += held[i] - offered[i] < gpus;
  return shortHours == 0;
}

void Inventory::offer(AccountId account, ClusterId cluster, Hour start, Hour end, GpuCount delta) {
  offer(seriesOf(account, cluster), start, end, delta);
}

void Inventory::offer(Series& s, Hour start, Hour end, GpuCount delta) {
  s.cover(start, end);
  for (Hour h = start; h < end; ++h) s.offered[static_cast<std::size_t>(h - s.base)] += delta;
}

void Inventory::withdraw(Series& s, Hour start, Hour end, const GpuCount* gpus) {
  s.cover(start, end);
  GpuCount* __restrict offered = s.offered.data() + (start - s.base);
  const auto n = static_cast<std::size_t>(end - start);
  for (std::size_t i = 0; i < n; ++i) offered[i] -= gpus[i];
}

void Inventory::transfer(AccountId seller, AccountId buyer, ClusterId cluster, Hour start, Hour end, GpuCount gpus) {
  transfer(seriesOf(seller, cluster), seriesOf(buyer, cluster), start, end, gpus);
}

void Inventory::transfer(Series& from, Series& to, Hour start, Hour end, GpuCount gpus) {
  from.cover(start, end);
  for (Hour h = start; h < end; ++h) {
    const auto i = static_cast<std::size_t>(h - from.base);
    from.held[i] -= gpus;
    from.offered[i] -= gpus;
  }
  to.cover(start, end);
  for (Hour h = start; h < end; ++h) to.held[static_cast<std::size_t>(h - to.base)] += gpus;
}

// Series in key order, so that equal inventories give equal bytes.
void Inventory::save(SnapshotWriter& w) const {
  auto series = [&w](const Series& s) {
    w.pod(s.base);
    w.podVector(s.held);
    w.podVector(s.offered);
  };
  std::vector<std::uint64_t> keys;
  for (const auto& [k, s] : series_) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  w.pod<std::uint64_t>(keys.size());
  for (std::uint64_t k : keys) {
    w.pod(k);
    series(series_.at(k));
  }
  std::vector<ClusterId> clusters;
  for (const auto& [c, s] : granted_) clusters.push_back(c);
  std::sort(clusters.begin(), clusters.end());
  w.pod<std::uint64_t>(clusters.size());
  for (ClusterId c : clusters) {
    w.pod(c);
    series(granted_.at(c));
  }
}

void Inventory::load(SnapshotReader& r) {
  auto series = [&r](Series& s) {
    s.base = r.pod<Hour>();
    r.podVector(s.held);
    r.podVector(s.offered);
    if (s.held.size() != s.offered.size()) throw SnapshotCorrupt("snapshot: holdings of unequal lengths");
  };
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto k = r.pod<std::uint64_t>();
    series(series_.try_emplace(k, memory_).first->second);
  }
  for (std::size_t n = r.count(4); n > 0; --n) {
    const auto c = r.pod<ClusterId>();
    series(granted_.try_emplace(c, memory_).first->second);
  }
}

}  // namespace tessera
