#pragma once
// `tessera-backtest`: generate, import/export, run, sweep, merge (docs/backtest.md).
#include "backtest/BacktestResult.h"

#include <iosfwd>

namespace tessera::backtest {

int runBacktestCommand(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tessera::backtest
