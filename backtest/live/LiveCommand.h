#pragma once
// `tessera-backtest live`: runs a built-in strategy against a running tessera-exchange.
#include <iosfwd>

namespace tessera::backtest {

int runLiveCommand(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tessera::backtest
