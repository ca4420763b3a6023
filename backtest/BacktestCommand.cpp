#include "backtest/BacktestCommand.h"

#include "backtest/History.h"
#include "backtest/ReportWriter.h"
#include "backtest/SimulatedMarket.h"
#include "backtest/StrategyRegistry.h"
#include "backtest/Sweep.h"
#include "core/engine/Matcher.h"
#include "core/store/HistoryFiles.h"
#include "core/store/HistoryRecorder.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

namespace tessera::backtest {
namespace {

constexpr const char* kUsage = R"(usage: tessera-backtest <command> [options]

  generate --out h.db [--days 7] [--seed 1] [--activity 1.0] [--clusters 18]
           [--ticks-per-hour 1] [--inputs-only]
      write a simulated market history (inputs and the engine's market data)
  info     --history h.db
  import   --history h.db --from file.jsonl|file.csv
  export   --history h.db --to file.jsonl|file.csv [--events] [--cluster ID]
           [--from-hour H] [--to-hour H] [--plain]
      --plain: JSON lines without seq/time_us, as `tessera-cli match` reads them
  run      --history h.db --strategy NAME [--params p.json | --params-json '{...}']
           --report out/ [--latency-us 0] [--quiet]
      replay the history with one strategy; writes summary.json, fills.csv,
      contracts.csv, series.csv and report.html (+ PNG charts) into out/
  sweep    --history h.db --strategy NAME --grid g.json --out shard.jsonl
           [--shard i/N] [--jobs 0] [--latency-us 0] [--quiet]
      g.json: {"base": {...}, "grid": {"param": [v1, v2, ...], ...}}
  merge    --out merged shard1.jsonl shard2.jsonl ...
      checks the shards form one complete sweep; writes merged.json and merged.csv
  strategies
      list the built-in strategies with example parameters
  live     --strategy NAME [--params p.json] --account NAME [--key KEY]
           [--host 127.0.0.1] [--port 7400] [--seconds N]
      the same strategy against a running tessera-exchange (builds with core/net)
)";

struct Args {
  std::map<std::string, std::string> opts;
  std::vector<std::string> positional;
  std::string error;

  Args(int argc, char** argv, int from, const std::vector<std::string>& flags) {
    for (int i = from; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) == 0) {
        const std::string key = a.substr(2);
        if (std::find(flags.begin(), flags.end(), key) != flags.end()) {
          opts[key] = "1";
        } else if (i + 1 < argc) {
          opts[key] = argv[++i];
        } else {
          error = "option " + a + " needs a value";
        }
      } else {
        positional.push_back(a);
      }
    }
  }
  bool has(const std::string& k) const { return opts.count(k) > 0; }
  std::string get(const std::string& k, const std::string& d = "") const {
    auto it = opts.find(k);
    return it == opts.end() ? d : it->second;
  }
  std::optional<std::int64_t> integer(const std::string& k, std::ostream& err) const {
    if (!has(k)) return std::nullopt;
    try {
      std::size_t pos = 0;
      const auto v = std::stoll(get(k), &pos);
      if (pos == get(k).size()) return v;
    } catch (...) {
    }
    err << "--" << k << " wants an integer, got '" << get(k) << "'\n";
    throw std::invalid_argument(k);
  }
  double number(const std::string& k, double d, std::ostream& err) const {
    if (!has(k)) return d;
    try {
      std::size_t pos = 0;
      const auto v = std::stod(get(k), &pos);
      if (pos == get(k).size()) return v;
    } catch (...) {
    }
    err << "--" << k << " wants a number, got '" << get(k) << "'\n";
    throw std::invalid_argument(k);
  }
};

// A one-line progress bar on the terminal, redrawn at most a few times per second.
class ProgressBar {
 public:
  ProgressBar(std::ostream& err, std::string label, bool enabled) : err_(err), label_(std::move(label)), on_(enabled) {}
  void operator()(double f) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    if (f < 1.0 && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 40, full = static_cast<int>(f * width);
    err_ << '\r' << label_ << " [" << std::string(static_cast<std::size_t>(full), '#')
         << std::string(static_cast<std::size_t>(width - full), '.') << "] " << static_cast<int>(f * 100) << "% "
         << std::flush;
    if (f >= 1.0) err_ << '\n';
  }

 private:
  std::ostream& err_;
  std::string label_;
  bool on_;
  std::chrono::steady_clock::time_point last_{};
};

// The exit code for a history that cannot be used (docs/backtest.md, "Exit codes").
int exitCodeOf(const store::StoreError& e) {
  switch (e.kind) {
    case store::StoreErrorKind::NotHistory:
    case store::StoreErrorKind::Corrupt:
    case store::StoreErrorKind::Version: return 4;
    case store::StoreErrorKind::Empty: return 5;
    case store::StoreErrorKind::Io:
    case store::StoreErrorKind::NotFound: return 1;
  }
  return 1;
}

// Opens the history, or says why not and sets `code` to the exit code.
std::unique_ptr<store::MarketHistoryStore> openStore(const std::string& path, store::OpenMode mode, std::ostream& err,
                                                     int& code) {
  if (path.empty()) {
    err << "missing --history FILE\n";
    code = 2;
    return nullptr;
  }
  auto r = store::MarketHistoryStore::open(path, mode);
  if (auto* e = std::get_if<store::StoreError>(&r)) {
    err << e->message << '\n';
    code = exitCodeOf(*e);
    return nullptr;
  }
  return std::move(std::get<std::unique_ptr<store::MarketHistoryStore>>(r));
}

std::optional<nlohmann::json> readJsonFile(const std::string& path, std::ostream& err) {
  std::ifstream in(path);
  if (!in) {
    err << "cannot read '" << path << "'\n";
    return std::nullopt;
  }
  auto j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) {
    err << "'" << path << "' is not valid JSON\n";
    return std::nullopt;
  }
  return j;
}

int generate(const Args& a, std::ostream& out, std::ostream& err) {
  const std::string path = a.get("out");
  if (path.empty()) {
    err << "generate: missing --out FILE.db\n";
    return 2;
  }
  SimulatedMarketConfig cfg;
  cfg.seed = static_cast<std::uint64_t>(a.integer("seed", err).value_or(1));
  cfg.activity = a.number("activity", 1.0, err);
  cfg.clusterCount = static_cast<std::size_t>(a.integer("clusters", err).value_or(static_cast<std::int64_t>(kSimulatedClusterCount)));
  cfg.ticksPerHour = static_cast<int>(a.integer("ticks-per-hour", err).value_or(1));
  const std::int64_t hours = a.integer("hours", err).value_or(24 * a.integer("days", err).value_or(7));
  if (hours <= 0 || cfg.activity <= 0 || cfg.ticksPerHour <= 0) {
    err << "generate: --days/--hours, --activity and --ticks-per-hour must be positive\n";
    return 2;
  }
  if (std::ifstream(path).good()) {
    err << "generate: '" << path << "' exists; pick a new file (histories are append-only)\n";
    return 2;
  }
  int code = 0;
  auto store = openStore(path, store::OpenMode::ReadWrite, err, code);
  if (!store) return code;
  AccountDirectory accounts;
  SimulatedMarket market(cfg, accounts);
  auto engine = makeMatchingEngine();
  store::HistoryRecorder recorder(*store, accounts, 8192);
  const bool inputsOnly = a.has("inputs-only");
  ProgressBar bar(err, "generate", !a.has("quiet"));
  const std::int64_t steps = 1 + hours * cfg.ticksPerHour;
  std::vector<Event> events;
  std::int64_t trades = 0;
  for (std::int64_t i = 0; i < steps; ++i) {
    for (const TimedInput& t : market.stepTimed()) {
      events.clear();
      engine->apply(t.event, events);
      for (const Event& e : events) trades += std::holds_alternative<ContractCreated>(e) ? 1 : 0;
      if (inputsOnly) recorder.recordInput(t.timeMicros, t.event);
      else recorder.record(t.timeMicros, t.event, events);
    }
    bar(static_cast<double>(i + 1) / static_cast<double>(steps));
  }
  if (auto e = recorder.flush()) {
    err << "generate: " << e->message << '\n';
    return 1;
  }
  store->setMeta("generator", "tessera-backtest generate");
  store->setMeta("seed", std::to_string(cfg.seed));
  store->setMeta("activity", std::to_string(cfg.activity));
  store->setMeta("start_hour", std::to_string(cfg.start));
  out << "wrote " << recorder.recordedInputs() << " inputs (" << trades << " trades) over " << hours << " hours to "
      << path << '\n';
  return 0;
}

int info(const Args& a, std::ostream& out, std::ostream& err) {
  int code = 0;
  auto store = openStore(a.get("history"), store::OpenMode::ReadOnly, err, code);
  if (!store) return code;
  auto s = store->summary();
  if (auto* e = std::get_if<store::StoreError>(&s)) {
    err << e->message << '\n';
    return 1;
  }
  const auto& sum = std::get<store::HistorySummary>(s);
  nlohmann::json j{{"inputs", sum.inputs},
                   {"market_events", sum.events},
                   {"first_time_us", sum.firstMicros},
                   {"last_time_us", sum.lastMicros},
                   {"hours", (sum.lastMicros - sum.firstMicros) / store::kMicrosPerHour}};
  for (const char* k : {"generator", "seed", "activity", "start_hour"})
    if (auto v = store->meta(k)) j[k] = *v;
  out << j.dump(2) << '\n';
  return 0;
}

int importCmd(const Args& a, std::ostream& out, std::ostream& err) {
  int code = 0;
  auto store = openStore(a.get("history"), store::OpenMode::ReadWrite, err, code);
  if (!store) return code;
  const std::string from = a.get("from");
  std::ifstream in(from);
  if (from.empty() || !in) {
    err << "import: cannot read --from '" << from << "'\n";
    return 1;
  }
  AccountDirectory accounts;
  if (auto e = store->loadAccounts(accounts)) {
    err << e->message << '\n';
    return 1;
  }
  auto r = store::importInputs(in, store::formatOf(from), *store, accounts);
  if (auto* e = std::get_if<store::StoreError>(&r)) {
    err << "import: " << e->message << '\n';
    return 1;
  }
  const auto& rep = std::get<store::ImportReport>(r);
  for (const auto& e : rep.errors) err << from << ": " << e << '\n';
  out << "imported " << rep.imported << " of " << rep.lines << " lines";
  if (!rep.errors.empty()) out << " (" << rep.errors.size() << " skipped, see above)";
  out << '\n';
  return rep.errors.empty() ? 0 : 3;
}

int exportCmd(const Args& a, std::ostream& out, std::ostream& err) {
  int code = 0;
  auto store = openStore(a.get("history"), store::OpenMode::ReadOnly, err, code);
  if (!store) return code;
  const std::string to = a.get("to");
  if (to.empty()) {
    err << "export: missing --to FILE.jsonl|FILE.csv\n";
    return 2;
  }
  store::HistoryQuery q;
  if (auto h = a.integer("from-hour", err)) q.fromMicros = *h * store::kMicrosPerHour;
  if (auto h = a.integer("to-hour", err)) q.toMicros = *h * store::kMicrosPerHour;
  q.cluster = a.integer("cluster", err);
  std::ofstream f(to);
  if (!f) {
    err << "export: cannot write '" << to << "'\n";
    return 1;
  }
  std::variant<std::int64_t, store::StoreError> n;
  if (a.has("events")) {
    n = store::exportEvents(*store, q, store::formatOf(to), f);
  } else {
    AccountDirectory accounts;
    if (auto e = store->loadAccounts(accounts)) {
      err << e->message << '\n';
      return 1;
    }
    n = store::exportInputs(*store, accounts, q, store::formatOf(to), f, !a.has("plain"));
  }
  if (auto* e = std::get_if<store::StoreError>(&n)) {
    err << "export: " << e->message << '\n';
    return 1;
  }
  out << "exported " << std::get<std::int64_t>(n) << (a.has("events") ? " market events" : " inputs") << " to " << to << '\n';
  return 0;
}

std::optional<nlohmann::json> paramsOf(const Args& a, std::ostream& err) {
  if (a.has("params-json")) {
    auto j = nlohmann::json::parse(a.get("params-json"), nullptr, false);
    if (j.is_discarded()) {
      err << "--params-json is not valid JSON\n";
      return std::nullopt;
    }
    return j;
  }
  if (a.has("params")) return readJsonFile(a.get("params"), err);
  return nlohmann::json::object();
}

int runCmd(const Args& a, std::ostream& out, std::ostream& err, const ChartRenderer& charts) {
  const std::string name = a.get("strategy");
  const std::string dir = a.get("report");
  if (name.empty() || dir.empty()) {
    err << "run: needs --strategy NAME and --report DIR\n";
    return 2;
  }
  const auto params = paramsOf(a, err);
  if (!params) return 2;
  auto made = makeStrategy(name, *params);
  if (auto* e = std::get_if<std::string>(&made)) {
    err << "run: " << *e << '\n';
    return 2;
  }
  const std::string path = a.get("history");
  if (path.empty()) {
    err << "run: missing --history FILE\n";
    return 2;
  }
  ReplayConfig cfg;
  cfg.latency.orderLatencyMicros = a.integer("latency-us", err).value_or(0);
  auto history = loadHistory(path);
  if (auto* e = std::get_if<store::StoreError>(&history)) {
    err << "run: " << e->message << '\n';
    return exitCodeOf(*e);
  }
  const History& h = std::get<History>(history);
  ProgressBar bar(err, "replay", !a.has("quiet"));
  const auto t0 = std::chrono::steady_clock::now();
  BacktestResult r = runBacktest(h, *std::get<std::unique_ptr<Strategy>>(made), cfg, std::ref(bar));
  if (!r.setupError.empty()) {
    err << "run: " << r.setupError << '\n';
    return 2;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunInfo info{path, name, *params, cfg.latency.orderLatencyMicros};
  std::vector<std::string> png;
  if (charts) {
    std::string why;
    png = charts(r, dir, why);
    if (png.empty() && !why.empty()) err << "run: PNG charts not written (" << why << "); the report uses SVG\n";
  }
  AccountDirectory names = h.accounts;
  names.intern(r.accountName);
  if (auto e = writeReport(r, info, names, dir, png)) {
    err << "run: " << *e << '\n';
    return 1;
  }
  const auto& s = r.summary;
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: %lld inputs in %.2f s; %lld fills, %lld contracts, fill rate %.1f%%, P&L $%.2f, "
                "paid $%.4f vs market $%.4f, effective $%.4f per useful GPU-h, unfilled %lld GPU-h\n",
                name.c_str(), static_cast<long long>(r.inputs), secs, static_cast<long long>(s.fills),
                static_cast<long long>(s.contracts), s.fillRate * 100, static_cast<double>(s.finalEquity) / 1e6,
                static_cast<double>(s.averagePaid) / 1e6, static_cast<double>(s.marketVwap) / 1e6,
                static_cast<double>(s.effectiveCostPerUsefulGpuHour) / 1e6,
                static_cast<long long>(s.unfilledDemandGpuHours));
  out << line << "report: " << dir << "/report.html\n";
  return 0;
}

int sweepCmd(const Args& a, std::ostream& out, std::ostream& err) {
  const std::string name = a.get("strategy"), gridPath = a.get("grid"), outPath = a.get("out");
  if (name.empty() || gridPath.empty() || outPath.empty()) {
    err << "sweep: needs --strategy NAME, --grid g.json and --out shard.jsonl\n";
    return 2;
  }
  const auto gj = readJsonFile(gridPath, err);
  if (!gj) return 2;
  auto grid = parseSweepGrid(*gj);
  if (auto* e = std::get_if<std::string>(&grid)) {
    err << "sweep: " << gridPath << ": " << *e << '\n';
    return 2;
  }
  Shard shard;
  if (a.has("shard")) {
    auto s = parseShard(a.get("shard"));
    if (auto* e = std::get_if<std::string>(&s)) {
      err << "sweep: " << *e << '\n';
      return 2;
    }
    shard = std::get<Shard>(s);
  }
  LatencyModel lat;
  lat.orderLatencyMicros = a.integer("latency-us", err).value_or(0);
  const int jobs = static_cast<int>(a.integer("jobs", err).value_or(0));
  if (a.get("history").empty()) {
    err << "sweep: missing --history FILE\n";
    return 2;
  }
  auto history = loadHistory(a.get("history"));
  if (auto* e = std::get_if<store::StoreError>(&history)) {
    err << "sweep: " << e->message << '\n';
    return exitCodeOf(*e);
  }
  ProgressBar bar(err, "sweep", !a.has("quiet"));
  const auto t0 = std::chrono::steady_clock::now();
  const SweepRun run = runSweep(std::get<History>(history), name, std::get<SweepGrid>(grid), shard, jobs, lat,
                                std::ref(bar));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ofstream f(outPath);
  if (!f) {
    err << "sweep: cannot write '" << outPath << "'\n";
    return 1;
  }
  writeSweepShard(run, f);
  std::size_t bad = 0;
  for (const auto& p : run.points) bad += p.error.empty() ? 0 : 1;
  out << "sweep shard " << shard.index << "/" << shard.count << ": " << run.points.size() << " of " << run.totalPoints
      << " points in " << secs << " s -> " << outPath << '\n';
  if (bad) {
    err << "sweep: " << bad << " of " << run.points.size()
        << " points had invalid parameters (see \"error\" in the file)\n";
    return 2;
  }
  return 0;
}

int mergeCmd(const Args& a, std::ostream& out, std::ostream& err) {
  const std::string base = a.get("out");
  if (base.empty() || a.positional.empty()) {
    err << "merge: needs --out NAME and the shard files\n";
    return 2;
  }
  auto merged = mergeSweepShards(a.positional);
  if (auto* e = std::get_if<std::string>(&merged)) {
    err << "merge: " << *e << '\n';
    return 1;
  }
  const auto& run = std::get<SweepRun>(merged);
  std::ofstream j(base + ".json"), c(base + ".csv");
  if (!j || !c) {
    err << "merge: cannot write " << base << ".json / .csv\n";
    return 1;
  }
  j << sweepJson(run).dump(2) << '\n';
  writeSweepCsv(run, c);
  out << "merged " << run.points.size() << " points from " << a.positional.size() << " shards -> " << base
      << ".json, " << base << ".csv\n";
  return 0;
}

int strategies(std::ostream& out) {
  for (const auto& s : builtInStrategies())
    out << s.name << "\n    " << s.summary << "\n    example: " << s.exampleParams.dump() << "\n";
  return 0;
}

}  // namespace

int runBacktestCommand(int argc, char** argv, std::ostream& out, std::ostream& err, const ChartRenderer& charts) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
    (argc < 2 ? err : out) << kUsage;
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  const Args a(argc, argv, 2, {"inputs-only", "events", "quiet", "plain"});
  if (!a.error.empty()) {
    err << a.error << '\n';
    return 2;
  }
  try {
    if (cmd == "generate") return generate(a, out, err);
    if (cmd == "info") return info(a, out, err);
    if (cmd == "import") return importCmd(a, out, err);
    if (cmd == "export") return exportCmd(a, out, err);
    if (cmd == "run") return runCmd(a, out, err, charts);
    if (cmd == "sweep") return sweepCmd(a, out, err);
    if (cmd == "merge") return mergeCmd(a, out, err);
    if (cmd == "strategies") return strategies(out);
  } catch (const std::invalid_argument&) {
    return 2;  // the message was printed where the bad option was read
  }
  err << "unknown command '" << cmd << "'\n" << kUsage;
  return 2;
}

}  // namespace tessera::backtest
