// Replay speed: inputs per second from a SQLite history through the matching engine with a
// no-op strategy, on one core. Also the parts on their own (SQLite read, engine from memory)
// and the cost of a trading strategy.
//   bench_replay [--days 7] [--activity 4] [--seed 1] [--history existing.db]
#include "BenchStats.h"
#include "SimulatedHistory.h"

#include "backtest/History.h"
#include "backtest/SimulatedMarket.h"
#include "backtest/StrategyRegistry.h"
#include "core/engine/Matcher.h"
#include "core/store/HistoryRecorder.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

using namespace tessera;
using namespace tessera::backtest;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

std::string makeHistory(int days, double activity, std::uint64_t seed) {
  const auto path =
      (std::filesystem::temp_directory_path() / ("tessera-bench-replay-" + std::to_string(seed) + "-" +
                                                 std::to_string(days) + "-" + std::to_string(activity) + ".db"))
          .string();
  std::filesystem::remove(path);
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  const auto written = bench::writeSimulatedHistory(path, days, activity, seed);
  if (auto* e = std::get_if<std::string>(&written)) std::fprintf(stderr, "%s\n", e->c_str());
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  int days = 7;
  double activity = 4;
  std::uint64_t seed = 1;
  std::string history;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--days"))
      days = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--activity"))
      activity = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--history"))
      history = argv[i + 1];
  }
  if (history.empty()) {
    const auto t = Clock::now();
    history = makeHistory(days, activity, seed);
    std::printf("generated %s (%d days, activity %.1f) in %.2f s\n", history.c_str(), days, activity, seconds(t));
  }
  auto opened = store::MarketHistoryStore::open(history, store::OpenMode::ReadOnly);
  if (auto* e = std::get_if<store::StoreError>(&opened)) {
    std::fprintf(stderr, "%s\n", e->message.c_str());
    return 1;
  }
  const auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);

  // Warm-up: one full read, so the page cache holds the file for every measured pass.
  std::int64_t n = 0;
  s.forEachInput({}, [&](const store::RecordedInput&) { return ++n, true; });
  std::printf("history: %lld inputs\n\n", static_cast<long long>(n));

  for (int pass = 0; pass < 3; ++pass) {
    auto t = Clock::now();
    std::int64_t rows = 0;
    s.forEachInput({}, [&](const store::RecordedInput&) { return ++rows, true; });
    const double read = seconds(t);

    auto loaded = loadHistory(history);
    const History& h = std::get<History>(loaded);
    t = Clock::now();
    auto engine = makeMatchingEngine();
    std::vector<Event> out;
    std::int64_t events = 0;
    for (const auto& in : h.inputs) {
      out.clear();
      engine->apply(in.event, out);
      events += static_cast<std::int64_t>(out.size());
    }
    const double engineOnly = seconds(t);

    auto noop = std::get<std::unique_ptr<Strategy>>(makeStrategy("noop", {}));
    ReplayConfig cfg;
    cfg.hashEvents = false;
    t = Clock::now();
    auto streamed = runBacktestFromStore(s, *noop, cfg);
    const double full = seconds(t);
    const auto& r = std::get<BacktestResult>(streamed);

    auto mm = std::get<std::unique_ptr<Strategy>>(
        makeStrategy("market-maker", {{"cluster", "harbor-us-west-h100-b"}, {"hours_ahead", 6}}));
    t = Clock::now();
    const auto withMm = runBacktest(h, *mm, cfg);
    const double mmSecs = seconds(t);

    std::printf("pass %d\n", pass + 1);
    std::printf("  SQLite read only                 %10.0f inputs/s\n", static_cast<double>(rows) / read);
    std::printf("  engine only, from memory         %10.0f inputs/s  (%lld engine events, %.0f events/s)\n",
                static_cast<double>(n) / engineOnly, static_cast<long long>(events),
                static_cast<double>(events) / engineOnly);
    std::printf("  SQLite -> engine -> noop replay  %10.0f inputs/s  (%.0f engine events/s)\n",
                static_cast<double>(r.inputs) / full, static_cast<double>(r.engineEvents) / full);
    std::printf("  memory -> engine -> market maker %10.0f inputs/s  (%lld strategy actions)\n",
                static_cast<double>(withMm.inputs) / mmSecs, static_cast<long long>(withMm.strategyActions));
  }
  return 0;
}
