#pragma once
// One side of one cluster's book in the fast engine: the divisible orders resting there, by price
// level, best level first. Each level keeps its orders in time priority (a FIFO: sequences only
// grow, so a new entry always belongs at the back) and how many of them want GPUs in every hour,
// and the side may keep its total GPUs per hour.
//
// An order rests once for its whole window: resting appends one entry to its level and counts it
// in contiguous per-hour arrays (the level's, the side's total, the side's best-price bound),
// instead of writing an entry into a ladder per hour (a 168-hour listing touched 168
// ladders, each elsewhere in memory). Matching walks levels best first and each level's orders in
// time order, taking from every hour of the incoming window at once; within one hour that is
// exactly price-time priority, because a level holds one price.
//
// Entries name an order and the sequence it rested with, and carry what a walk reads of it (its
// account, and what it still wants per hour: a view of the order's own per-hour quantities, or
// one count for every hour while nothing has traded against it), so a walk reads the orders that
// trade and no others: the working orders of a busy book do not fit in the cache, their entries
// stream through it. The order owns the quantities, so fills, cancels and expiry change only the
// order and the arrays. Whether an entry is live is the caller's to say; the caller reports each
// entry's death (`retire`), so the level knows when to drop its dead entries and when it is empty.
#include "core/domain/Types.h"
#include "core/engine/PagedVector.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory_resource>
#include <utility>
#include <vector>

namespace tessera {

class PriceLevels {
 public:
  // An order resting at a level, as callers give it and walks read it.
  struct Resting {
    std::uint64_t seq = 0;   // time priority; an amend that loses priority leaves this one dead
    Hour start = 0;          // the window it rested with, so a walk can skip orders elsewhere in
    Hour end = 0;            // time without reading them
    std::uint32_t slot = 0;  // the order
    AccountId account = 0;   // the order's
    // What the order still wants in hour h of [start, end) while the entry is live: qty[h - start]
    // if it has per-hour quantities (which it owns and keeps in place), else `gpus`. Hours before
    // the clock are not kept up to date, and a walk never reads them.
    const GpuCount* qty = nullptr;
    GpuCount gpus = 0;
    GpuCount wantsAt(Hour h) const { return qty ? qty[h - start] : gpus; }
  };
  // How a level keeps one: in 32 bytes, two to a cache line, since walks stream through the
  // entries of every level they pass, and loading entries is a large part of a walk's time.
  // Hours are kept from the side's base, which stays within a few days of the clock, and every
  // live entry ends after the clock and spans at most the horizon, so they fit 32 bits.
  class Entry {
   public:
    std::uint64_t seq = 0;
    std::uint32_t slot = 0;
    // What a live entry's order now wants: the quantities it keeps per hour, or one count for
    // every hour (see Resting::qty).
    void viewQuantities(const GpuCount* qty) { want_ = reinterpret_cast<std::uintptr_t>(qty); }
    void wantEveryHour(GpuCount gpus) { want_ = static_cast<std::uintptr_t>(gpus) << 1 | 1; }

   private:
    friend class PriceLevels;
    std::int32_t start_ = 0;  // from the base
    std::int32_t end_ = 0;
    AccountId account_ = 0;
    // Resting::qty, or Resting::gpus << 1 | 1 when it is null (a GpuCount is aligned to more
    // than one byte, so a pointer's low bit is clear).
    std::uintptr_t want_ = 0;
  };
  static_assert(sizeof(Entry) == 32 && alignof(GpuCount) > 1);
  struct Level {
    explicit Level(std::pmr::memory_resource* memory) : fifo(memory), wanting(memory) {}
    std::int32_t key = 0;          // asks: price; bids: -price, so smaller is better on both sides
    std::int64_t live = 0;         // live entries
    std::size_t head = 0;          // entries before this are dead
    std::pmr::vector<Entry> fifo;  // time order
    // Per hour from the side's base, how many live entries want GPUs in that hour. Readers ask
    // only whether the level holds any (the side's totals count GPUs), and a count of entries
    // fits 32 bits where a sum of GPUs needs 64: half the lines for every rest, fill, cancel and
    // scan. Exact from the clock on; hours before it may hold what they held when the level, or
    // one made before it in the same slot, was emptied (nothing reads them).
    std::pmr::vector<std::uint32_t> wanting;

    bool holdsAt(Hour h, Hour base) const {
      const auto i = static_cast<std::size_t>(h - base);
      return h >= base && i < wanting.size() && wanting[i] != 0;
    }
  };

  // Every order starts at or after the clock, and the clock only moves forward, so a side based
  // at the clock when its book was made (and moved up only to the clock) never needs hours before.
  // Only the sell side's totals are read (an all-or-none bid asks whether enough GPUs are offered
  // in an hour), so a side keeps them only if asked: on the buy side they would be a third of the
  // lines every rest, fill and cancel writes.
  enum class Totals : std::uint8_t { Kept, NotKept };
  // Levels' entries and per-hour arrays come from `memory` (a matcher's: see EngineMemory).
  explicit PriceLevels(Hour base = 0, Totals totals = Totals::Kept,
                       std::pmr::memory_resource* memory = std::pmr::get_default_resource())
      : memory_(memory), base_(base), keepsTotals_(totals == Totals::Kept) {}

  // Levels, best first. Empty levels are taken out only by `retire`/`removeNewest`, never during
  // a walk, so a walk may hold ranks and references.
  std::size_t levelCount() const { return ranks_.size(); }
  std::int32_t keyAt(std::size_t rank) const { return ranks_[rank].key; }
  Level& level(std::size_t rank) { return pool_[ranks_[rank].index]; }
  const Level& level(std::size_t rank) const { return pool_[ranks_[rank].index]; }
  std::size_t rankOf(std::int32_t key) const;  // first rank whose key is not less than `key`
  Level* find(std::int32_t key);
  const Level* find(std::int32_t key) const;
  // A level by the index `add` returned; valid while the entry added there is live.
  Level& at(std::uint32_t index) { return pool_[index]; }
  // The live entry that rested at level `index` with sequence `seq` (a level's entries are in
  // sequence order, so it is a binary search). It must be there.
  Entry& entry(std::uint32_t index, std::uint64_t seq);
  // What an entry of this side says.
  Resting read(const Entry& e) const {
    const GpuCount* qty = quantitiesOf(e);
    return Resting{e.seq,
                   base_ + e.start_,
                   base_ + e.end_,
                   e.slot,
                   e.account_,
                   qty,
                   qty ? 0 : static_cast<GpuCount>(e.want_ >> 1)};
  }
  // Does the entry's window meet [from, to)? (without unpacking it)
  bool meets(const Entry& e, Hour from, Hour to) const { return e.end_ > from - base_ && e.start_ < to - base_; }
  // Asks for the lines of its order's per-hour quantities that a walk over [from, to), which
  // the entry's window meets, reads (none if it keeps one count). Every line, not only the
  // first: a week's window is eleven lines, and the hardware prefetcher starts too late for a
  // stream that short.
  // Always inlined: GCC 12 finds that a function which only prefetches has no effect and drops
  // every call to it (bench/core/README.md, "Prefetches present").
  [[gnu::always_inline]] void prefetchQuantities(const Entry& e, Hour from, Hour to) const {
    const GpuCount* qty = quantitiesOf(e);
    if (!qty) return;
    const auto* first = reinterpret_cast<const char*>(qty + std::max<Hour>(from - base_ - e.start_, 0));
    const auto* last = reinterpret_cast<const char*>(qty + (std::min<Hour>(to - base_, e.end_) - 1 - e.start_));
    for (const char* a = first; a <= last; a += 64) __builtin_prefetch(a);
    __builtin_prefetch(last);  // the stride may step over the start of the last line
  }

  // Rests an entry at `key` wanting need[i] GPUs in hour from + i. Returns the level's index.
  std::uint32_t add(std::int32_t key, const Resting& e, Hour from, const std::vector<GpuCount>& need);
  // The same, `gpus` in every hour of [from, to).
  std::uint32_t add(std::int32_t key, const Resting& e, Hour from, Hour to, GpuCount gpus);
  // A live entry of `l` that wanted `before` GPUs in hour h now wants `after`.
  void change(Level& l, Hour h, GpuCount before, GpuCount after) {
    const auto i = static_cast<std::size_t>(h - base_);
    l.wanting[i] += static_cast<std::uint32_t>(after > 0) - static_cast<std::uint32_t>(before > 0);
    if (keepsTotals_) total_[i] += after - before;
  }
  // The same in every hour of [from, to).
  void change(Level& l, Hour from, Hour to, GpuCount before, GpuCount after) {
    const auto n = static_cast<std::size_t>(to - from);
    const std::uint32_t entries = static_cast<std::uint32_t>(after > 0) - static_cast<std::uint32_t>(before > 0);
    std::uint32_t* w = l.wanting.data() + (from - base_);
    if (entries != 0)
      for (std::size_t i = 0; i < n; ++i) w[i] += entries;
    if (!keepsTotals_) return;
    std::int64_t* t = total_.data() + (from - base_);
    for (std::size_t i = 0; i < n; ++i) t[i] += after - before;
  }
  // A live entry of `l` that wants q[i] GPUs in hour from + i gives up `gpus` in every hour of
  // [from, to); q is reduced by it. change() hour by hour, without its branches, so that the
  // loops are vectorised (a trade's run is dozens of hours).
  void take(Level& l, Hour from, Hour to, GpuCount* q, GpuCount gpus) {
    const auto n = static_cast<std::size_t>(to - from);
    std::uint32_t* __restrict w = l.wanting.data() + (from - base_);
    for (std::size_t i = 0; i < n; ++i) {
      const GpuCount after = q[i] - gpus;
      w[i] -= static_cast<std::uint32_t>(q[i] > 0) - static_cast<std::uint32_t>(after > 0);
      q[i] = after;
    }
    if (!keepsTotals_) return;
    std::int64_t* __restrict t = total_.data() + (from - base_);
    for (std::size_t i = 0; i < n; ++i) t[i] -= gpus;
  }
  // A live entry of `l` that wanted q[i] GPUs in hour from + i of [from, to) wants none there.
  void takeOut(Level& l, Hour from, Hour to, const GpuCount* q) {
    const auto n = static_cast<std::size_t>(to - from);
    std::uint32_t* __restrict w = l.wanting.data() + (from - base_);
    for (std::size_t i = 0; i < n; ++i) w[i] -= static_cast<std::uint32_t>(q[i] > 0);
    if (!keepsTotals_) return;
    std::int64_t* __restrict t = total_.data() + (from - base_);
    for (std::size_t i = 0; i < n; ++i) t[i] -= q[i];
  }
  // One of the level's entries died. Drops the dead entries once they are more than half as
  // many as the live ones (each drop moves the level's entries, so it waits for that many
  // deaths), and the level itself once it has none left.
  template <typename IsLive>
  void retire(std::uint32_t index, IsLive&& isLive);
  // Moves the level's head past the dead entries at its front: matching takes from the front,
  // so the orders there have just been read and filled.
  template <typename IsLive>
  void skipDeadFront(Level& l, IsLive&& isLive);
  // Asks for the lines `add` at `key` over [from, to) will write, so that a caller with other
  // work to do first can have them arrive meanwhile. Both prefetchers are kept out of the
  // callers' sight (noipa): seen whole, as under link-time optimisation, GCC would drop the calls
  // (see prefetchQuantities).
  [[gnu::noipa]] void prefetchAdd(std::int32_t key, Hour from, Hour to) const;
  // Asks for the hours' bounds over [from, to) (mayHoldAtOrBetter's reads).
  [[gnu::noipa]] void prefetchBounds(Hour from, Hour to) const;
  // Takes out the entry added last at `key`, with the GPUs it added over [from, to).
  void removeNewest(std::int32_t key, Hour from, Hour to, GpuCount gpus);
  // The same for an entry added with need[i] GPUs in hour from + i.
  void removeNewest(std::int32_t key, Hour from, const std::vector<GpuCount>& need);

  // GPUs resting in hour h at any price (on a side that keeps its totals).
  std::int64_t total(Hour h) const {
    const auto i = static_cast<std::size_t>(h - base_);
    return h >= base_ && i < total_.size() ? total_[i] : 0;
  }
  // No live entry in hour h has a better key than this (kNoKey: none may rest there). Lowered by
  // every add, never raised by fills or cancels, so it may be stale but is always a bound;
  // `tighten` stores an hour's exact best once a caller has found it, which keeps it a bound.
  static constexpr std::int32_t kNoKey = INT32_MAX;
  std::int32_t bestBound(Hour h) const {
    const auto i = static_cast<std::size_t>(h - base_);
    return h >= base_ && i < bestBound_.size() ? bestBound_[i] : kNoKey;
  }
  void tighten(Hour h, std::int32_t best) const {
    const auto i = static_cast<std::size_t>(h - base_);
    if (h >= base_ && i < bestBound_.size()) bestBound_[i] = best;
  }
  // For each hour h of [from, to), into out[h - from]: what `gpus` GPUs there cost at least
  // (the hour's bound times `gpus`), or -1 if the side (which keeps its totals) does not hold
  // that many there.
  void lowerBoundCosts(Hour from, Hour to, GpuCount gpus, Money* out) const;
  // May a live entry with a key no worse than `key` hold GPUs somewhere in [from, to)? From the
  // hours' bounds alone: false means certainly not.
  bool mayHoldAtOrBetter(std::int32_t key, Hour from, Hour to) const {
    const auto [first, last] = offsetsIn(from, to, bestBound_.size());
    std::int32_t at = 0;  // counted, not or-ed, so that the loop is vectorised
    for (std::size_t i = first; i < last; ++i) at += bestBound_[i] <= key;
    return at > 0;
  }
  // A caller found that no live entry with a key better than `key` holds GPUs in any hour of
  // [from, to): the hours' bounds may be raised to it (they stay bounds).
  void raiseBounds(Hour from, Hour to, std::int32_t key) const {
    const auto [first, last] = offsetsIn(from, to, bestBound_.size());
    for (std::size_t i = first; i < last; ++i) bestBound_[i] = std::max(bestBound_[i], key);
  }
  // Does the level at `rank` hold any GPUs in [from, to)? As anyIn, but a level whose blocks
  // of hours (below) say it holds nothing there is answered from the ranks alone, and a scan
  // that finds nothing clears the blocks it covered whole.
  bool anyInRank(std::size_t rank, Hour from, Hour to) const {
    const Rank& r = ranks_[rank];
    const std::uint64_t blocks = blocksOf(from, to);
    if ((r.mayHold & blocks) == 0) return false;
    if (anyIn(pool_[r.index], from, to)) return true;
    r.mayHold &= ~wholeBlocksOf(from, to);
    return false;
  }
  // Does the level hold any GPUs in [from, to)?
  bool anyIn(const Level& l, Hour from, Hour to) const {
    const auto [first, last] = offsetsIn(from, to, l.wanting.size());
    // Sixteen hours (a cache line's worth) at a time: a level that holds GPUs in the window
    // usually shows it in the first few, and the rest of a week's window (eleven lines, most of
    // them cold) need not load.
    constexpr std::size_t kPerLine = 64 / sizeof(std::uint32_t);
    const std::uint32_t* w = l.wanting.data();
    for (std::size_t i = first; i < last;) {
      const std::size_t stop = std::min(last, (i / kPerLine + 1) * kPerLine);
      std::uint32_t any = 0;
      for (; i < stop; ++i) any |= w[i];
      if (any != 0) return true;
    }
    return false;
  }
  Hour base() const { return base_; }
  // Forgets the hours before `now`: nothing can rest or trade there any more.
  void dropHoursBefore(Hour now);

 private:
  // The ranks are read in order by every walk, so each carries a coarse summary of where its
  // level may hold GPUs: bit b for the hours [base + 16b, base + 16b + 16), the last bit for
  // every hour from base + 16 * 63 on. Set by every rest, cleared only by a scan that found the
  // level empty there, so it is a bound like bestBound: a clear bit means certainly nothing.
  // It spares a walk the level and its per-hour array for most levels that hold nothing in
  // its window (they are most of the levels a walk asks).
  static constexpr Hour kBlockHours = 16;
  static constexpr unsigned kBlocks = 64;
  struct Rank {
    std::int32_t key = 0;
    std::uint32_t index = 0;  // into pool_
    mutable std::uint64_t mayHold = 0;
  };
  // Resting::qty of an entry.
  static const GpuCount* quantitiesOf(const Entry& e) {
    return (e.want_ & 1) != 0 ? nullptr : reinterpret_cast<const GpuCount*>(e.want_);
  }
  // The bits of the blocks [from, to) meets, and of those it covers whole.
  std::uint64_t blocksOf(Hour from, Hour to) const {
    const auto [first, last] = offsetsIn(from, to, std::size_t{1} << 40);
    if (first == last) return 0;
    const std::size_t lo = std::min<std::size_t>(first / kBlockHours, kBlocks - 1);
    const std::size_t hi = std::min<std::size_t>((last - 1) / kBlockHours, kBlocks - 1);
    return bitsFromTo(lo, hi);
  }
  std::uint64_t wholeBlocksOf(Hour from, Hour to) const {
    const auto [first, last] = offsetsIn(from, to, std::size_t{1} << 40);
    const std::size_t lo = (first + kBlockHours - 1) / kBlockHours;  // first block starting in it
    const std::size_t end = last / kBlockHours;                      // blocks before this end in it
    // The last block has no end: no window covers it whole.
    const std::size_t hi = std::min<std::size_t>(end, kBlocks - 1);
    return lo < hi ? bitsFromTo(lo, hi - 1) : 0;
  }
  static std::uint64_t bitsFromTo(std::size_t lo, std::size_t hi) {  // bits lo..hi, both in
    const std::uint64_t upTo = hi >= 63 ? ~std::uint64_t{0} : (std::uint64_t{1} << (hi + 1)) - 1;
    return upTo & ~((std::uint64_t{1} << lo) - 1);
  }
  // The hours of [from, to) that an array of `covered` hours from the base holds, as indices
  // [first, last) into it (first == last if none).
  std::pair<std::size_t, std::size_t> offsetsIn(Hour from, Hour to, std::size_t covered) const {
    const Hour lo = std::max(from, base_);
    const Hour hi = std::min(to, base_ + static_cast<Hour>(covered));
    if (lo >= hi) return {0, 0};
    return {static_cast<std::size_t>(lo - base_), static_cast<std::size_t>(hi - base_)};
  }
  // The rank of the level at `key`, made if there is none.
  std::size_t rankFor(std::int32_t key);
  // Both `add`s: `gpusAt(i)` GPUs in hour from + i.
  template <typename GpusAt>
  std::uint32_t rest(std::int32_t key, const Resting& e, Hour from, Hour to, GpusAt gpusAt);
  void cover(Level& l, Hour to);
  void removeLevel(std::size_t rank);

  std::vector<Rank> ranks_;  // sorted by key
  // Levels never move. Pages of 64, not a deque: the deque's blocks hold a few levels each,
  // and indexing it (for every level a walk passes) divided by that and read a block pointer.
  PagedVector<Level, 6> pool_;
  std::vector<std::uint32_t> freeLevels_;
  std::pmr::memory_resource* memory_;
  std::vector<std::int64_t> total_;  // empty unless keepsTotals_
  // A cache of a bound (see bestBound): changing it changes no answer, only how fast one is found.
  mutable std::vector<std::int32_t> bestBound_;
  Hour base_ = 0;
  bool keepsTotals_ = true;
};

template <typename IsLive>
void PriceLevels::retire(std::uint32_t index, IsLive&& isLive) {
  Level& l = pool_[index];
  if (--l.live == 0) {
    removeLevel(rankOf(l.key));
    return;
  }
  // A walk passes dead entries and asks for their orders' lines in vain: at up to one dead to
  // one live, a third of what it asked for was wasted.
  const auto live = static_cast<std::size_t>(l.live);
  if (l.fifo.size() - l.head <= live + live / 2 + 8) return;
  std::erase_if(l.fifo, [&](const Entry& e) { return !isLive(e); });
  l.head = 0;
}

template <typename IsLive>
void PriceLevels::skipDeadFront(Level& l, IsLive&& isLive) {
  while (l.head < l.fifo.size() && !isLive(l.fifo[l.head])) ++l.head;
  if (l.head > 64 && l.head * 2 > l.fifo.size()) {
    l.fifo.erase(l.fifo.begin(), l.fifo.begin() + static_cast<std::ptrdiff_t>(l.head));
    l.head = 0;
  }
}

}  // namespace tessera
