#include "ui/grid/OrderBookGridModel.h"

#include <algorithm>

namespace tessera::ui {
namespace {

std::vector<GridSegment> stack(const std::vector<BookLevel>& levels) {
  std::vector<GridSegment> out;
  out.reserve(levels.size());
  GpuCount at = 0;
  for (const BookLevel& l : levels) {
    if (l.gpus <= 0) continue;
    out.push_back(GridSegment{at, at + l.gpus, l.price, l.orders});
    at += l.gpus;
  }
  return out;
}

}  // namespace

void OrderBookGridModel::setSnapshot(BookSnapshotPtr snapshot) {
  snapshot_ = std::move(snapshot);
  columns_.clear();
  maxAsk_ = maxBid_ = 0;
  minPrice_.reset();
  maxPrice_.reset();
  byPrice_.clear();
  if (!snapshot_) return;
  columns_.reserve(snapshot_->cells.size());
  for (const BookCell& cell : snapshot_->cells) {
    GridColumn c{stack(cell.asks), stack(cell.bids)};
    maxAsk_ = std::max(maxAsk_, c.askDepth());
    maxBid_ = std::max(maxBid_, c.bidDepth());
    for (const std::vector<GridSegment>* side : {&c.asks, &c.bids}) {
      for (const GridSegment& s : *side) {
        if (!minPrice_ || s.price < *minPrice_) minPrice_ = s.price;
        if (!maxPrice_ || s.price > *maxPrice_) maxPrice_ = s.price;
        byPrice_.emplace_back(s.price, s.to - s.from);
      }
    }
    columns_.push_back(std::move(c));
  }
  std::sort(byPrice_.begin(), byPrice_.end());
}

std::optional<Price> OrderBookGridModel::pricePercentile(double share) const {
  if (byPrice_.empty()) return std::nullopt;
  double total = 0;
  for (const auto& [price, weight] : byPrice_) total += weight;
  const double want = std::clamp(share, 0.0, 1.0) * total;
  double seen = 0;
  for (const auto& [price, weight] : byPrice_) {
    seen += weight;
    if (seen >= want) return price;
  }
  return byPrice_.back().first;
}

const GridColumn* OrderBookGridModel::column(Hour h) const {
  const Hour i = h - firstHour();
  if (!snapshot_ || i < 0 || i >= static_cast<Hour>(columns_.size())) return nullptr;
  return &columns_[static_cast<std::size_t>(i)];
}

std::optional<GridHit> OrderBookGridModel::hit(Hour h, double gpu) const {
  const GridColumn* c = column(h);
  if (!c || gpu == 0) return std::nullopt;
  const bool ask = gpu > 0;
  const double g = ask ? gpu : -gpu;
  for (const GridSegment& s : ask ? c->asks : c->bids) {
    if (g >= s.from && g < s.to) return GridHit{h, ask ? Side::Sell : Side::Buy, s};
  }
  return std::nullopt;
}

}  // namespace tessera::ui
