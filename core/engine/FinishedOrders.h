#pragma once
// Orders that no longer work (filled, cancelled, expired), kept so they can still be looked up.
// The fast engine moves an order here once it stops working and reuses its slot, so its working
// orders stay in a pool the size of the live book instead of one that grows by a large record
// for every order ever accepted. A record here is 32 bytes instead of a working order's 448:
// an order with only the common fields (one cluster, a fixed window, no expiry, no sell-back,
// no constraints, cost factors or interruptible capacity) is kept field by field, with its terms interned; any other
// order keeps its request whole, aside.
#include "core/engine/Matcher.h"
#include "core/engine/PagedVector.h"
#include "core/engine/TermsTable.h"

#include <cstdint>
#include <vector>

namespace tessera {

class FinishedOrders {
 public:
  using Index = std::uint32_t;
  static constexpr Index kMaxCount = (Index{1} << 31) - 1;  // callers may tag an index with the top bit
  // An order that has stopped working (`status`), with nothing left, after `filled` GPU-hours.
  Index add(const OrderRequest& r, OrderStatus status, std::int64_t filled);
  // The order added at `i`, which had id `id`: a compact record does not keep the id, because
  // every caller has just looked the record up by it.
  OrderView at(Index i, OrderId id) const;
  // Frees the record at `i` for a later add(): the owner forgets that order (Matcher::forget).
  void remove(Index i);
  // Orders held (added and not removed).
  std::size_t size() const { return records_.size() - freeRecords_.size(); }

 private:
  // 32 bytes: every order ever accepted ends here, so in a busy market these records are most of
  // the memory the engine takes on, and on a VM each fresh page of it costs a fault of 2-12 us.
  // Compact records hold their fields in the narrowest types the market's limits allow.
  struct Record {
    std::uint32_t filled = 0;  // compact; a whole record's is kept with its request
    std::int32_t start = 0;
    std::int32_t limit = 0;
    AccountId account = 0;
    std::uint32_t clusterOrWhole = 0;  // compact: the cluster; otherwise: index into whole_
    std::uint32_t terms = 0;           // into terms_
    std::uint32_t gpus : 20 = 0;
    std::uint32_t side : 1 = 0;
    std::uint32_t fill : 1 = 0;
    std::uint32_t tif : 2 = 0;
    std::uint32_t stp : 1 = 0;
    std::uint32_t status : 2 = 0;
    std::uint32_t postOnly : 1 = 0;
    std::uint32_t compact : 1 = 0;
    std::uint16_t hours = 0;
  };
  static_assert(sizeof(Record) == 32);
  struct Whole {
    OrderRequest request;
    std::int64_t filled = 0;
  };
  static bool fitsCompact(const OrderRequest& r, std::int64_t filled);

  PagedVector<Record> records_;
  TermsTable terms_;
  std::vector<Whole> whole_;
  // Removed records and whole requests, reused by add() so that a market that forgets what
  // finishes keeps these tables the size of what finishes between two forgets.
  std::vector<Index> freeRecords_;
  std::vector<std::uint32_t> freeWhole_;
};

}  // namespace tessera
