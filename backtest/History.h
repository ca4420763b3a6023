#pragma once
// A market history loaded into memory, so one load serves many runs (sweeps run one replay
// per grid point in parallel over the same read-only inputs).
#include "core/domain/AccountDirectory.h"
#include "core/store/MarketHistoryStore.h"

#include "backtest/BacktestResult.h"
#include "backtest/Replay.h"

#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::backtest {

struct History {
  AccountDirectory accounts;
  std::vector<store::RecordedInput> inputs;
};

std::variant<History, store::StoreError> loadHistory(const std::string& path, const store::HistoryQuery& q = {});

// Progress is reported as a fraction in [0, 1], about a hundred times per run.
using ProgressFn = std::function<void(double)>;

BacktestResult runBacktest(const History& history, Strategy& strategy, const ReplayConfig& config,
                           const ProgressFn& progress = {});

// Streams a history straight from SQLite through the replay, without loading it first.
std::variant<BacktestResult, store::StoreError> runBacktestFromStore(const store::MarketHistoryStore& store,
                                                                     Strategy& strategy, const ReplayConfig& config,
                                                                     const ProgressFn& progress = {});

}  // namespace tessera::backtest
