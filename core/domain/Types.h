#pragma once
// Basic units of the compute market. Everything in the book is an integer:
// time in whole UTC delivery hours, prices in micro-dollars per GPU-hour.
#include <cstdint>

namespace tessera {

using Hour = std::int64_t;   // hours since 1970-01-01T00:00Z; an hour h is the interval [h, h+1)
using Price = std::int64_t;  // micro-dollars per GPU-hour ($2.50/GPU-h == 2'500'000)
using Money = std::int64_t;  // micro-dollars
using GpuCount = std::int32_t;
using OrderId = std::uint64_t;
using ContractId = std::uint64_t;
using TradeId = std::uint64_t;
using ClusterId = std::uint32_t;
using AccountId = std::uint32_t;

inline constexpr Price kMicrosPerDollar = 1'000'000;
inline constexpr Hour kHoursPerDay = 24;

enum class Side : std::uint8_t { Buy, Sell };

constexpr Side opposite(Side s) { return s == Side::Buy ? Side::Sell : Side::Buy; }

}  // namespace tessera
