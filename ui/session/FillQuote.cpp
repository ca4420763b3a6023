#include "ui/session/FillQuote.h"

namespace tessera::ui {

FillQuote quoteFill(const BookSnapshot& book, Side side, GpuCount gpus, Hour start, Hour end,
                    std::optional<Hour> duration, std::optional<Price> levelLimit) {
  const HourLevels levels = [&](Hour h) -> const std::vector<BookLevel>* {
    const BookCell* cell = book.cell(h);
    if (!cell) return nullptr;
    return side == Side::Buy ? &cell->asks : &cell->bids;
  };
  return tessera::quoteFill(levels, side, gpus, start, end, duration, levelLimit);
}

}  // namespace tessera::ui
