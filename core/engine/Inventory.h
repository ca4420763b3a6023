#pragma once
// Who holds which GPU-hours. Providers hold what they were granted; buyers hold what they bought.
// A sell order offers part of a holding; what is offered can not be offered twice, and a trade
// moves GPU-hours from seller to buyer, so the total per (cluster, hour) never changes.
#include "core/domain/Types.h"

#include <algorithm>
#include <memory_resource>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tessera {

struct Holding;
class SnapshotWriter;
class SnapshotReader;

class Inventory {
 public:
  // The per-hour arrays come from `memory` (a matcher's: see EngineMemory).
  explicit Inventory(std::pmr::memory_resource* memory = std::pmr::get_default_resource()) : memory_(memory) {}

  // Capacity a provider puts on the market. Returns false (and changes nothing) if it would
  // exceed `clusterSize` GPUs granted in any hour. The grants of an interruptible cluster count
  // on its physical cluster (`countedOn`), whose size both books share.
  bool grant(AccountId account, ClusterId cluster, Hour start, Hour end, GpuCount gpus, GpuCount clusterSize,
             std::optional<ClusterId> countedOn = std::nullopt);
  GpuCount granted(ClusterId cluster, Hour hour) const;

  GpuCount held(AccountId account, ClusterId cluster, Hour hour) const;
  GpuCount offered(AccountId account, ClusterId cluster, Hour hour) const;
  // True if `gpus` more could be offered in every hour of [start, end).
  bool canOffer(AccountId account, ClusterId cluster, Hour start, Hour end, GpuCount gpus) const;
  void offer(AccountId account, ClusterId cluster, Hour start, Hour end, GpuCount delta);
  // Moves offered GPU-hours of the seller to the buyer.
  void transfer(AccountId seller, AccountId buyer, ClusterId cluster, Hour start, Hour end, GpuCount gpus);

  // The snapshot form (core/engine/SnapshotCodec.h); load() into an empty inventory.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

  // One account's holdings on one cluster, per hour.
  class Series {
    friend class Inventory;

   public:
    explicit Series(std::pmr::memory_resource* memory) : held(memory), offered(memory) {}

   private:
    Hour base = 0;
    std::pmr::vector<GpuCount> held;
    std::pmr::vector<GpuCount> offered;
    // Makes the arrays cover [start, end). Nearly always they already do (every trade asks twice),
    // so that answer is inline and only growing is a call.
    void cover(Hour start, Hour end) {
      if (!held.empty() && start >= base && end - base <= static_cast<Hour>(held.size())) return;
      grow(start, end);
    }
    void grow(Hour start, Hour end);
  };
  // The series of `account` on `cluster` (empty if new). It stays where it is for the
  // inventory's lifetime, so a matcher may keep a reference to it with a resting order and skip
  // the lookup on every trade.
  Series& seriesOf(AccountId account, ClusterId cluster) {
    return series_.try_emplace(key(account, cluster), memory_).first->second;
  }
  // transfer() between two series of the same cluster.
  static void transfer(Series& seller, Series& buyer, Hour start, Hour end, GpuCount gpus);
  // Takes back gpus[i] of the GPUs offered in hour start + i, for every hour of [start, end).
  static void withdraw(Series& s, Hour start, Hour end, const GpuCount* gpus);
  // offer() on the series of the account and cluster.
  static void offer(Series& s, Hour start, Hour end, GpuCount delta);
  // Asks for the lines transfer() will read of `s` in [start, end), so that a caller with many
  // transfers to make can have their memory loads overlap. Always inlined: GCC 12 drops calls to
  // a function that only prefetches, as it did in canOffer (see PriceLevels::prefetchQuantities).
  [[gnu::always_inline]] static void prefetch(const Series& s, Hour start, Hour end) {
    // Hours outside what the series covers yet are not there to ask for.
    const Hour lo = std::max(start, s.base);
    const Hour hi = std::min(end, s.base + static_cast<Hour>(s.held.size()));
    constexpr Hour kPerLine = 64 / sizeof(GpuCount);
    for (Hour h = lo; h < hi; h += kPerLine) {
      __builtin_prefetch(s.held.data() + (h - s.base));
      __builtin_prefetch(s.offered.data() + (h - s.base));
    }
  }

 private:
  static std::uint64_t key(AccountId a, ClusterId c) { return (std::uint64_t{a} << 32) | c; }
  const Series* findSeries(AccountId a, ClusterId c) const;
  // What `field` of `s` holds in hour h (0 outside it, or without a series).
  static GpuCount at(const Series* s, const std::pmr::vector<GpuCount> Series::*field, Hour h);

  std::pmr::memory_resource* memory_;

  // Never erased from, so references to its series stay valid through rehashing.
  std::unordered_map<std::uint64_t, Series> series_;
  std::unordered_map<ClusterId, Series> granted_;  // only `held` is used: GPUs granted per hour
};

}  // namespace tessera
