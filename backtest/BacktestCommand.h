#pragma once
// `tessera-backtest`: generate, import/export, run, sweep, merge (docs/backtest.md).
#include "backtest/BacktestResult.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace tessera::backtest {

// Renders the report charts as PNG files into `dir` and returns their file names (equity,
// price, drawdown), or an empty list and a message. Supplied by ui/backtest when linked.
using ChartRenderer = std::function<std::vector<std::string>(const BacktestResult&, const std::string& dir, std::string& error)>;

int runBacktestCommand(int argc, char** argv, std::ostream& out, std::ostream& err, const ChartRenderer& charts = {});

}  // namespace tessera::backtest
