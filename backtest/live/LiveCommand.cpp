#include "backtest/live/LiveCommand.h"

#include "backtest/StrategyRegistry.h"
#include "backtest/live/LiveStrategyRunner.h"

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
  std::map<std::string, std::string> o;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k.rfind("--", 0) != 0) {
      err << "live: unexpected '" << k << "'\n";
      return 2;
    }
    o[k.substr(2)] = argv[i + 1];
  }
  if (!o.count("strategy") || !o.count("account")) {
    err << "usage: tessera-backtest live --strategy NAME [--params p.json] --account NAME [--key KEY]\n"
           "                             [--host 127.0.0.1] [--port 7400] [--seconds N (0: until Ctrl+C)]\n";
    return 2;
  }
  nlohmann::json params = nlohmann::json::object();
  if (o.count("params")) {
    std::ifstream f(o["params"]);
    params = nlohmann::json::parse(f, nullptr, false);
    if (!f || params.is_discarded()) {
      err << "live: cannot read JSON parameters from '" << o["params"] << "'\n";
      return 2;
    }
  }
  auto made = makeStrategy(o["strategy"], params);
  if (auto* e = std::get_if<std::string>(&made)) {
    err << "live: " << *e << '\n';
    return 2;
  }
  net::ClientOptions opts;
  opts.host = o.count("host") ? o["host"] : "127.0.0.1";
  int seconds = 0;
  try {
    if (o.count("port")) opts.port = static_cast<std::uint16_t>(std::stoi(o["port"]));
    if (o.count("seconds")) seconds = std::stoi(o["seconds"]);
  } catch (...) {
    err << "live: --port and --seconds want integers\n";
    return 2;
  }
  opts.account = o["account"];
  opts.key = o.count("key") ? o["key"] : o["account"];
  LiveStrategyRunner runner(*std::get<std::unique_ptr<Strategy>>(made), opts);
  std::signal(SIGINT, onSignal);
  std::signal(SIGTERM, onSignal);
  runner.start();
  out << "live: " << o["strategy"] << " as " << opts.account << " on " << opts.host << ":" << opts.port
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
  char line[256];
  std::snprintf(line, sizeof line,
                "live: %s; %lld orders (%lld rejected), %lld fills, bought %lld / sold %lld GPU-h, spent $%.2f, "
                "received $%.2f\n",
                started ? "ran" : "never got a book snapshot", static_cast<long long>(s.ordersPlaced),
                static_cast<long long>(s.ordersRejected), static_cast<long long>(s.fills),
                static_cast<long long>(s.boughtGpuHours), static_cast<long long>(s.soldGpuHours),
                static_cast<double>(s.spent) / 1e6, static_cast<double>(s.received) / 1e6);
  out << line;
  return started ? 0 : 1;
}

}  // namespace tessera::backtest
