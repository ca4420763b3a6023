#pragma once
// An account's client order ids (unique for the life of the exchange, docs/protocol.md) and the
// orders they name. The table only grows, so it must never rehash all at once: a std::unordered_map
// that doubles at a million ids relinks every one of them inside one matching batch, and the 50
// accounts of a busy exchange double at about the same time (bench/net/README.md). Here growth
// starts a table twice the size and each later operation moves a few buckets of the old table
// into it (node handles: no entry is copied or reallocated, and pointers to values stay valid),
// so the cost of growing is spread over the inserts that caused it.
#include "core/domain/Types.h"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace tessera::net {

class ClOrdIdIndex {
 public:
  // Claims `clOrdId` for an order whose id is filled in later through the returned pointer;
  // `second` is false (and the pointer names the existing order) if the id is already taken.
  std::pair<OrderId*, bool> claim(const std::string& clOrdId);
  void erase(const std::string& clOrdId);
  std::optional<OrderId> find(const std::string& clOrdId) const;
  std::size_t size() const { return current_.size() + old_.size(); }
  bool growing() const { return !old_.empty(); }

 private:
  using Table = std::unordered_map<std::string, OrderId>;
  void moveSomeBuckets();
  void startGrowing();

  Table current_;
  Table old_;                 // being emptied into current_, a few buckets per operation
  std::size_t nextBucket_ = 0;  // of old_
};

}  // namespace tessera::net
