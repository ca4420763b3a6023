#include "core/engine/BookQuote.h"

#include <algorithm>

namespace tessera {
namespace {

struct HourTake {
  GpuCount gpus = 0;
  Money cost = 0;
  Price worst = 0;
  bool inBook = true;
};

HourTake takeHour(const HourLevels& book, Side side, GpuCount gpus, Hour h, std::optional<Price> limit) {
  HourTake t;
  const std::vector<BookLevel>* levels = book(h);
  if (!levels) {
    t.inBook = false;
    return t;
  }
  for (const BookLevel& l : *levels) {
    if (t.gpus >= gpus) break;
    if (limit && (side == Side::Buy ? l.price > *limit : l.price < *limit)) break;
    const GpuCount take = std::min(l.gpus, gpus - t.gpus);
    t.gpus += take;
    t.cost += static_cast<Money>(take) * l.price;
    t.worst = l.price;
  }
  return t;
}

FillQuote quoteWindow(const std::vector<HourTake>& takes, std::size_t from, std::size_t count, GpuCount gpus,
                      bool buy) {
  FillQuote q;
  q.wantedGpuHours = static_cast<std::int64_t>(gpus) * static_cast<std::int64_t>(count);
  q.allOrNoneNow = count > 0;
  for (std::size_t i = from; i < from + count; ++i) {
    q.availableGpuHours += takes[i].gpus;
    q.total += takes[i].cost;
    if (takes[i].gpus > 0)
      q.worstPrice = q.worstPrice == 0
                         ? takes[i].worst
                         : (buy ? std::max(q.worstPrice, takes[i].worst) : std::min(q.worstPrice, takes[i].worst));
    q.complete = q.complete && takes[i].inBook;
    q.allOrNoneNow = q.allOrNoneNow && takes[i].gpus == gpus;
  }
  return q;
}

}  // namespace

FillQuote quoteFill(const HourLevels& levels, Side side, GpuCount gpus, Hour start, Hour end,
                    std::optional<Hour> duration, std::optional<Price> levelLimit) {
  FillQuote none;
  none.start = start;
  none.end = end;
  if (gpus <= 0 || end <= start) return none;
  std::vector<HourTake> takes;
  takes.reserve(static_cast<std::size_t>(end - start));
  for (Hour h = start; h < end; ++h) takes.push_back(takeHour(levels, side, gpus, h, levelLimit));

  const Hour span = end - start;
  const Hour len = duration ? std::clamp<Hour>(*duration, 1, span) : span;
  std::optional<FillQuote> best;
  for (Hour s = 0; s + len <= span; ++s) {
    FillQuote q =
        quoteWindow(takes, static_cast<std::size_t>(s), static_cast<std::size_t>(len), gpus, side == Side::Buy);
    q.start = start + s;
    q.end = start + s + len;
    auto better = [&](const FillQuote& a, const FillQuote& b) {
      if (a.allOrNoneNow != b.allOrNoneNow) return a.allOrNoneNow;
      if (a.availableGpuHours != b.availableGpuHours) return a.availableGpuHours > b.availableGpuHours;
      return side == Side::Buy ? a.total < b.total : a.total > b.total;
    };
    if (!best || better(q, *best)) best = q;
  }
  return best ? *best : none;
}

}  // namespace tessera
