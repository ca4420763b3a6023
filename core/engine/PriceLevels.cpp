#include "core/engine/PriceLevels.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace tessera {

std::size_t PriceLevels::rankOf(std::int32_t key) const {
  return static_cast<std::size_t>(
      std::lower_bound(ranks_.begin(), ranks_.end(), key, [](const Rank& r, std::int32_t k) { return r.key < k; }) -
      ranks_.begin());
}

PriceLevels::Level* PriceLevels::find(std::int32_t key) {
  const std::size_t r = rankOf(key);
  return r < ranks_.size() && ranks_[r].key == key ? &pool_[ranks_[r].index] : nullptr;
}

const PriceLevels::Level* PriceLevels::find(std::int32_t key) const {
  return const_cast<PriceLevels*>(this)->find(key);
}

std::size_t PriceLevels::rankFor(std::int32_t key) {
  const std::size_t r = rankOf(key);
  if (r < ranks_.size() && ranks_[r].key == key) return r;
  std::uint32_t index;
  if (!freeLevels_.empty()) {
    index = freeLevels_.back();
    freeLevels_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(pool_.size());
    pool_.emplace_back(memory_);
  }
  ranks_.insert(ranks_.begin() + static_cast<std::ptrdiff_t>(r), Rank{key, index, 0});
  pool_[index].key = key;
  return r;
}

void PriceLevels::cover(Level& l, Hour to) {
  const auto n = static_cast<std::size_t>(to - base_);
  if (keepsTotals_ && total_.size() < n) total_.resize(n, 0);
  if (bestBound_.size() < n) bestBound_.resize(n, kNoKey);
  if (l.wanting.size() < n) {
    // Room for every hour the side has: a level's array grows order by order, and each
    // reallocation would copy it, cold, to fresh memory.
    if (l.wanting.capacity() < n) l.wanting.reserve(std::max(n, bestBound_.size()));
    l.wanting.resize(n, 0);
  }
}

template <typename GpusAt>
std::uint32_t PriceLevels::rest(std::int32_t key, const Resting& r, Hour from, Hour to, GpusAt gpusAt) {
  if (from < base_) throw std::logic_error("resting before the book's first hour");
  if (r.start < base_ || r.end - base_ > INT32_MAX) throw std::logic_error("an entry's window beyond the book's hours");
  const std::size_t rank = rankFor(key);
  const std::uint32_t index = ranks_[rank].index;
  ranks_[rank].mayHold |= blocksOf(from, to);
  Level& l = pool_[index];
  cover(l, to);
  const auto n = static_cast<std::size_t>(to - from);
  std::uint32_t* w = l.wanting.data() + (from - base_);
  std::int32_t* b = bestBound_.data() + (from - base_);
  for (std::size_t i = 0; i < n; ++i) {
    w[i] += gpusAt(i) > 0;
    b[i] = std::min(b[i], key);
  }
  if (keepsTotals_) {
    std::int64_t* t = total_.data() + (from - base_);
    for (std::size_t i = 0; i < n; ++i) t[i] += gpusAt(i);
  }
  Entry& e = l.fifo.emplace_back();
  e.seq = r.seq;
  e.slot = r.slot;
  e.start_ = static_cast<std::int32_t>(r.start - base_);
  e.end_ = static_cast<std::int32_t>(r.end - base_);
  e.account_ = r.account;
  if (r.qty)
    e.viewQuantities(r.qty);
  else
    e.wantEveryHour(r.gpus);
  ++l.live;
  return index;
}

std::uint32_t PriceLevels::add(std::int32_t key, const Resting& e, Hour from, const std::vector<GpuCount>& need) {
  return rest(key, e, from, from + static_cast<Hour>(need.size()), [&need](std::size_t i) { return need[i]; });
}

std::uint32_t PriceLevels::add(std::int32_t key, const Resting& e, Hour from, Hour to, GpuCount gpus) {
  return rest(key, e, from, to, [gpus](std::size_t) { return gpus; });
}

PriceLevels::Entry& PriceLevels::entry(std::uint32_t index, std::uint64_t seq) {
  auto& fifo = pool_[index].fifo;
  const auto it =
      std::lower_bound(fifo.begin(), fifo.end(), seq, [](const Entry& e, std::uint64_t s) { return e.seq < s; });
  if (it == fifo.end() || it->seq != seq) throw std::logic_error("no entry with that sequence at the level");
  return *it;
}

void PriceLevels::prefetchAdd(std::int32_t key, Hour from, Hour to) const {
  // A level's hours never reach past the side's (cover grows both).
  const auto [first, last] = offsetsIn(from, to, bestBound_.size());
  if (first == last) return;
  // The side's arrays first: their lines are known at once, while the level's wait for its
  // record to arrive.
  for (std::size_t i = first; i < last; i += 64 / sizeof(std::int32_t)) __builtin_prefetch(bestBound_.data() + i, 1);
  if (keepsTotals_)
    for (std::size_t i = first; i < last; i += 64 / sizeof(std::int64_t)) __builtin_prefetch(total_.data() + i, 1);
  const Level* l = find(key);
  if (!l) return;
  for (std::size_t i = first; i < std::min(last, l->wanting.size()); i += 64 / sizeof(std::uint32_t))
    __builtin_prefetch(l->wanting.data() + i, 1);
  __builtin_prefetch(l->fifo.data() + l->fifo.size(), 1);  // where the entry goes
}

void PriceLevels::prefetchBounds(Hour from, Hour to) const {
  const auto [first, last] = offsetsIn(from, to, bestBound_.size());
  for (std::size_t i = first; i < last; i += 64 / sizeof(std::int32_t)) __builtin_prefetch(bestBound_.data() + i);
}

void PriceLevels::lowerBoundCosts(Hour from, Hour to, GpuCount gpus, Money* out) const {
  // Over the arrays directly, so that the loop is vectorised: bestBound(h) and total(h) each
  // check the hour is in range.
  std::fill(out, out + (to - from), Money{-1});
  const auto [first, last] = offsetsIn(from, to, std::min(total_.size(), bestBound_.size()));
  if (first == last) return;
  Money* o = out + (base_ + static_cast<Hour>(first) - from);
  for (std::size_t i = first; i < last; ++i) {
    const std::int32_t key = bestBound_[i];
    o[i - first] = total_[i] >= gpus && key != kNoKey ? static_cast<Money>(key) * gpus : -1;
  }
}

void PriceLevels::removeNewest(std::int32_t key, Hour from, Hour to, GpuCount gpus) {
  Level& l = *find(key);
  l.fifo.pop_back();
  change(l, from, to, gpus, 0);
  if (--l.live == 0) removeLevel(rankOf(key));
}

void PriceLevels::removeNewest(std::int32_t key, Hour from, const std::vector<GpuCount>& need) {
  Level& l = *find(key);
  l.fifo.pop_back();
  for (std::size_t i = 0; i < need.size(); ++i) change(l, from + static_cast<Hour>(i), need[i], 0);
  if (--l.live == 0) removeLevel(rankOf(key));
}

void PriceLevels::removeLevel(std::size_t rank) {
  const std::uint32_t index = ranks_[rank].index;
  Level& l = pool_[index];
  // A level with no live entry holds no GPUs in any hour still to come; the hours it may still
  // count are past ones, which nothing reads. So its per-hour array is kept as it is for the next
  // level made in this slot: zeroing a fresh one up to its last hour (hundreds of hours, each
  // time a price level empties and refills) is work the next level does not need.
  l.fifo.clear();
  l.head = 0;
  l.live = 0;
  ranks_.erase(ranks_.begin() + static_cast<std::ptrdiff_t>(rank));
  freeLevels_.push_back(index);
}

void PriceLevels::dropHoursBefore(Hour now) {
  // Shifting costs a pass over every level, so it waits until a few days have passed.
  constexpr Hour kShiftAfter = 72;
  if (now - base_ < kShiftAfter) return;
  const Hour drop = now - base_;
  auto shift = [drop](auto& v) {
    const auto n = std::min(v.size(), static_cast<std::size_t>(drop));
    v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
  };
  // Entries keep their hours from the base. A live one ends after the clock and began at most
  // the horizon before its end, so it moves exactly; a dead one may have ended long ago (the
  // clock may jump), and is held above the floor so that it still meets no hour to come.
  static constexpr std::int64_t kFloor = -(std::int64_t{1} << 30);
  auto moved = [drop](std::int32_t h) { return static_cast<std::int32_t>(std::max(h - drop, kFloor)); };
  for (const Rank& r : ranks_) {
    Level& l = pool_[r.index];
    shift(l.wanting);
    for (std::size_t i = l.head; i < l.fifo.size(); ++i) {
      l.fifo[i].start_ = moved(l.fifo[i].start_);
      l.fifo[i].end_ = moved(l.fifo[i].end_);
    }
  }
  // A free level's past hours would land on hours still to come: it starts afresh.
  for (const std::uint32_t index : freeLevels_) pool_[index].wanting.clear();
  shift(total_);
  shift(bestBound_);
  base_ = now;
  // The blocks move with the base: every level may hold anything until scanned again.
  for (Rank& r : ranks_) r.mayHold = ~std::uint64_t{0};
}

}  // namespace tessera
