#include "ui/session/SimulatedMarketFeed.h"

namespace tessera::ui {

SimulatedMarketFeed::SimulatedMarketFeed(const backtest::SimulatedMarketConfig& config, AccountDirectory& accounts)
    : market_(config, accounts) {}

std::vector<InputEvent> SimulatedMarketFeed::step() { return market_.step(); }

std::string SimulatedMarketFeed::describe() const {
  return "simulated market, " + std::to_string(market_.clusters().size()) + " clusters, seed " +
         std::to_string(market_.config().seed);
}

MarketFeedFactory SimulatedMarketFeed::factory(backtest::SimulatedMarketConfig config) {
  return [config](AccountDirectory& accounts) -> std::unique_ptr<MarketFeed> {
    return std::make_unique<SimulatedMarketFeed>(config, accounts);
  };
}

}  // namespace tessera::ui
