#pragma once
// Bounds on what an order may ask for. They keep every notional (price x GPUs x hours) inside
// int64 micro-dollars, so the book never needs floating point or overflow checks.
#include "core/domain/Types.h"

namespace tessera::limits {

inline constexpr Price kMaxPrice = 100 * kMicrosPerDollar;  // $100 per GPU-hour
inline constexpr GpuCount kMaxClusterGpus = 1'000'000;
inline constexpr Hour kMaxWindowHours = 5 * 366 * kHoursPerDay;  // five years of delivery
// Nothing is listed or bought beyond this many hours after the exchange clock, which also bounds
// the hours a book or a holding ever spans ahead of the clock.
inline constexpr Hour kMaxHorizonHours = kMaxWindowHours;
inline constexpr std::int64_t kMaxCostFactorPpm = 100'000'000;  // a GPU-hour worth at most 100x its price
inline constexpr Hour kMaxNoticeHours = 30 * kHoursPerDay;      // an interruptible cluster's notice: at most 30 days
static_assert(kMaxPrice * kMaxClusterGpus * kMaxWindowHours > 0, "notional fits in int64");

}  // namespace tessera::limits
