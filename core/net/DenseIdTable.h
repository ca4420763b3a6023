#pragma once
// A table keyed by ids the exchange hands out in sequence (1, 2, 3, ...): fixed-size pages
// found by arithmetic. Growing never rehashes or moves the entries, so there is no batch in
// which every order the exchange ever saw is copied at once (an unordered_map doubling at a
// million orders froze the matching thread for 100-400 ms; bench/net/README.md). A page whose
// entries are all erased is freed, so a table whose owner erases what is done holds the pages
// of the live ids only.
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace tessera::net {

template <typename T>
class DenseIdTable {
 public:
  T& put(std::uint64_t id, T value) {
    Slot& s = slot(id, true);
    s.value = std::move(value);
    if (!s.used) ++used_[id / kPage];
    s.used = true;
    return s.value;
  }
  T* find(std::uint64_t id) {
    Slot* s = existing(id);
    return s && s->used ? &s->value : nullptr;
  }
  const T* find(std::uint64_t id) const { return const_cast<DenseIdTable*>(this)->find(id); }
  T& at(std::uint64_t id) {
    if (T* v = find(id)) return *v;
    throw std::out_of_range("no entry for id " + std::to_string(id));
  }
  const T& at(std::uint64_t id) const { return const_cast<DenseIdTable*>(this)->at(id); }
  void erase(std::uint64_t id) {
    if (Slot* s = existing(id); s && s->used) {
      s->used = false;
      s->value = T{};
      const std::uint64_t p = id / kPage;
      if (--used_[p] == 0 && p + 1 < pages_.size()) pages_[p].reset();  // the last page still fills
    }
  }

 private:
  static constexpr std::uint64_t kPage = 4096;
  struct Slot {
    bool used = false;
    T value{};
  };
  using Page = std::array<Slot, kPage>;
  Slot* existing(std::uint64_t id) {
    const std::uint64_t p = id / kPage;
    return p < pages_.size() && pages_[p] ? &(*pages_[p])[id % kPage] : nullptr;
  }
  Slot& slot(std::uint64_t id, bool create) {
    const std::uint64_t p = id / kPage;
    if (p >= pages_.size()) {
      pages_.resize(p + 1);
      used_.resize(p + 1, 0);
    }
    if (!pages_[p] && create) {
      pages_[p] = std::make_unique<Page>();
      // The page before it, emptied while it was the last one, is freed now.
      if (p > 0 && pages_[p - 1] && used_[p - 1] == 0) pages_[p - 1].reset();
    }
    return (*pages_[p])[id % kPage];
  }
  std::vector<std::unique_ptr<Page>> pages_;
  std::vector<std::uint32_t> used_;  // used slots per page
};

}  // namespace tessera::net
