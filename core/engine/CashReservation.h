#pragma once
// The cash a bid holds back while it works: limit x GPUs x hours (for all-or-none, the limit
// bounds the average price, so this is the most it can cost). Sells and sell-backs hold none.
// The exchange's risk check and the backtest's replay both use it, so a strategy meets the same
// cash limit in either.
#include "core/domain/Order.h"
#include "core/engine/MarketLimits.h"

namespace tessera {

// 0 for an order outside the market's limits: the engine rejects it anyway.
[[nodiscard]] inline Money reservationFor(const OrderRequest& o) {
  if (o.side != Side::Buy || o.sellBack) return 0;
  const Hour hours = o.hours();
  if (o.limit <= 0 || o.limit > limits::kMaxPrice || o.gpus <= 0 || o.gpus > limits::kMaxClusterGpus || hours <= 0 ||
      hours > limits::kMaxWindowHours) {
    return 0;
  }
  return o.limit * o.gpus * hours;
}

}  // namespace tessera
