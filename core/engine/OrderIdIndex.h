#pragma once
// Order id -> slot. Exchanges hand out ids densely from 1, so ids below a bound live in a plain
// vector (one array access, no allocation per order); any other id falls back to a hash map.
#include "core/domain/Types.h"

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tessera {

class OrderIdIndex {
 public:
  using Slot = std::uint32_t;
  std::optional<Slot> find(OrderId id) const {
    if (id < dense_.size()) {
      const Slot s = dense_[id];
      if (s != kNone) return s;
      return std::nullopt;
    }
    if (id < kDenseLimit) return std::nullopt;
    auto it = sparse_.find(id);
    if (it == sparse_.end()) return std::nullopt;
    return it->second;
  }
  bool contains(OrderId id) const { return find(id).has_value(); }
  // `id` must not be in the index yet.
  void insert(OrderId id, Slot s) {
    if (id < kDenseLimit) {
      if (id >= dense_.size()) dense_.resize(std::max<std::size_t>(id + 1, dense_.size() * 2), kNone);
      dense_[id] = s;
    } else {
      sparse_.emplace(id, s);
    }
  }
  Slot at(OrderId id) const { return *find(id); }

 private:
  static constexpr Slot kNone = ~Slot{0};
  static constexpr OrderId kDenseLimit = OrderId{1} << 26;  // 64M ids, 256 MiB at most
  std::vector<Slot> dense_;
  std::unordered_map<OrderId, Slot> sparse_;
};

}  // namespace tessera
