#include "backtest/BacktestCommand.h"
#include "backtest/CallComparison.h"

#include "backtest/History.h"
#include "backtest/ReportWriter.h"
#include "backtest/SimulatedMarket.h"
#include "backtest/StrategyLibrary.h"
#include "backtest/StrategyRegistry.h"
#include "backtest/Sweep.h"
#include "core/cli/Checks.h"
#include "core/domain/JsonFile.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"
#include "core/engine/Matcher.h"
#include "core/store/HistoryFiles.h"
#include "core/store/HistoryRecorder.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

namespace tessera::backtest {
namespace {

// One command's options as given on the command line: CLI11 has checked their names and the
// form of their values, so the commands read them without second-guessing.
struct Args {
  std::map<std::string, std::string> opts;
  std::vector<std::string> positional;

  bool has(const std::string& k) const { return opts.count(k) > 0; }
  std::string get(const std::string& k, const std::string& d = "") const {
    auto it = opts.find(k);
    return it == opts.end() ? d : it->second;
  }
  std::optional<std::int64_t> integer(const std::string& k, std::ostream&) const {
    if (!has(k)) return std::nullopt;
    return std::stoll(get(k));
  }
  double number(const std::string& k, double d, std::ostream&) const { return has(k) ? std::stod(get(k)) : d; }
};

enum class Value { Flag, Text, Integer, Count, Positive, PositiveNumber };

struct OptionSpec {
  const char* name;  // without the dashes
  Value value;
  const char* help;
};

struct CommandSpec {
  const char* name;
  const char* help;
  std::vector<OptionSpec> options;
  const char* files = nullptr;  // positional files, if the command takes them
};

// Every command and option of tessera-backtest (docs/backtest.md, "Commands").
const std::vector<CommandSpec>& commandSpecs() {
  static const std::vector<CommandSpec> specs = {
      {"generate",
       "write a simulated market history (inputs and the engine's market data)",
       {{"out", Value::Text, "the history file to create"},
        {"days", Value::Positive, "days of market (default 7)"},
        {"hours", Value::Positive, "hours of market, instead of --days"},
        {"seed", Value::Count, "random seed (default 1)"},
        {"activity", Value::PositiveNumber, "activity multiplier (default 1.0)"},
        {"clusters", Value::Positive, "clusters (default 18)"},
        {"ticks-per-hour", Value::Positive, "simulation steps per hour (default 1)"},
        {"burst", Value::Count, "arrivals come in bursts of this many, so orders race (default 0: evenly spaced)"},
        {"burst-gap-us", Value::Positive, "microseconds between the arrivals of a burst (default 200)"},
        {"inputs-only", Value::Flag, "record the inputs without the market data"},
        {"quiet", Value::Flag, "no progress bar"}}},
      {"info", "counts, time range and provenance of a history", {{"history", Value::Text, "the history file"}}},
      {"import",
       "append inputs to a history; bad lines are listed and skipped (exit 3)",
       {{"history", Value::Text, "the history file"}, {"from", Value::Text, "file.jsonl or file.csv"}}},
      {"export",
       "write a history's inputs (or market events) out",
       {{"history", Value::Text, "the history file"},
        {"to", Value::Text, "file.jsonl or file.csv"},
        {"events", Value::Flag, "the market events instead of the inputs"},
        {"cluster", Value::Count, "only this cluster"},
        {"from-hour", Value::Integer, "from this hour"},
        {"to-hour", Value::Integer, "to this hour"},
        {"plain", Value::Flag, "JSON lines without seq/time_us, as `tessera-cli match` reads them"}}},
      {"run",
       "replay a history with one strategy and write its report",
       {{"history", Value::Text, "the history file"},
        {"strategy", Value::Text, "a strategy (`tessera-backtest strategies`)"},
        {"strategy-lib", Value::Text, "a shared library of strategies to load first (docs/strategy-libraries.md)"},
        {"params", Value::Text, "its parameters, a JSON file"},
        {"params-json", Value::Text, "its parameters, inline JSON"},
        {"report", Value::Text, "folder for summary.json, fills.csv, contracts.csv, series.csv, report.html"},
        {"latency-us", Value::Count, "order-entry latency in microseconds (default 0; the same as --order-latency N)"},
        {"order-latency", Value::Text,
         "order-entry latency: MICROS, exp:MEAN, lognormal:MEDIAN,SIGMA or file:PATH (docs/backtest.md, \"Latency\")"},
        {"ack-latency", Value::Text,
         "latency of the answers about the strategy's own orders and fills (same forms; default 0)"},
        {"md-latency", Value::Text, "market-data latency: trades, book changes, the clock (same forms; default 0)"},
        {"latency-seed", Value::Count, "seed of the latency draws (default 1)"},
        {"fee-ppm", Value::Count, "exchange fee on sales, parts per million (the exchange's fee_ppm; default 0)"},
        {"chunk-inputs", Value::Positive,
         "inputs read from the history at a time: the replay streams it, so memory is bounded by this (default 65536)"},
        {"cash", Value::PositiveNumber,
         "the strategy's starting cash in dollars: bids beyond it are refused with insufficient_cash, as on the "
         "exchange (default: no limit)"},
        {"quiet", Value::Flag, "no progress bar"}}},
      {"sweep",
       "a parameter sweep, or one shard of it",
       {{"history", Value::Text, "the history file"},
        {"strategy", Value::Text, "a strategy"},
        {"strategy-lib", Value::Text, "a shared library of strategies to load first (docs/strategy-libraries.md)"},
        {"grid", Value::Text, "g.json: {\"base\": {...}, \"grid\": {\"param\": [v1, v2, ...]}}"},
        {"out", Value::Text, "the shard file to write (JSON lines)"},
        {"shard", Value::Text, "i/N: the points with index % N == i"},
        {"jobs", Value::Count, "points replayed at once, one thread each (default 0: all cores)"},
        {"chunk-inputs", Value::Positive,
         "inputs read from the history at a time: the points' replays stream it together, so memory is bounded by this "
         "and --jobs (default 65536)"},
        {"fee-ppm", Value::Count, "exchange fee on sales, parts per million (the exchange's fee_ppm; default 0)"},
        {"cash", Value::PositiveNumber,
         "each point's starting cash in dollars: bids beyond it are refused with insufficient_cash, as on the exchange "
         "(default: no limit)"},
        {"latency-us", Value::Count, "order-entry latency in microseconds (default 0; the same as --order-latency N)"},
        {"order-latency", Value::Text,
         "order-entry latency: MICROS, exp:MEAN, lognormal:MEDIAN,SIGMA or file:PATH (docs/backtest.md, \"Latency\")"},
        {"ack-latency", Value::Text,
         "latency of the answers about the strategy's own orders and fills (same forms; default 0)"},
        {"md-latency", Value::Text, "market-data latency: trades, book changes, the clock (same forms; default 0)"},
        {"latency-seed", Value::Count, "seed of the latency draws (default 1)"},
        {"quiet", Value::Flag, "no progress bar"}}},
      {"merge",
       "check that shards form one complete sweep; write NAME.json and NAME.csv",
       {{"out", Value::Text, "NAME of the merged files"}},
       "the shard files"},
      {"call-compare",
       "the same simulated order flow cleared continuously and in calls: welfare, block GPU-hours, price volatility",
       {{"hours", Value::Positive, "simulated hours (default 24)"},
        {"seed", Value::Count, "random seed (default 1)"},
        {"activity", Value::PositiveNumber, "activity multiplier (default 0.3)"},
        {"clusters", Value::Positive, "clusters (default 4)"},
        {"seconds", Value::PositiveNumber, "time limit of one call's solve (default 10)"}}},
      {"strategies",
       "list the strategies with example parameters",
       {{"strategy-lib", Value::Text, "also those of this shared library of strategies"}}},
  };
  return specs;
}

// Parses argv into the command's name and its Args, or returns the exit code: 0 after --help,
// 2 for a command line that is wrong (with the message and a hint on `err`).
std::variant<std::pair<std::string, Args>, int> parseCommandLine(int argc, char** argv, std::ostream& out,
                                                                 std::ostream& err) {
  CLI::App app("market histories, replay, strategies and sweeps (docs/backtest.md)", "tessera-backtest");
  app.require_subcommand(1, 1);
  app.footer(
      "  live --strategy NAME [--strategy-lib lib.so] [--params p.json] --account NAME [--key KEY] [--host H] [--port "
      "P] [--seconds N]\n"
      "      the same strategy against a running tessera-exchange (built with core/net)\n\n"
      "  --version\n      the version\n\n"
      "Exit codes: 0 success, 1 a file could not be read or written, 2 a bad command line or\n"
      "parameters, 3 import skipped lines, 4 the history cannot be used, 5 it holds no inputs.");
  std::map<std::string, std::string> values;  // "command option" -> value; nodes never move
  std::map<std::string, bool> flags;
  std::map<std::string, std::vector<std::string>> files;
  for (const CommandSpec& spec : commandSpecs()) {
    CLI::App* c = app.add_subcommand(spec.name, spec.help);
    for (const OptionSpec& o : spec.options) {
      const std::string key = std::string(spec.name) + " " + o.name;
      const std::string flag = std::string("--") + o.name;
      if (o.value == Value::Flag) {
        c->add_flag(flag, flags[key], o.help);
        continue;
      }
      CLI::Option* opt = c->add_option(flag, values[key], o.help);
      if (o.value == Value::Integer) opt->check(cli::WholeNumber);
      if (o.value == Value::Count) opt->check(cli::WholeNumber & cli::NonNegative);
      if (o.value == Value::Positive) opt->check(cli::WholeNumber & cli::Positive);
      if (o.value == Value::PositiveNumber) opt->check(cli::Positive);
    }
    if (spec.files) c->add_option("files", files[spec.name], spec.files);
  }
  if (argc == 2 && std::string_view(argv[1]) == "help") {
    out << app.help();
    return 0;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    const auto subs = app.get_subcommands();
    err << "tessera-backtest: " << e.what() << "\n";
    if (argc < 2)
      err << app.help();
    else
      err << "Run 'tessera-backtest " << (subs.empty() ? "" : subs.front()->get_name() + " ")
          << "--help' for the options.\n";
    return 2;
  }
  const CLI::App* c = app.get_subcommands().front();
  const std::string command = c->get_name();
  Args a;
  for (const CommandSpec& spec : commandSpecs()) {
    if (command != spec.name) continue;
    for (const OptionSpec& o : spec.options) {
      if (c->get_option(std::string("--") + o.name)->count() == 0) continue;
      const std::string key = command + " " + o.name;
      a.opts[o.name] = o.value == Value::Flag ? "1" : values[key];
    }
    if (spec.files) a.positional = files[command];
  }
  return std::pair{command, std::move(a)};
}

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

// A JSON file the command names (--params, --grid); its problem goes to `err`.
std::optional<nlohmann::json> readJsonArgument(const std::string& path, std::ostream& err) {
  auto read = readJsonFile(path);
  if (auto* e = std::get_if<JsonFileError>(&read)) {
    err << e->message << '\n';
    return std::nullopt;
  }
  return std::move(std::get<nlohmann::json>(read));
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
  cfg.clusterCount =
      static_cast<std::size_t>(a.integer("clusters", err).value_or(static_cast<std::int64_t>(kSimulatedClusterCount)));
  cfg.ticksPerHour = static_cast<int>(a.integer("ticks-per-hour", err).value_or(1));
  cfg.burstSize = static_cast<int>(std::min<std::int64_t>(a.integer("burst", err).value_or(0), 10'000));
  cfg.burstGapMicros = a.integer("burst-gap-us", err).value_or(cfg.burstGapMicros);
  if (cfg.burstSize > 0 &&
      cfg.burstSize * cfg.burstGapMicros >= store::kMicrosPerHour / std::max(1, cfg.ticksPerHour)) {
    err << "generate: a burst (--burst x --burst-gap-us) must be shorter than a tick\n";
    return 2;
  }
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
  std::int64_t outages = 0, reclaims = 0, lastMicros = 0;
  for (std::int64_t i = 0; i < steps; ++i) {
    for (const TimedInput& t : market.stepTimed()) {
      events.clear();
      engine->apply(t.event, events);
      for (const Event& e : events) trades += std::holds_alternative<ContractCreated>(e) ? 1 : 0;
      if (inputsOnly)
        recorder.recordInput(t.timeMicros, t.event);
      else
        recorder.record(t.timeMicros, t.event, events);
      lastMicros = t.timeMicros;
    }
    // A node failure's outage reaches the exchange after the step's inputs (as the terminal's
    // simulated market reports it); the replay applies it there (backtest/Replay).
    for (const SimulatedOutage& o : market.takeOutages()) {
      recorder.recordOutage({0, lastMicros, o.provider, o.cluster, o.start, o.end, o.lostGpus});
      ++outages;
    }
    // So do the providers' reclaims of interruptible capacity (they name no contract).
    for (const SimulatedReclaim& r : market.takeReclaims()) {
      recorder.recordReclaim({0, lastMicros, r.provider, r.cluster, r.start, r.end, r.gpus, 0});
      ++reclaims;
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
  if (cfg.burstSize > 0)
    store->setMeta("burst",
                   std::to_string(cfg.burstSize) + " arrivals " + std::to_string(cfg.burstGapMicros) + " us apart");
  out << "wrote " << recorder.recordedInputs() << " inputs (" << trades << " trades, " << outages
      << " provider outages, " << reclaims << " reclaims of interruptible capacity) over " << hours << " hours to "
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
  for (const char* k : {"generator", "seed", "activity", "start_hour", "burst"})
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
  out << "exported " << std::get<std::int64_t>(n) << (a.has("events") ? " market events" : " inputs") << " to " << to
      << '\n';
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
  if (a.has("params")) return readJsonArgument(a.get("params"), err);
  return nlohmann::json::object();
}

// The latency model of --latency-us, --order-latency, --ack-latency, --md-latency and
// --latency-seed, or nothing after saying what is wrong on `err` (exit 2).
std::optional<LatencyModel> latencyOf(const Args& a, const std::string& cmd, std::ostream& err) {
  LatencyModel m;
  if (a.has("latency-us") && a.has("order-latency")) {
    err << cmd << ": give --latency-us or --order-latency, not both\n";
    return std::nullopt;
  }
  if (a.has("latency-us")) m.orderEntry = LatencyDistribution::fixed(*a.integer("latency-us", err));
  for (auto [option, channel] : {std::pair{"order-latency", &m.orderEntry}, std::pair{"ack-latency", &m.ack},
                                 std::pair{"md-latency", &m.marketData}}) {
    if (!a.has(option)) continue;
    auto d = parseLatency(a.get(option));
    if (auto* e = std::get_if<std::string>(&d)) {
      err << cmd << ": --" << option << ": " << *e << '\n';
      return std::nullopt;
    }
    *channel = std::move(std::get<LatencyDistribution>(d));
  }
  m.seed = static_cast<std::uint64_t>(a.integer("latency-seed", err).value_or(1));
  return m;
}

// --fee-ppm and --cash into `cfg`, or false after saying what is wrong on `err` (exit 2).
bool costsOf(const Args& a, const std::string& cmd, ReplayConfig& cfg, std::ostream& err) {
  cfg.feePpm = static_cast<int>(std::min<std::int64_t>(a.integer("fee-ppm", err).value_or(0), 1'000'001));
  if (a.has("cash")) cfg.startingCash = static_cast<Money>(a.number("cash", 0, err) * kMicrosPerDollar + 0.5);
  if (cfg.feePpm > 1'000'000) {
    err << cmd << ": --fee-ppm must be 0 to 1000000 (parts per million of each sale)\n";
    return false;
  }
  return true;
}

int runCmd(const Args& a, std::ostream& out, std::ostream& err) {
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
  auto latency = latencyOf(a, "run", err);
  if (!latency) return 2;
  cfg.latency = std::move(*latency);
  if (!costsOf(a, "run", cfg, err)) return 2;
  // The history streams through the replay a chunk at a time: a year at a busy setting need not
  // fit in memory.
  auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadOnly);
  if (auto* e = std::get_if<store::StoreError>(&opened)) {
    err << "run: " << e->message << '\n';
    return exitCodeOf(*e);
  }
  const auto& history = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
  AccountDirectory names;
  if (auto e = history.loadAccounts(names)) {
    err << "run: " << e->message << '\n';
    return exitCodeOf(*e);
  }
  ProgressBar bar(err, "replay", !a.has("quiet"));
  const auto t0 = std::chrono::steady_clock::now();
  auto streamed = runBacktestFromStore(history, *std::get<std::unique_ptr<Strategy>>(made), cfg, std::ref(bar),
                                       a.integer("chunk-inputs", err).value_or(kDefaultChunkInputs));
  if (auto* e = std::get_if<store::StoreError>(&streamed)) {
    err << "run: " << e->message << '\n';
    return exitCodeOf(*e);
  }
  BacktestResult& r = std::get<BacktestResult>(streamed);
  if (!r.setupError.empty()) {
    err << "run: " << r.setupError << '\n';
    return 2;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunInfo info{path, name, *params, cfg.latency, cfg.feePpm};
  names.intern(r.accountName);
  if (auto e = writeReport(r, info, names, dir)) {
    err << "run: " << *e << '\n';
    return 1;
  }
  const auto& s = r.summary;
  char line[512];
  std::snprintf(line, sizeof line,
                "%s: %s inputs in %.2f s; %s fills, %s contracts, fill rate %.1f%%, P&L %s, "
                "paid $%.4f vs market $%.4f, effective $%.4f per useful GPU-h, unfilled %s GPU-h\n",
                name.c_str(), withThousands(r.inputs).c_str(), secs, withThousands(s.fills).c_str(),
                withThousands(s.contracts).c_str(), s.fillRate * 100, toDollars(s.finalEquity).c_str(),
                static_cast<double>(s.averagePaid) / 1e6, static_cast<double>(s.marketVwap) / 1e6,
                static_cast<double>(s.effectiveCostPerUsefulGpuHour) / 1e6,
                withThousands(s.unfilledDemandGpuHours).c_str());
  out << line;
  // Interruptible capacity the providers took back: the hours are gone, their price refunded.
  if (s.reclaimedGpuHours > 0)
    out << "reclaimed: " << withThousands(s.reclaimedGpuHours) << " GPU-h of interruptible capacity, refunded "
        << toDollars(s.reclaimRefunds) << "\n";
  for (const std::string& note : r.notes) out << note << "\n";
  out << "report: " << dir << "/report.html\n";
  return 0;
}

int sweepCmd(const Args& a, std::ostream& out, std::ostream& err) {
  const std::string name = a.get("strategy"), gridPath = a.get("grid"), outPath = a.get("out");
  if (name.empty() || gridPath.empty() || outPath.empty()) {
    err << "sweep: needs --strategy NAME, --grid g.json and --out shard.jsonl\n";
    return 2;
  }
  const auto gj = readJsonArgument(gridPath, err);
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
  ReplayConfig cfg;
  auto lat = latencyOf(a, "sweep", err);
  if (!lat) return 2;
  cfg.latency = std::move(*lat);
  if (!costsOf(a, "sweep", cfg, err)) return 2;
  const int jobs = static_cast<int>(a.integer("jobs", err).value_or(0));
  if (a.get("history").empty()) {
    err << "sweep: missing --history FILE\n";
    return 2;
  }
  auto history = HistoryStream::open(a.get("history"), a.integer("chunk-inputs", err).value_or(kDefaultChunkInputs));
  if (auto* e = std::get_if<store::StoreError>(&history)) {
    err << "sweep: " << e->message << '\n';
    return exitCodeOf(*e);
  }
  ProgressBar bar(err, "sweep", !a.has("quiet"));
  const auto t0 = std::chrono::steady_clock::now();
  auto swept =
      runSweep(std::get<HistoryStream>(history), name, std::get<SweepGrid>(grid), shard, jobs, cfg, std::ref(bar));
  if (auto* e = std::get_if<store::StoreError>(&swept)) {
    err << "sweep: " << e->message << '\n';
    return exitCodeOf(*e);
  }
  const SweepRun& run = std::get<SweepRun>(swept);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ofstream f(outPath);
  if (!f) {
    err << "sweep: cannot write '" << outPath << "'\n";
    return 1;
  }
  writeSweepShard(run, f);
  std::size_t bad = 0;
  for (const auto& p : run.points) bad += p.error.empty() ? 0 : 1;
  char took[32];
  std::snprintf(took, sizeof took, "%.2f", secs);
  out << "sweep shard " << shard.index << "/" << shard.count << ": "
      << withThousands(static_cast<std::int64_t>(run.points.size())) << " of "
      << withThousands(static_cast<std::int64_t>(run.totalPoints)) << " points in " << took << " s -> " << outPath
      << '\n';
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
  out << "merged " << run.points.size() << " points from " << a.positional.size() << " shards -> " << base << ".json, "
      << base << ".csv\n";
  return 0;
}

int printCallComparison(const Args& a, std::ostream& out, std::ostream& err) {
  SimulatedMarketConfig cfg;
  cfg.seed = static_cast<std::uint64_t>(a.integer("seed", err).value_or(1));
  cfg.activity = a.number("activity", 0.3, err);
  cfg.clusterCount = static_cast<std::size_t>(a.integer("clusters", err).value_or(4));
  if (cfg.clusterCount > kSimulatedClusterCount) {
    err << "call-compare: --clusters is at most " << kSimulatedClusterCount << '\n';
    return 2;
  }
  auction::CallOptions options;
  options.solver.seconds = a.number("seconds", 10.0, err);
  const Hour hours = a.integer("hours", err).value_or(24);
  const CallComparison c = compareCallAndContinuous(cfg, hours, options);
  auto pct = [](double x) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100.0 * x);
    return std::string(b);
  };
  auto row = [&](const char* name, const ClearingFigures& f) {
    out << name << "  welfare " << toDollars(f.welfare) << "  GPU-hours " << withThousands(f.gpuHours)
        << "  block GPU-hours filled " << withThousands(f.blockGpuHours) << " (" << pct(f.blockShare)
        << ")  price volatility " << pct(f.volatility) << '\n';
  };
  out << "Same order flow, " << withThousands(hours) << " hours, " << cfg.clusterCount << " clusters, seed " << cfg.seed
      << "; block GPU-hours submitted " << withThousands(c.blockGpuHoursSubmitted) << '\n';
  row("continuous", c.continuous);
  row("call      ", c.call);
  out << "calls " << c.calls << ", solve time " << std::to_string(c.solveSeconds).substr(0, 6) << " s, worst gap "
      << pct(c.worstGap) << ", calls stopped before proven optimal " << c.callsNotOptimal << '\n';
  return 0;
}

int strategies(std::ostream& out) {
  for (const auto& s : builtInStrategies())
    out << s.name << "\n    " << s.summary << "\n    example: " << s.exampleParams.dump() << "\n";
  return 0;
}

}  // namespace

int runBacktestCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  auto parsed = parseCommandLine(argc, argv, out, err);
  if (auto* code = std::get_if<int>(&parsed)) return *code;
  const auto& [cmd, a] = std::get<std::pair<std::string, Args>>(parsed);
  if (a.has("strategy-lib")) {
    auto loaded = loadStrategyLibrary(a.get("strategy-lib"));
    if (auto* e = std::get_if<std::string>(&loaded)) {
      err << cmd << ": " << *e << '\n';
      return 2;
    }
  }
  if (cmd == "generate") return generate(a, out, err);
  if (cmd == "info") return info(a, out, err);
  if (cmd == "import") return importCmd(a, out, err);
  if (cmd == "export") return exportCmd(a, out, err);
  if (cmd == "run") return runCmd(a, out, err);
  if (cmd == "sweep") return sweepCmd(a, out, err);
  if (cmd == "merge") return mergeCmd(a, out, err);
  if (cmd == "call-compare") return printCallComparison(a, out, err);
  return strategies(out);
}

}  // namespace tessera::backtest
