// Peak memory of a replay: a history loaded whole (loadHistory + runBacktest) against the same
// history streamed from SQLite in chunks (runBacktestFromStore, what `tessera-backtest run`
// does). Each mode runs in a process of its own, so the peak resident set it prints
// (getrusage ru_maxrss) is that mode's alone.
//   bench_replay_memory --generate year.db [--days 365] [--activity 10] [--seed 1]
//   bench_replay_memory --history year.db --mode whole|stream [--chunk 65536] [--strategy noop]
#include "SimulatedHistory.h"

#include "backtest/History.h"
#include "backtest/StrategyRegistry.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

using namespace tessera;
using namespace tessera::backtest;
using Clock = std::chrono::steady_clock;

namespace {

double peakRssMb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

int generate(const std::string& path, int days, double activity, std::uint64_t seed) {
  if (std::filesystem::exists(path)) {
    std::fprintf(stderr, "'%s' exists\n", path.c_str());
    return 1;
  }
  const auto t0 = Clock::now();
  const auto written = bench::writeSimulatedHistory(path, days, activity, seed);
  if (auto* e = std::get_if<std::string>(&written)) {
    std::fprintf(stderr, "%s\n", e->c_str());
    return 1;
  }
  std::printf("generated %lld inputs (%d days, activity %.1f) in %.1f s: %.0f MB on disk\n",
              static_cast<long long>(std::get<std::int64_t>(written)), days, activity,
              std::chrono::duration<double>(Clock::now() - t0).count(),
              static_cast<double>(std::filesystem::file_size(path)) / 1e6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string out, history, mode, strategyName = "noop";
  int days = 365;
  double activity = 10;
  std::uint64_t seed = 1;
  std::int64_t chunk = kDefaultChunkInputs;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--generate"))
      out = argv[i + 1];
    else if (!std::strcmp(argv[i], "--days"))
      days = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--activity"))
      activity = std::atof(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--history"))
      history = argv[i + 1];
    else if (!std::strcmp(argv[i], "--mode"))
      mode = argv[i + 1];
    else if (!std::strcmp(argv[i], "--chunk"))
      chunk = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--strategy"))
      strategyName = argv[i + 1];
  }
  if (!out.empty()) return generate(out, days, activity, seed);
  if (history.empty() || (mode != "whole" && mode != "stream")) {
    std::fprintf(
        stderr,
        "usage: bench_replay_memory --generate year.db [--days 365] [--activity 10] [--seed 1]\n"
        "       bench_replay_memory --history year.db --mode whole|stream [--chunk 65536] [--strategy noop]\n");
    return 2;
  }
  auto made = makeStrategy(strategyName, nlohmann::json::object());
  if (auto* e = std::get_if<std::string>(&made)) {
    std::fprintf(stderr, "%s\n", e->c_str());
    return 2;
  }
  Strategy& strategy = *std::get<std::unique_ptr<Strategy>>(made);
  const double before = peakRssMb();
  const auto t0 = Clock::now();
  BacktestResult r;
  if (mode == "whole") {
    auto loaded = loadHistory(history);
    if (auto* e = std::get_if<store::StoreError>(&loaded)) {
      std::fprintf(stderr, "%s\n", e->message.c_str());
      return 1;
    }
    r = runBacktest(std::get<History>(loaded), strategy, ReplayConfig{});
  } else {
    auto opened = store::MarketHistoryStore::open(history, store::OpenMode::ReadOnly);
    if (auto* e = std::get_if<store::StoreError>(&opened)) {
      std::fprintf(stderr, "%s\n", e->message.c_str());
      return 1;
    }
    auto streamed = runBacktestFromStore(*std::get<std::unique_ptr<store::MarketHistoryStore>>(opened), strategy,
                                         ReplayConfig{}, {}, chunk);
    if (auto* e = std::get_if<store::StoreError>(&streamed)) {
      std::fprintf(stderr, "%s\n", e->message.c_str());
      return 1;
    }
    r = std::move(std::get<BacktestResult>(streamed));
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("%s%s: %lld inputs in %.1f s (%.0f inputs/s), output hash %016llx, peak RSS %.0f MB (%.0f MB at start)\n",
              mode.c_str(), mode == "stream" ? (" chunk " + std::to_string(chunk)).c_str() : "",
              static_cast<long long>(r.inputs), secs, static_cast<double>(r.inputs) / secs,
              static_cast<unsigned long long>(r.outputHash), peakRssMb(), before);
  return 0;
}
