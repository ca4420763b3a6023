// The cost of recording: the matching engine's throughput on simulated market input with no
// recording, recording the inputs, and recording inputs plus the market data (as the
// exchange server and the terminal do), flat out and open-loop at fixed input rates.
//   bench_recording [--days 3] [--activity 4]
#include "BenchStats.h"

#include "backtest/SimulatedMarket.h"
#include "core/engine/Matcher.h"
#include "core/store/HistoryRecorder.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

using namespace tessera;
using namespace tessera::backtest;
using Clock = std::chrono::steady_clock;

namespace {

enum class Mode { None, Inputs, InputsAndMarketData };
const char* name(Mode m) {
  return m == Mode::None ? "no recording" : m == Mode::Inputs ? "recording inputs" : "recording inputs + market data";
}

struct Outcome {
  double inputsPerSecond = 0;
  bench::Percentiles latency;
};

// rate 0: flat out, latency = time to apply (and record) one input.
// rate > 0: open loop, input i is due at start + i / rate; latency = completion - due time.
Outcome run(const std::vector<TimedInput>& inputs, const AccountDirectory& accounts, Mode mode, double rate) {
  const auto path = (std::filesystem::temp_directory_path() / "tessera-bench-recording.db").string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadWrite);
  auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
  store::HistoryRecorder rec(s, accounts, 4096);
  auto engine = makeMatchingEngine();
  std::vector<Event> out;
  std::vector<std::int64_t> ns;
  ns.reserve(inputs.size());
  const auto start = Clock::now();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Clock::time_point due = Clock::now();
    if (rate > 0) {
      due = start + std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(i) * 1e9 / rate));
      while (Clock::now() < due) {
      }
    }
    out.clear();
    engine->apply(inputs[i].event, out);
    if (mode == Mode::Inputs)
      rec.recordInput(inputs[i].timeMicros, inputs[i].event);
    else if (mode == Mode::InputsAndMarketData)
      rec.record(inputs[i].timeMicros, inputs[i].event, out);
    ns.push_back(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - due).count());
  }
  rec.flush();
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  return {static_cast<double>(inputs.size()) / secs, bench::percentiles(std::move(ns))};
}

}  // namespace

int main(int argc, char** argv) {
  int days = 3;
  double activity = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--days"))
      days = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--activity"))
      activity = std::atof(argv[i + 1]);
  }
  AccountDirectory accounts;
  SimulatedMarketConfig cfg;
  cfg.activity = activity;
  SimulatedMarket market(cfg, accounts);
  std::vector<TimedInput> inputs;
  for (int i = 0; i < 1 + days * 24; ++i)
    for (auto& t : market.stepTimed()) inputs.push_back(std::move(t));
  std::printf("%zu simulated inputs (%d days, activity %.1f)\n", inputs.size(), days, activity);

  run(inputs, accounts, Mode::None, 0);  // warm-up
  std::printf("\nflat out\n");
  for (Mode m : {Mode::None, Mode::Inputs, Mode::InputsAndMarketData}) {
    const auto o = run(inputs, accounts, m, 0);
    std::printf("  %-32s %10.0f inputs/s\n", name(m), o.inputsPerSecond);
    bench::printPercentiles("    per input", o.latency);
  }
  for (double rate : {10'000.0, 50'000.0}) {
    std::printf("\nopen loop at %.0f inputs/s\n", rate);
    for (Mode m : {Mode::None, Mode::Inputs, Mode::InputsAndMarketData}) {
      const auto o = run(inputs, accounts, m, rate);
      bench::printPercentiles(name(m), o.latency);
    }
  }
  return 0;
}
