#pragma once
// What an order would get from the book right now: cost, average price, and whether it could
// fill all-or-none. One implementation for the terminal's ticket (ui/session/FillQuote) and
// `tessera-cli quote`/`buy`/`sell`; it reads the levels of each delivery hour through a function,
// so it works on any copy of the book (BookMirror, the terminal's BookSnapshot).
#include "core/engine/Matcher.h"

#include <functional>
#include <optional>
#include <vector>

namespace tessera {

struct FillQuote {
  std::int64_t wantedGpuHours = 0;
  std::int64_t availableGpuHours = 0;  // what the book offers inside the window, up to `gpus`
  Money total = 0;                     // cost (buy) or proceeds (sell) of the available part
  Price worstPrice = 0;                // the least favourable level the quote reaches
  bool allOrNoneNow = false;           // every GPU of every hour is available now
  Hour start = 0;                      // the window quoted; for a flexible order the best one
  Hour end = 0;
  bool complete = true;  // false if the window leaves the hours the book copy holds

  std::optional<double> averagePrice() const {
    if (availableGpuHours == 0) return std::nullopt;
    return static_cast<double>(total) / static_cast<double>(availableGpuHours);
  }
};

// The levels of one delivery hour on the side an order takes (asks for a buy, bids for a
// sell), best first; nullptr when the book copy does not cover that hour.
using HourLevels = std::function<const std::vector<BookLevel>*(Hour)>;

// `side` is the side of the order being quoted: a buy takes asks, a sell hits bids.
// With `duration`, the cheapest (buy) or richest (sell) fully fillable sub-window is quoted,
// or if none fills, the one with the most GPU-hours available.
// With `levelLimit`, levels worse than it (dearer asks for a buy, cheaper bids for a sell) are
// not taken: what a divisible order with that limit can get.
[[nodiscard]] FillQuote quoteFill(const HourLevels& levels, Side side, GpuCount gpus, Hour start, Hour end,
                                  std::optional<Hour> duration = std::nullopt,
                                  std::optional<Price> levelLimit = std::nullopt);

}  // namespace tessera
