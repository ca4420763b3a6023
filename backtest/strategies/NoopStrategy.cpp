#include "backtest/strategies/NoopStrategy.h"

#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"

namespace tessera::backtest {
namespace {

MadeStrategy makeNoopStrategy(const nlohmann::json& j) {
  StrategyParams p(j, {});
  if (!p.ok()) return p.errors();
  return std::make_unique<NoopStrategy>();
}

}  // namespace

TESSERA_REGISTER_STRATEGY("noop", "does nothing: the baseline, and the benchmark of the replay itself", "{}",
                          makeNoopStrategy);

}  // namespace tessera::backtest
