#pragma once
// What an order would get from the book right now: cost, average price, and whether it could
// fill all-or-none. Computed from a BookSnapshot, so it only sees the snapshot's levels.
#include "ui/session/SessionTypes.h"

#include <optional>

namespace tessera::ui {

struct FillQuote {
  std::int64_t wantedGpuHours = 0;
  std::int64_t availableGpuHours = 0;   // what the book offers inside the window, up to `gpus`
  Money total = 0;                      // cost (buy) or proceeds (sell) of the available part
  Price worstPrice = 0;                 // the least favourable level the quote reaches
  bool allOrNoneNow = false;            // every GPU of every hour is available now
  Hour start = 0;                       // the window quoted; for a flexible order the best one
  Hour end = 0;
  bool complete = true;                 // false if the window leaves the snapshot's hours

  std::optional<double> averagePrice() const {
    if (availableGpuHours == 0) return std::nullopt;
    return static_cast<double>(total) / static_cast<double>(availableGpuHours);
  }
};

// `side` is the side of the order being quoted: a buy takes asks, a sell hits bids.
// With `duration`, the cheapest (buy) or richest (sell) fully fillable sub-window is quoted,
// or if none fills, the one with the most GPU-hours available.
// With `levelLimit`, levels worse than it (dearer asks for a buy, cheaper bids for a sell) are
// not taken: what a divisible order with that limit can get.
FillQuote quoteFill(const BookSnapshot& book, Side side, GpuCount gpus, Hour start, Hour end,
                    std::optional<Hour> duration = std::nullopt, std::optional<Price> levelLimit = std::nullopt);

}  // namespace tessera::ui
