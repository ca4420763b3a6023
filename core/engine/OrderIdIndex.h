#pragma once
// Order id -> a 32-bit value (the fast engine's slot for a working order, or its tagged place
// among the finished ones). Exchanges hand out ids densely from 1, so ids that arrive roughly in order
// live in fixed-size pages of a plain array (one lookup, no allocation per order, and growth
// never copies what is there, so it never stalls the engine). A page is added only once the last
// one has taken at least half its ids, so no choice of ids makes the pages cover more than about
// twice the ids stored (plus a page); every other id goes to a hash map. A page whose ids are all
// erased is freed, so an owner that erases what it no longer needs keeps only the pages of the
// ids it still holds.
#include "core/domain/Types.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tessera {

class OrderIdIndex {
 public:
  using Slot = std::uint32_t;
  std::optional<Slot> find(OrderId id) const {
    if (id < covered() && pages_[id >> kPageBits]) {
      const Slot s = (*pages_[id >> kPageBits])[id & kPageMask];
      if (s != kNone) return s;
    }
    if (sparse_.empty()) return std::nullopt;
    auto it = sparse_.find(id);  // also ids stored before the pages grew past them
    if (it == sparse_.end()) return std::nullopt;
    return it->second;
  }
  bool contains(OrderId id) const { return find(id).has_value(); }
  // `id` must not be in the index yet.
  void insert(OrderId id, Slot s) {
    // The next page is added once the last one has taken at least half its ids (whether or not
    // they were erased since), so ids far apart go to the map instead of a page each.
    while (id >= covered() && id < covered() + kPageSize && 2 * insertedLast_ >= (pages_.empty() ? 0 : kPageSize)) {
      // The last page, if it was emptied while it took new ids, is freed now.
      if (!pages_.empty() && used_.back() == 0) pages_.back().reset();
      pages_.push_back(std::make_unique<Page>());
      pages_.back()->fill(kNone);
      used_.push_back(0);
      insertedLast_ = 0;
    }
    if (id < covered()) {
      auto& page = pages_[id >> kPageBits];
      if (!page) {
        page = std::make_unique<Page>();
        page->fill(kNone);
      }
      (*page)[id & kPageMask] = s;
      ++used_[id >> kPageBits];
      if ((id >> kPageBits) + 1 == pages_.size()) ++insertedLast_;
    } else {
      sparse_.emplace(id, s);
    }
  }
  Slot at(OrderId id) const { return *find(id); }
  // Removes `id` (nothing if it is not in the index).
  void erase(OrderId id) {
    const std::uint64_t p = id >> kPageBits;
    if (id < covered() && pages_[p] && (*pages_[p])[id & kPageMask] != kNone) {
      (*pages_[p])[id & kPageMask] = kNone;
      if (--used_[p] == 0 && p + 1 < pages_.size()) pages_[p].reset();  // the last page still takes new ids
      return;
    }
    sparse_.erase(id);
  }
  // Calls f(id, slot) for every id in the index, in no particular order.
  template <typename F>
  void forEach(F&& f) const {
    for (std::size_t p = 0; p < pages_.size(); ++p)
      if (pages_[p])
        for (std::uint64_t i = 0; i < kPageSize; ++i)
          if ((*pages_[p])[i] != kNone) f(static_cast<OrderId>(p * kPageSize + i), (*pages_[p])[i]);
    for (const auto& [id, s] : sparse_) f(id, s);
  }
  // Points `id`, which must be in the index, at `s` instead.
  void assign(OrderId id, Slot s) {
    if (id < covered() && pages_[id >> kPageBits]) {
      Slot& dense = (*pages_[id >> kPageBits])[id & kPageMask];
      if (dense != kNone) {
        dense = s;
        return;
      }
    }
    sparse_.at(id) = s;
  }

 private:
  static constexpr Slot kNone = ~Slot{0};
  static constexpr unsigned kPageBits = 14;
  static constexpr std::uint64_t kPageSize = std::uint64_t{1} << kPageBits;
  static constexpr std::uint64_t kPageMask = kPageSize - 1;
  using Page = std::array<Slot, kPageSize>;
  std::uint64_t covered() const { return pages_.size() * kPageSize; }

  std::vector<std::unique_ptr<Page>> pages_;
  std::vector<std::uint32_t> used_;  // ids stored per page; a page with none is freed (null)
  std::size_t insertedLast_ = 0;     // ids ever stored in the last page
  std::unordered_map<OrderId, Slot> sparse_;
};

}  // namespace tessera
