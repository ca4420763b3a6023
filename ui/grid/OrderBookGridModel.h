#pragma once
// The grid's data: for each delivery hour, the ask ladder stacked upward from the cheapest GPU
// and the bid ladder stacked downward from the dearest, built from a BookSnapshot.
#include "ui/session/SessionTypes.h"

#include <optional>

namespace tessera::ui {

// GPUs [from, to) of one column's ladder, all at one price.
struct GridSegment {
  GpuCount from = 0;
  GpuCount to = 0;
  Price price = 0;
  int orders = 0;
};

struct GridColumn {
  std::vector<GridSegment> asks;  // cheapest first, from 0 upward
  std::vector<GridSegment> bids;  // dearest first, from 0 downward
  GpuCount askDepth() const { return asks.empty() ? 0 : asks.back().to; }
  GpuCount bidDepth() const { return bids.empty() ? 0 : bids.back().to; }
};

struct GridHit {
  Hour hour = 0;
  Side side = Side::Sell;  // Sell: an ask level, Buy: a bid level
  GridSegment segment;
};

class OrderBookGridModel {
 public:
  void setSnapshot(BookSnapshotPtr snapshot);
  BookSnapshotPtr snapshot() const { return snapshot_; }

  Hour firstHour() const { return snapshot_ ? snapshot_->firstHour : 0; }
  int hours() const { return static_cast<int>(columns_.size()); }
  const GridColumn* column(Hour h) const;
  GpuCount maxAskDepth() const { return maxAsk_; }
  GpuCount maxBidDepth() const { return maxBid_; }
  std::optional<Price> minPrice() const { return minPrice_; }
  std::optional<Price> maxPrice() const { return maxPrice_; }
  // The price below which `share` (0..1) of the book's GPU-hours lie, asks and bids together:
  // the colour scale spans the 5th to the 95th percentile, so one order far from the market (an
  // own order, an outlier) does not stretch it and leave every other cell one colour.
  std::optional<Price> pricePercentile(double share) const;

  // The level under (hour, gpu): gpu > 0 looks at the asks, gpu < 0 at the bids.
  std::optional<GridHit> hit(Hour h, double gpu) const;

 private:
  BookSnapshotPtr snapshot_;
  std::vector<GridColumn> columns_;
  GpuCount maxAsk_ = 0;
  GpuCount maxBid_ = 0;
  std::optional<Price> minPrice_;
  std::optional<Price> maxPrice_;
  std::vector<std::pair<Price, double>> byPrice_;  // (price, GPU-hours), sorted by price
};

}  // namespace tessera::ui
