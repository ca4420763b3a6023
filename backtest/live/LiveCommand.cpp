#include "backtest/live/LiveCommand.h"

#include "backtest/StrategyLibrary.h"
#include "backtest/StrategyRegistry.h"
#include "backtest/live/LiveStrategyRunner.h"
#include "core/cli/Checks.h"
#include "core/domain/JsonFile.h"
#include "core/cli/Parse.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <ostream>
#include <string>
#include <thread>

namespace tessera::backtest {
namespace {

std::atomic<bool> interrupted{false};
extern "C" void onSignal(int) { interrupted = true; }

}  // namespace

int runLiveCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  std::string strategy, strategyLib, paramsFile, account, key, host = "127.0.0.1";
  int port = 7400, seconds = 0;
  CLI::App app("the same strategy against a running tessera-exchange", "tessera-backtest live");
  app.add_option("--strategy", strategy, "a built-in strategy (`tessera-backtest strategies`)")->required();
  app.add_option("--strategy-lib", strategyLib, "a shared library of strategies to load first")
      ->check(CLI::ExistingFile);
  app.add_option("--params", paramsFile, "its parameters, a JSON file")->check(CLI::ExistingFile);
  app.add_option("--account", account, "the account to trade as")->required();
  app.add_option("--key", key, "its API key (default: the account name)");
  app.add_option("--host", host, "the exchange's address (default 127.0.0.1)");
  app.add_option("--port", port, "its port (default 7400)")->check(CLI::Range(1, 65535));
  app.add_option("--seconds", seconds, "how long to run (default 0: until Ctrl+C)")
      ->check(cli::WholeNumber & cli::NonNegative);
  // argv[1], "live", stands for the program's name
  if (auto code = cli::parseOrExit(app, argc - 1, argv + 1, out, err)) return *code;
  nlohmann::json params = nlohmann::json::object();
  if (!paramsFile.empty()) {
    auto read = readJsonFile(paramsFile);
    if (auto* e = std::get_if<JsonFileError>(&read)) {
      err << "live: --params: " << e->message << '\n';
      return 2;
    }
    params = std::move(std::get<nlohmann::json>(read));
  }
  if (!strategyLib.empty()) {
    auto loaded = loadStrategyLibrary(strategyLib);
    if (auto* e = std::get_if<std::string>(&loaded)) {
      err << "live: " << *e << '\n';
      return 2;
    }
  }
  auto made = makeStrategy(strategy, params);
  if (auto* e = std::get_if<std::string>(&made)) {
    err << "live: " << *e << '\n';
    return 2;
  }
  net::ClientOptions opts;
  opts.host = host;
  opts.port = static_cast<std::uint16_t>(port);
  opts.account = account;
  opts.key = key.empty() ? account : key;
  LiveStrategyRunner runner(*std::get<std::unique_ptr<Strategy>>(made), opts);
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  runner.start();
  out << "live: " << strategy << " as " << opts.account << " on " << opts.host << ":" << opts.port
      << (seconds > 0 ? " for " + std::to_string(seconds) + " s" : std::string(" until Ctrl+C")) << std::endl;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!interrupted && (seconds <= 0 || std::chrono::steady_clock::now() < until)) {
    if (runner.connection() == net::ConnectionState::AuthFailed) {
      err << "live: the exchange refused the credentials of '" << opts.account << "'\n";
      runner.stop();
      return 1;
    }
    if (const auto why = runner.setupError()) {
      err << "live: " << *why << '\n';
      runner.stop();
      return 2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const bool started = runner.strategyStarted();
  runner.stop();
  const LiveSummary s = runner.summary();
  out << "live: " << (started ? "ran" : "never got a book snapshot") << "; " << withThousands(s.ordersPlaced)
      << " orders (" << withThousands(s.ordersRejected) << " rejected), " << withThousands(s.fills) << " fills, bought "
      << withThousands(s.boughtGpuHours) << " / sold " << withThousands(s.soldGpuHours) << " GPU-h, spent "
      << toDollars(s.spent) << ", received " << toDollars(s.received) << "\n";
  for (const std::string& note : std::get<std::unique_ptr<Strategy>>(made)->reportLines())
    out << "live: " << note << "\n";
  return started ? 0 : 1;
}

}  // namespace tessera::backtest
