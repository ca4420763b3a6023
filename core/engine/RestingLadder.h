#pragma once
// One side of one (cluster, hour) cell of the fast engine: the divisible orders resting there, in
// price-time priority. An add writes one entry into every hour of its window, so inserting must be
// cheap: new entries go into short sorted runs that are merged into the long one only when they
// fill, instead of shifting the whole ladder on every insert. The shortest run is stored in the
// ladder itself, so an add writes the cells of its consecutive hours in one sweep of memory
// without following a pointer per hour. Entries name
// an order and a priority sequence but hold no quantity: the order owns what it still wants in
// each hour, so a cancel, fill or expiry just makes its entries dead without touching them. Dead
// entries are dropped when they reach the best end, and the ladder is compacted when more than
// half of it is dead. Whether an entry is live is the caller's to say (`isLive`).
#include <cstddef>
#include <climits>
#include <cstdint>
#include <vector>

namespace tessera {

class RestingLadder {
 public:
  struct Entry {
    std::uint64_t seq = 0;   // time priority; the order's current sequence, so an amend that
                             // loses priority makes its old entries dead
    std::int32_t key = 0;    // asks: price; bids: -price, so "smaller is better" on both sides
    std::uint32_t slot = 0;  // the order
  };
  static_assert(sizeof(Entry) == 16);

  static bool better(const Entry& a, const Entry& b) {
    return a.key != b.key ? a.key < b.key : a.seq < b.seq;
  }

  void insert(const Entry& e);
  // The entry with the best priority, live or dead, or null if the ladder is empty.
  const Entry* best() const;
  void popBest();
  // Pops dead entries off the best end until the best is live; null if none is left.
  template <typename IsLive>
  const Entry* bestLive(IsLive&& isLive) {
    while (const Entry* e = best()) {
      if (isLive(*e)) {
        keyBound_ = e->key;
        return e;
      }
      popBest();
    }
    keyBound_ = kNoKey;
    return nullptr;
  }
  // No live entry has a better key than this (kNoKey: there is none). Kept in the ladder itself,
  // so asking whether an order could cross here reads no entry: most adds cross nowhere.
  std::int32_t keyBound() const { return keyBound_; }
  static constexpr std::int32_t kNoKey = INT32_MAX;
  // Starts loading the best end of the stored runs, for a walk that will come soon: walks go
  // hour after hour, and each ladder's runs live elsewhere in memory.
  void prefetchBest() const {
    if (!main_.empty()) __builtin_prefetch(&main_.back());
    if (!fresh_.empty()) __builtin_prefetch(&fresh_.back());
  }
  // Calls f(entry) for every entry, best first, until f returns false. Dead entries included.
  template <typename F>
  void forEachBestFirst(F&& f) const;
  // Removes the live entry with this priority (which must be present).
  void erase(std::int32_t key, std::uint64_t seq);

  // Bookkeeping of live entries, so the ladder knows when compaction pays: the caller reports
  // every entry that dies while it is still stored, and then offers to compact.
  void noteDeath() { --live_; }
  template <typename IsLive>
  void compactIfSparse(IsLive&& isLive) {
    if (static_cast<std::int64_t>(size()) > 2 * live_ + kSlack) compact(isLive);
  }
  void clear();

  std::size_t size() const { return main_.size() + fresh_.size() + newestCount_; }
  std::int64_t gpus = 0;  // live quantity resting here (the caller keeps it)

 private:
  static constexpr std::int64_t kSlack = 16;
  static constexpr std::size_t kNewest = 8;
  // All three runs are sorted worst first, so the best entry of each is at its back. Inserts land
  // in `newest_`; a full `newest_` is merged into `fresh_`, and a full `fresh_` into `main_`.
  enum class Run : std::uint8_t { None, Main, Fresh, Newest };
  Run bestRun() const;
  void mergeNewest();
  void mergeFresh();
  std::size_t freshCapacity() const { return 32 + main_.size() / 16; }
  template <typename IsLive>
  void compact(IsLive& isLive);

  std::vector<Entry> main_;
  std::vector<Entry> fresh_;
  std::int64_t live_ = 0;
  std::int32_t keyBound_ = kNoKey;
  std::uint8_t newestCount_ = 0;
  Entry newest_[kNewest];
};

template <typename F>
void RestingLadder::forEachBestFirst(F&& f) const {
  std::size_t i = main_.size(), j = fresh_.size(), k = newestCount_;
  while (i > 0 || j > 0 || k > 0) {
    const Entry* e = i > 0 ? &main_[i - 1] : nullptr;
    int from = 0;
    if (j > 0 && (!e || better(fresh_[j - 1], *e))) {
      e = &fresh_[j - 1];
      from = 1;
    }
    if (k > 0 && (!e || better(newest_[k - 1], *e))) {
      e = &newest_[k - 1];
      from = 2;
    }
    if (from == 0) --i;
    else if (from == 1) --j;
    else --k;
    if (!f(*e)) return;
  }
}

template <typename IsLive>
void RestingLadder::compact(IsLive& isLive) {
  mergeNewest();
  mergeFresh();
  std::erase_if(main_, [&](const Entry& e) { return !isLive(e); });
  live_ = static_cast<std::int64_t>(main_.size());
}

}  // namespace tessera
