// Matching-engine benchmark: events per second and per-event latency percentiles, single core,
// flat out and open-loop at fixed arrival rates, after a warm-up.
//   (a) 1-D: one cluster, one-hour orders (a classic limit order book)
//   (b) 2-D: 20 clusters, 30 days of hours, orders of 1..168 hours, 60% add / 30% cancel / 10% crossing
// Each flat-out run is broken down by input kind, and each workload's output floor (the time just
// to materialise its output, OutputFloor.h) is printed beside it.
// Usage: engine_bench [--quick] [--only a|b] [--flat] [--floor] [--repeat N] [--passive-adds] [--digest]
//                     [--prefault-mb N]
//   --only runs one workload, --flat skips the open-loop runs (both for profiling), --floor
//   measures only the output floor, --repeat measures flat out N times (each on a fresh engine)
//   and prints the median: on a shared machine one run can be off by a fifth. --passive-adds
//   prices every add behind the opposite best of its window, so that adds rest (MarketLoad.h).
//   --digest also prints a hash of every event the workload produces (as JSON, untimed): an
//   optimisation must leave it unchanged. --prefault-mb sets the memory each timed engine faults
//   in, in huge pages, before its inputs (makeMatchingEngine; 0 for none; default 256, which
//   holds (b)'s book).
#include "InputKindReport.h"
#include "MarketLoad.h"
#include "OutputFloor.h"
#include "ThreadUsage.h"

#include "core/domain/Fnv1a.h"
#include "core/engine/EventJson.h"
#include "core/engine/Matcher.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace tessera;
using namespace tessera::bench;
using Clock = std::chrono::steady_clock;

namespace {

struct Result {
  double eventsPerSecond = 0;
  double p50 = 0, p99 = 0, p999 = 0, max = 0;  // microseconds
  std::size_t outputEvents = 0;
  long pageFaults = 0;                // minor faults while timed: each first touch of a fresh page
  double cpuSeconds = 0;              // this thread's user + system time while timed
  PerInput perInput;                  // flat out only: open-loop latencies include queueing, not just service
  double prefaultMs = 0;              // making the engine, its prefault included
  std::size_t prefaultHugeBytes = 0;  // of that prefault, what the kernel gave as huge pages
};

// The process's anonymous memory in transparent huge pages, from the kernel (0 where it does not
// say): whether a prefault got the huge pages it asked for.
std::size_t anonHugePageBytes() {
  std::FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (!f) return 0;
  char line[256];
  std::size_t kb = 0;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "AnonHugePages: %zu kB", &kb) == 1) break;
  std::fclose(f);
  return kb << 10;
}

double percentile(std::vector<double>& v, double q) {
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

// The newest contract id in `out`, or `last` if it made none. Contract ids only grow, so this
// is the last ContractCreated, which a crossing input emits near its end.
ContractId newestContract(const std::vector<Event>& out, ContractId last) {
  for (auto e = out.rbegin(); e != out.rend(); ++e)
    if (const auto* c = std::get_if<ContractCreated>(&*e)) return c->contract.id;
  return last;
}

// The timed inputs, one after another. Its own function so that a profiler can count it alone
// (`valgrind --tool=callgrind --toggle-collect='*timedReplay*'`), without the setup and warm-up.
// ratePerSecond == 0 means flat out; otherwise input i is due at start + i/rate and its latency
// counts from when it was due (open loop, so a stall delays every input queued behind it and
// shows in the percentiles). `lastContract`: the newest contract id before the first input.
[[gnu::noinline]] void timedReplay(Matcher& engine, const Load& load, std::size_t warmup, double ratePerSecond,
                                   ContractId lastContract, std::vector<Event>& out, std::vector<double>& latency,
                                   Result& r) {
  const std::size_t n = latency.size();
  const auto start = Clock::now();
  if (ratePerSecond <= 0) {
    // Flat out, each input starts when the one before it ends, so one clock read marks both:
    // a read costs 20-35 ns on this VM, and a second one per input would be 2-3% of (b)'s time,
    // counted as the engine's. What an input made is counted from the newest contract id, not
    // by testing every event (19 a (b) input on average, 181 a crossing).
    auto before = start;
    for (std::size_t i = 0; i < n; ++i) {
      out.clear();
      engine.apply(load.events[warmup + i], out);
      const auto done = Clock::now();
      latency[i] = std::chrono::duration<double, std::micro>(done - before).count();
      before = done;
      r.outputEvents += out.size();
      r.perInput.events[i] = static_cast<std::uint32_t>(out.size());
      const ContractId newest = newestContract(out, lastContract);
      r.perInput.contracts[i] = static_cast<std::uint32_t>(newest - lastContract);
      lastContract = newest;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const auto due =
          start + std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 * static_cast<double>(i) / ratePerSecond));
      while (Clock::now() < due) {
      }
      out.clear();
      engine.apply(load.events[warmup + i], out);
      latency[i] = std::chrono::duration<double, std::micro>(Clock::now() - due).count();
      r.outputEvents += out.size();
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.eventsPerSecond = static_cast<double>(n) / seconds;
}

// Replays setup + warm-up into a fresh engine, then times the rest (timedReplay).
Result measure(const Load& load, std::size_t warmup, double ratePerSecond, std::size_t prefaultBytes) {
  const std::size_t hugeBefore = anonHugePageBytes();
  const auto made = Clock::now();
  auto engine = makeMatchingEngine(prefaultBytes);
  const double prefaultMs = std::chrono::duration<double, std::milli>(Clock::now() - made).count();
  const std::size_t hugeAfter = anonHugePageBytes();  // less if the kernel split pages meanwhile
  const std::size_t prefaultHugeBytes = hugeAfter > hugeBefore ? hugeAfter - hugeBefore : 0;
  std::vector<Event> out;
  out.reserve(1024);
  ContractId lastContract = 0;
  for (const auto& e : load.setup) {
    engine->apply(e, out);
    lastContract = newestContract(out, lastContract);
  }
  for (std::size_t i = 0; i < warmup; ++i) {
    out.clear();
    engine->apply(load.events[i], out);
    lastContract = newestContract(out, lastContract);
  }
  const std::size_t n = load.events.size() - warmup;
  std::vector<double> latency(n);
  Result r;
  r.prefaultMs = prefaultMs;
  r.prefaultHugeBytes = prefaultHugeBytes;
  const bool flat = ratePerSecond <= 0;
  if (flat) {
    r.perInput.events.resize(n);
    r.perInput.contracts.resize(n);
  }
  const ThreadUsage before = ThreadUsage::now();
  timedReplay(*engine, load, warmup, ratePerSecond, lastContract, out, latency, r);
  const ThreadUsage after = ThreadUsage::now();
  r.pageFaults = after.faults - before.faults;
  r.cpuSeconds = after.cpuSeconds - before.cpuSeconds;
  if (flat) r.perInput.latencyUs = latency;
  r.max = *std::max_element(latency.begin(), latency.end());
  r.p50 = percentile(latency, 0.50);
  r.p99 = percentile(latency, 0.99);
  r.p999 = percentile(latency, 0.999);
  return r;
}

void report(const char* name, const char* mode, const Result& r, std::size_t n) {
  std::printf(
      "%-34s %-14s %12.0f ev/s  p50 %7.2f us  p99 %7.2f us  p99.9 %8.2f us  max %9.1f us  (%zu in, %zu out; "
      "%ld page faults, %.0f ev per cpu-s)\n",
      name, mode, r.eventsPerSecond, r.p50, r.p99, r.p999, r.max, n, r.outputEvents, r.pageFaults,
      static_cast<double>(n) / r.cpuSeconds);
}

// FNV-1a over the JSON of every event the load produces, setup included.
std::uint64_t outputDigest(const Load& load) {
  auto engine = makeMatchingEngine();
  const AccountDirectory accounts;
  std::vector<Event> out;
  Fnv1a h;
  auto apply = [&](const InputEvent& in) {
    out.clear();
    engine->apply(in, out);
    for (const Event& e : out) h.add(toJson(e, accounts).dump());
  };
  for (const auto& e : load.setup) apply(e);
  for (const auto& e : load.events) apply(e);
  return h.value();
}

struct Options {
  bool digest = false;
  bool quick = false;
  bool flatOnly = false;
  bool floorOnly = false;
  int repeat = 1;
  bool passiveAdds = false;
  std::size_t prefaultBytes = std::size_t{256} << 20;
};

void run(const char* name, const LoadShape& shape, std::size_t warmup, const Options& opt) {
  const auto t0 = Clock::now();
  const Load load = makeLoad(shape);
  std::printf("%s: generated %zu events in %.1f s\n", name, load.events.size(),
              std::chrono::duration<double>(Clock::now() - t0).count());
  const std::size_t n = load.events.size() - warmup;
  if (opt.digest) std::printf("%s: output digest %016llx\n", name, static_cast<unsigned long long>(outputDigest(load)));
  if (opt.floorOnly) {
    printOutputFloor(name, measureOutputFloor(load, warmup));
    return;
  }
  Result flat = measure(load, warmup, 0, opt.prefaultBytes);
  if (opt.prefaultBytes > 0)
    std::printf("%s: an engine prefaults %zu MB in %.0f ms, %zu MB of it in huge pages\n", name,
                opt.prefaultBytes >> 20, flat.prefaultMs, flat.prefaultHugeBytes >> 20);
  report(name, "flat out", flat, n);
  if (opt.repeat > 1) {
    std::vector<double> rates{flat.eventsPerSecond};
    for (int k = 1; k < opt.repeat; ++k) {
      flat = measure(load, warmup, 0, opt.prefaultBytes);
      report(name, "flat out", flat, n);
      rates.push_back(flat.eventsPerSecond);
    }
    std::sort(rates.begin(), rates.end());
    std::printf("%-34s flat out, median of %d: %.0f ev/s (min %.0f, max %.0f)\n", name, opt.repeat,
                rates[rates.size() / 2], rates.front(), rates.back());
  }
  printByKind(load, warmup, flat.perInput);
  if (opt.flatOnly) return;
  printOutputFloor(name, measureOutputFloor(load, warmup));
  for (double fraction : {0.25, 0.5, 0.8}) {
    const double rate = flat.eventsPerSecond * fraction;
    char mode[32];
    std::snprintf(mode, sizeof mode, "open %.0fk/s", rate / 1000);
    report(name, mode, measure(load, warmup, rate, opt.prefaultBytes), n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  char only = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quick") == 0)
      opt.quick = true;
    else if (std::strcmp(argv[i], "--flat") == 0)
      opt.flatOnly = true;
    else if (std::strcmp(argv[i], "--floor") == 0)
      opt.floorOnly = true;
    else if (std::strcmp(argv[i], "--passive-adds") == 0)
      opt.passiveAdds = true;
    else if (std::strcmp(argv[i], "--digest") == 0)
      opt.digest = true;
    else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc && std::atoi(argv[i + 1]) > 0)
      opt.repeat = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc)
      only = argv[++i][0];
    else if (std::strcmp(argv[i], "--prefault-mb") == 0 && i + 1 < argc && std::atoi(argv[i + 1]) >= 0)
      opt.prefaultBytes = static_cast<std::size_t>(std::atoi(argv[++i])) << 20;
    else {
      std::fprintf(
          stderr,
          "usage: engine_bench [--quick] [--only a|b] [--flat] [--floor] [--repeat N] [--passive-adds] [--digest] "
          "[--prefault-mb N]\n");
      return 2;
    }
  }
  LoadShape oneD;
  oneD.clusters = 1;
  oneD.horizon = 1;
  oneD.events = opt.quick ? 200'000 : 2'200'000;
  oneD.passiveAdds = opt.passiveAdds;
  if (only != 'b')
    run(opt.passiveAdds ? "(a) 1-D, passive adds" : "(a) 1-D, 1 cluster, 1-hour orders", oneD,
        opt.quick ? 50'000 : 200'000, opt);

  LoadShape twoD;
  twoD.clusters = 20;
  twoD.horizon = 30 * 24;
  twoD.minHours = 1;
  twoD.maxHours = 168;
  twoD.events = opt.quick ? 60'000 : 600'000;
  twoD.allOrNonePercentOfCrossing = 20;
  twoD.passiveAdds = opt.passiveAdds;
  if (only != 'a')
    run(opt.passiveAdds ? "(b) 2-D, passive adds" : "(b) 2-D, 20 clusters x 720 h", twoD, opt.quick ? 10'000 : 100'000,
        opt);
  return 0;
}
