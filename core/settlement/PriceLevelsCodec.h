#pragma once
// The snapshot form of a price-time book side (price -> order ids in time order), shared by the
// forward and option markets (core/engine/SnapshotCodec.h for the byte rules).
#include "core/engine/SnapshotCodec.h"

#include <cstdint>

namespace tessera {

template <typename Levels>
void saveLevels(SnapshotWriter& w, const Levels& levels) {
  w.pod<std::uint64_t>(levels.size());
  for (const auto& [price, ids] : levels) {
    w.pod(price);
    w.pod<std::uint64_t>(ids.size());
    for (std::uint64_t id : ids) w.pod(id);
  }
}

template <typename Levels>
void loadLevels(SnapshotReader& r, Levels& levels) {
  for (std::size_t n = r.count(8); n > 0; --n) {
    auto& ids = levels[r.pod<typename Levels::key_type>()];
    for (std::size_t k = r.count(8); k > 0; --k) ids.push_back(r.pod<std::uint64_t>());
  }
}

}  // namespace tessera
