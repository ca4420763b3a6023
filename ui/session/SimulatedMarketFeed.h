#pragma once
// The demo market: backtest's SimulatedMarket (providers listing, buyers bidding) as a feed.
#include "ui/session/MarketFeed.h"

#include "backtest/SimulatedMarket.h"

namespace tessera::ui {

class SimulatedMarketFeed : public MarketFeed {
 public:
  SimulatedMarketFeed(const backtest::SimulatedMarketConfig& config, AccountDirectory& accounts);
  std::vector<InputEvent> step() override;
  std::string describe() const override;

  static MarketFeedFactory factory(backtest::SimulatedMarketConfig config);

 private:
  backtest::SimulatedMarket market_;
};

}  // namespace tessera::ui
