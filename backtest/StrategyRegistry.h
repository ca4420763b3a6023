#pragma once
// Strategies by name, created from JSON parameters (docs/backtest.md lists the built-in ones).
// A strategy registers itself in its own .cpp file with TESSERA_REGISTER_STRATEGY, so adding
// one (in backtest/strategies/ or in a shared library loaded with `--strategy-lib`) edits no
// central list. Registration happens while a program starts or loads a strategy library,
// before any run: the registry is read without a lock while sweeps run in parallel.
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

// A new strategy, or a message saying what is wrong with the parameters.
using MadeStrategy = std::variant<std::unique_ptr<Strategy>, std::string>;
using StrategyMaker = MadeStrategy (*)(const nlohmann::json& params);

// Every registered strategy, ordered by name.
const std::vector<StrategyInfo>& builtInStrategies();

// A new strategy, or a message saying what is wrong with the name or the parameters.
MadeStrategy makeStrategy(const std::string& name, const nlohmann::json& params);

// Adds a strategy; `exampleJson` is its example parameters as JSON text. False (and the reason
// in registrationErrors()) for a name already taken or example parameters that are not JSON.
bool registerStrategy(const char* name, const char* summary, const char* exampleJson, StrategyMaker make);
// Why registrations were refused, in the order they were tried.
const std::vector<std::string>& registrationErrors();

}  // namespace tessera::backtest

#define TESSERA_STRATEGY_CONCAT_INNER(a, b) a##b
#define TESSERA_STRATEGY_CONCAT(a, b) TESSERA_STRATEGY_CONCAT_INNER(a, b)

// Registers MAKER (a function `MadeStrategy MAKER(const nlohmann::json&)`) under NAME, with a
// one-line SUMMARY and EXAMPLE parameters as JSON text. Use it once per strategy at namespace
// scope in the strategy's .cpp file:
//   TESSERA_REGISTER_STRATEGY("my-strategy", "what it does", R"({"gpus": 8})", makeMyStrategy);
#define TESSERA_REGISTER_STRATEGY(NAME, SUMMARY, EXAMPLE, MAKER)                                     \
  [[maybe_unused]] static const bool TESSERA_STRATEGY_CONCAT(tesseraStrategyRegistered_, __LINE__) = \
      ::tessera::backtest::registerStrategy(NAME, SUMMARY, EXAMPLE, MAKER)
