#pragma once
// Orders that no longer work (filled, cancelled, expired), kept so they can still be looked up.
// The fast engine moves an order here once it stops working and reuses its slot, so its working
// orders stay in a pool the size of the live book instead of one that grows by a large record
// for every order ever accepted. A record here is 64 bytes instead of a working order's 448:
// an order with only the common fields (one cluster, a fixed window, no expiry, no sell-back,
// no constraints or cost factors) is kept field by field, with its terms interned; any other
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
  OrderView at(Index i) const;
  std::size_t size() const { return records_.size(); }

 private:
  struct Record {
    OrderId id = 0;
    Price limit = 0;
    Hour start = 0;
    std::int64_t filled = 0;  // a finished order has nothing left working
    AccountId account = 0;
    ClusterId cluster = 0;
    GpuCount gpus = 0;
    std::uint32_t hours = 0;
    std::uint32_t termsOrWhole = 0;  // compact: index into terms_; otherwise: into whole_
    Side side = Side::Buy;
    FillStyle fill = FillStyle::Divisible;
    TimeInForce tif = TimeInForce::GTC;
    SelfTradePrevention stp = SelfTradePrevention::CancelIncoming;
    OrderStatus status = OrderStatus::Filled;
    bool postOnly = false;
    bool compact = true;
  };
  static_assert(sizeof(Record) <= 64);
  static bool fitsCompact(const OrderRequest& r);

  PagedVector<Record> records_;
  TermsTable terms_;
  std::vector<OrderRequest> whole_;
};

}  // namespace tessera
