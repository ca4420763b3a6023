#pragma once
// An account's client order ids (unique for the life of the exchange, docs/protocol.md) and the
// orders they name. The table only grows, so it must never rehash all at once: a std::unordered_map
// that doubles at a million ids relinks every one of them inside one matching batch, and the 50
// accounts of a busy exchange double at about the same time (bench/net/README.md).
//
// Open addressing (linear probing, at most half full) over flat slots, the ids' bytes in an
// arena of fixed pages. Growing maps a table twice the size, zero pages the kernel hands out as
// they are first touched (no memset of the whole table), and every later operation moves the
// next few slots of the old table into it, in order, so the cost of growing is spread over the
// inserts that caused it and each step reads memory sequentially.
#include "core/domain/Types.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace tessera::net {

class ClOrdIdIndex {
 public:
  ClOrdIdIndex();
  ~ClOrdIdIndex();
  ClOrdIdIndex(ClOrdIdIndex&&) noexcept;
  ClOrdIdIndex& operator=(ClOrdIdIndex&&) noexcept;

  // Records that `clOrdId` names order `id`; false (and nothing changes) if it already names one.
  bool claim(std::string_view clOrdId, OrderId id);
  void erase(std::string_view clOrdId);
  std::optional<OrderId> find(std::string_view clOrdId) const;
  std::size_t size() const { return live_; }
  bool growing() const { return old_.capacity != 0; }

 private:
  enum : std::uint8_t { kEmpty = 0, kFull = 1, kErased = 2 };  // zeroed memory is all kEmpty
  struct Slot {
    std::uint64_t hash;
    OrderId id;
    std::uint32_t key;  // where its bytes start in the arena
    std::uint8_t length;
    std::uint8_t state;
  };
  struct FreeSlots {
    // 0: from calloc. No default member initializer: inside the unfinished class it would make
    // the deleter not default-constructible, and unique_ptr needs that.
    std::size_t mappedBytes;
    void operator()(Slot* p) const;
  };
  struct Table {
    std::unique_ptr<Slot[], FreeSlots> cells;
    std::size_t capacity = 0;  // a power of two, or 0
    std::size_t used = 0;      // full and erased slots: what probing has to walk past
  };

  static Table makeTable(std::size_t capacity);
  std::size_t limitOf(std::size_t capacity) const;  // used slots at which a table grows
  Slot* lookup(const Table& t, std::uint64_t hash, std::string_view key) const;
  void insert(Table& t, const Slot& s);
  void moveSomeSlots();
  void startGrowing();
  std::string_view keyOf(const Slot& s) const;
  std::uint32_t store(std::string_view key);

  Table current_;
  Table old_;                // being emptied into current_, a few slots per operation
  std::size_t nextOld_ = 0;  // the next slot of old_ to move
  std::size_t live_ = 0;
  std::uint32_t fillPermille_ = 500;

  // The ids' bytes, in pages that never move.
  static constexpr std::size_t kPageBytes = 1 << 16;
  std::vector<std::unique_ptr<char[]>> pages_;
  std::size_t pageUsed_ = kPageBytes;  // of the last page
};

}  // namespace tessera::net
