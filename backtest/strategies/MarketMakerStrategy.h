#pragma once
// A simple market maker on one cluster: every `requote_hours` it cancels its quotes and bids
// `gpus` GPUs for the `window_hours` starting `hours_ahead` from now, at the middle of the book
// minus half the spread, while its inventory stays under `max_inventory_gpus`; and offers
// every future block it holds at the middle plus half the spread (never below cost). Until
// the book has a middle (or a last trade) it waits, quoting on the first book update that gives one.
#include "backtest/Strategy.h"

#include <map>
#include <set>

namespace tessera::backtest {

struct MarketMakerParams {
  std::string cluster;
  GpuCount gpus = 8;
  Hour hoursAhead = 24;
  Hour windowHours = 4;
  double spread = 0.04;  // total, as a fraction of the middle
  GpuCount maxInventoryGpus = 64;
  Hour requoteHours = 1;
};

class MarketMakerStrategy final : public Strategy {
 public:
  explicit MarketMakerStrategy(MarketMakerParams p) : p_(std::move(p)) {}
  std::string name() const override { return "market-maker"; }
  void onStart(StrategyContext& ctx) override;
  void onClock(StrategyContext& ctx, Hour now) override;
  void onOwnFill(StrategyContext& ctx, const Fill& f) override;
  void onOrderEvent(StrategyContext& ctx, const Event& e) override;
  void onBookUpdate(StrategyContext& ctx, const BookChange& c) override;

 private:
  void requote(StrategyContext& ctx);
  std::optional<Price> middle(StrategyContext& ctx, Hour hour) const;

  MarketMakerParams p_;
  std::optional<ClusterId> cluster_;
  std::optional<Hour> quotedAt_;  // when quotes last went out (none yet: quote on the first book)
  std::set<OrderId> working_;
  std::map<Hour, GpuCount> position_;            // GPUs held per hour
  std::map<std::pair<Hour, Hour>, Price> cost_;  // bought windows and the highest price paid
};

}  // namespace tessera::backtest
