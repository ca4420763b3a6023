#pragma once
// Order id -> slot. Exchanges hand out ids densely from 1, so ids that arrive roughly in order
// live in a plain vector (one array access, no allocation per order). The vector only grows
// while at least half of it is in use, so no choice of ids makes it more than about twice the
// number of orders (plus a small slack); every other id goes to a hash map.
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
    if (id < dense_.size() && dense_[id] != kNone) return dense_[id];
    if (sparse_.empty()) return std::nullopt;
    auto it = sparse_.find(id);  // also ids stored before the vector grew past them
    if (it == sparse_.end()) return std::nullopt;
    return it->second;
  }
  bool contains(OrderId id) const { return find(id).has_value(); }
  // `id` must not be in the index yet.
  void insert(OrderId id, Slot s) {
    if (id >= dense_.size() && id < dense_.size() + kSlack && 2 * (denseCount_ + 1) >= dense_.size())
      dense_.resize(std::max<std::size_t>(id + 1, 2 * dense_.size()), kNone);
    if (id < dense_.size()) {
      dense_[id] = s;
      ++denseCount_;
    } else {
      sparse_.emplace(id, s);
    }
  }
  Slot at(OrderId id) const { return *find(id); }

 private:
  static constexpr Slot kNone = ~Slot{0};
  static constexpr std::size_t kSlack = 4096;
  std::vector<Slot> dense_;
  std::size_t denseCount_ = 0;  // ids stored in dense_
  std::unordered_map<OrderId, Slot> sparse_;
};

}  // namespace tessera
