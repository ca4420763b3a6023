#pragma once
// Built-in strategies by name, created from JSON parameters (docs/backtest.md lists them).
#include "backtest/Strategy.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace tessera::backtest {

struct StrategyInfo {
  std::string name;
  std::string summary;
  nlohmann::json exampleParams;
};

const std::vector<StrategyInfo>& builtInStrategies();

// A new strategy, or a message saying what is wrong with the name or the parameters.
std::variant<std::unique_ptr<Strategy>, std::string> makeStrategy(const std::string& name,
                                                                  const nlohmann::json& params);

}  // namespace tessera::backtest
