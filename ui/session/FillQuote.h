#pragma once
// What an order would get from the book right now, from a BookSnapshot: the quote of
// core/engine/BookQuote (the one implementation, shared with tessera-cli), over the snapshot's
// levels, so it only sees the snapshot's hours.
#include "core/engine/BookQuote.h"
#include "ui/session/SessionTypes.h"

#include <optional>

namespace tessera::ui {

using FillQuote = tessera::FillQuote;

// `side` is the side of the order being quoted: a buy takes asks, a sell hits bids.
// With `duration`, the cheapest (buy) or richest (sell) fully fillable sub-window is quoted,
// or if none fills, the one with the most GPU-hours available.
// With `levelLimit`, levels worse than it (dearer asks for a buy, cheaper bids for a sell) are
// not taken: what a divisible order with that limit can get.
FillQuote quoteFill(const BookSnapshot& book, Side side, GpuCount gpus, Hour start, Hour end,
                    std::optional<Hour> duration = std::nullopt, std::optional<Price> levelLimit = std::nullopt);

}  // namespace tessera::ui
