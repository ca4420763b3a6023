// tessera-backtest: market histories, replay, strategies and sweeps (docs/backtest.md).
#include "backtest/BacktestCommand.h"

#include <iostream>
#include <string_view>

#include "backtest/live/LiveCommand.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::cout << "tessera-backtest " << TESSERA_VERSION << "\n";
    return 0;
  }
  if (argc >= 2 && std::string_view(argv[1]) == "live")
    return tessera::backtest::runLiveCommand(argc, argv, std::cout, std::cerr);
  return tessera::backtest::runBacktestCommand(argc, argv, std::cout, std::cerr);
}
