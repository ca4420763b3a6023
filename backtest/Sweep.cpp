#include "backtest/Sweep.h"

#include "backtest/ReportWriter.h"
#include "backtest/StrategyRegistry.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>

namespace tessera::backtest {

std::variant<SweepGrid, std::string> parseSweepGrid(const nlohmann::json& j) {
  if (!j.is_object())
    return std::string("a sweep grid is a JSON object {\"base\": {...}, \"grid\": {\"param\": [values]}}");
  SweepGrid g;
  g.source = j;
  for (const auto& [k, v] : j.items())
    if (k != "base" && k != "grid") return "unknown key '" + k + "' in the sweep grid (expected base, grid)";
  if (auto it = j.find("base"); it != j.end()) {
    if (!it->is_object()) return std::string("'base' must be an object of parameters");
    g.base = *it;
  }
  const auto grid = j.find("grid");
  if (grid == j.end() || !grid->is_object() || grid->empty())
    return std::string("'grid' must be a non-empty object of parameter -> list of values");
  for (const auto& [k, v] : grid->items()) {
    if (!v.is_array() || v.empty()) return "grid '" + k + "' must be a non-empty list of values";
    g.axes.push_back({k, std::vector<nlohmann::json>(v.begin(), v.end())});
  }
  return g;
}

std::vector<nlohmann::json> expandGrid(const SweepGrid& g) {
  std::vector<nlohmann::json> points{g.base};
  for (const auto& [key, values] : g.axes) {
    std::vector<nlohmann::json> next;
    next.reserve(points.size() * values.size());
    for (const auto& p : points)
      for (const auto& v : values) {
        nlohmann::json q = p;
        q[key] = v;
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::variant<Shard, std::string> parseShard(const std::string& s) {
  const auto slash = s.find('/');
  Shard sh;
  auto num = [](std::string_view t, int& out) {
    auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && p == t.data() + t.size();
  };
  if (slash == std::string::npos || !num(std::string_view(s).substr(0, slash), sh.index) ||
      !num(std::string_view(s).substr(slash + 1), sh.count) || sh.count < 1 || sh.index < 0 || sh.index >= sh.count)
    return "--shard wants i/N with 0 <= i < N (e.g. 0/4), got '" + s + "'";
  return sh;
}

std::variant<SweepRun, store::StoreError> runSweep(const HistoryStream& history, const std::string& strategy,
                                                   const SweepGrid& grid, Shard shard, int jobs,
                                                   const ReplayConfig& config, const ProgressFn& progress,
                                                   const std::atomic<bool>* cancel) {
  return runSweep(
      history, strategy, [&](const nlohmann::json& params) { return makeStrategy(strategy, params); }, grid, shard,
      jobs, config, progress, cancel);
}

std::variant<SweepRun, store::StoreError> runSweep(const HistoryStream& history, const std::string& strategy,
                                                   const StrategyFactory& make, const SweepGrid& grid, Shard shard,
                                                   int jobs, const ReplayConfig& config, const ProgressFn& progress,
                                                   const std::atomic<bool>* cancel) {
  SweepRun run;
  run.strategy = strategy;
  run.grid = grid;
  run.shard = shard;
  run.latency = latencyJson(config.latency);
  run.feePpm = config.feePpm;
  run.startingCash = config.startingCash;
  const auto all = expandGrid(grid);
  run.totalPoints = all.size();
  for (std::size_t i = static_cast<std::size_t>(shard.index); i < all.size();
       i += static_cast<std::size_t>(shard.count))
    run.points.push_back({i, all[i], {}, {}, {}});
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t lanesAtOnce = static_cast<std::size_t>(jobs);

  const double points = static_cast<double>(std::max<std::size_t>(1, run.points.size()));
  const double total = static_cast<double>(std::max<std::int64_t>(1, history.inputs()));
  std::size_t done = 0;
  double reported = 0;  // progress only moves forward, and reaches 1 once
  auto report = [&](double underWay) {
    const double f = (static_cast<double>(done) + underWay) / points;
    if (progress && f > reported) progress(reported = f);
  };

  // One replay per point of a group; the history streams past the whole group at once.
  struct Lane {
    SweepPoint* point = nullptr;
    std::unique_ptr<Strategy> strategy;
    std::unique_ptr<Replay> replay;
    bool feeding = true;
    ReportsApplied nextReport;  // the first of the history's outages and reclaims not applied yet
  };
  HistoryDigest digest;
  bool digested = false;  // the first pass digests the history, even if no point of it runs
  for (std::size_t first = 0; first < run.points.size() || !digested; first += lanesAtOnce) {
    if (cancel && cancel->load()) break;
    std::vector<Lane> lanes;
    for (std::size_t k = first; k < std::min(first + lanesAtOnce, run.points.size()); ++k) {
      SweepPoint& p = run.points[k];
      auto made = make(p.params);
      if (auto* e = std::get_if<std::string>(&made)) {
        p.error = *e;
        ++done;
        report(0);
        continue;
      }
      Lane lane;
      lane.point = &p;
      lane.strategy = std::move(std::get<std::unique_ptr<Strategy>>(made));
      ReplayConfig cfg = config;
      cfg.cancel = cancel;
      lane.replay = std::make_unique<Replay>(*lane.strategy, history.accounts(), cfg);
      lanes.push_back(std::move(lane));
    }
    if (lanes.empty() && digested) continue;
    std::int64_t fed = 0;
    const ProviderReports reports{history.outages(), history.reclaims()};
    auto feed = [&reports](Lane& lane, const std::vector<store::RecordedInput>& inputs) {
      for (const store::RecordedInput& in : inputs)
        if (!(lane.feeding = feedAfterReports(*lane.replay, in, reports, lane.nextReport))) return;
    };
    auto error = history.forEachChunk([&](const std::vector<store::RecordedInput>& inputs) {
      if (!digested)
        for (const store::RecordedInput& in : inputs) digest.add(in);
      std::vector<std::thread> threads;
      for (std::size_t k = 1; k < lanes.size(); ++k)
        if (lanes[k].feeding) threads.emplace_back(feed, std::ref(lanes[k]), std::cref(inputs));
      if (!lanes.empty() && lanes[0].feeding) feed(lanes[0], inputs);
      for (auto& t : threads) t.join();
      fed += static_cast<std::int64_t>(inputs.size());
      report(static_cast<double>(lanes.size()) * static_cast<double>(fed) / total);
      if (cancel && cancel->load()) return false;
      return !digested || std::any_of(lanes.begin(), lanes.end(), [](const Lane& l) { return l.feeding; });
    });
    if (error) return *error;
    if (cancel && cancel->load()) break;
    digested = true;
    for (Lane& lane : lanes) {
      if (lane.feeding) applyTrailingReports(*lane.replay, reports, lane.nextReport, history.summary().lastInputSeq);
      const BacktestResult r = lane.replay->finish();
      if (r.cancelled) break;
      SweepPoint& p = *lane.point;
      if (!r.setupError.empty())
        p.error = r.setupError;
      else
        p.summary = summaryJson(r.summary);
      char hash[24];
      std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(r.outputHash));
      p.outputHash = hash;
      ++done;
    }
    report(0);
  }
  run.history = digest.text();
  run.cancelled = done < run.points.size();
  return run;
}

void HistoryDigest::add(const store::RecordedInput& in) {
  const std::int64_t v[3] = {in.seq, in.timeMicros, static_cast<std::int64_t>(in.event.index())};
  hash_.add(std::string_view(reinterpret_cast<const char*>(v), sizeof v));
  ++inputs_;
}

std::string HistoryDigest::text() const {
  char hex[24];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash_.value()));
  return "inputs=" + std::to_string(inputs_) + ",fnv=" + hex;
}

namespace {
nlohmann::json pointJson(const SweepPoint& p) {
  nlohmann::json j{{"index", p.index}, {"params", p.params}};
  if (!p.error.empty())
    j["error"] = p.error;
  else {
    j["summary"] = p.summary;
    j["output_hash"] = p.outputHash;
  }
  return j;
}
nlohmann::json cashJson(const SweepRun& r) {
  return r.startingCash ? nlohmann::json(*r.startingCash) : nlohmann::json();
}
nlohmann::json headerJson(const SweepRun& r) {
  return {{"sweep",
           {{"strategy", r.strategy},
            {"grid", r.grid.source},
            {"points", r.totalPoints},
            {"latency", r.latency},
            {"fee_ppm", r.feePpm},
            {"cash", cashJson(r)},
            {"history", r.history},
            {"shard", std::to_string(r.shard.index) + "/" + std::to_string(r.shard.count)}}}};
}
}  // namespace

void writeSweepShard(const SweepRun& run, std::ostream& out) {
  out << headerJson(run).dump() << '\n';
  for (const auto& p : run.points) out << pointJson(p).dump() << '\n';
}

std::variant<SweepRun, std::string> mergeSweepShards(const std::vector<std::string>& files) {
  if (files.empty()) return std::string("no shard files to merge");
  SweepRun merged;
  std::optional<nlohmann::json> first;
  std::set<std::size_t> seen;
  for (const auto& f : files) {
    std::ifstream in(f);
    if (!in) return "cannot read shard file '" + f + "'";
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      if (line.empty()) continue;
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_discarded() || !j.is_object()) return f + ":" + std::to_string(n) + ": not a JSON object";
      if (n == 1) {
        if (!j.contains("sweep")) return f + ": not a sweep shard file (no header line)";
        nlohmann::json h = j["sweep"];
        const std::string shard = h.value("shard", "");
        h.erase("shard");
        if (!first) {
          first = h;
          merged.strategy = h.value("strategy", "");
          merged.totalPoints = h.value("points", std::size_t{0});
          merged.latency = h.value("latency", nlohmann::json());
          merged.feePpm = h.value("fee_ppm", 0);
          if (h.contains("cash") && h["cash"].is_number_integer()) merged.startingCash = h["cash"].get<Money>();
          merged.history = h.value("history", "");
          auto g = parseSweepGrid(h["grid"]);
          if (auto* e = std::get_if<std::string>(&g)) return f + ": " + *e;
          merged.grid = std::get<SweepGrid>(g);
        } else if (h != *first) {
          std::string differ;
          int differing = 0;
          for (const char* k : {"strategy", "grid", "points", "latency", "fee_ppm", "cash", "history"})
            if (h.value(k, nlohmann::json()) != first->value(k, nlohmann::json()))
              differ += std::string(differing++ ? ", " : "") + k;
          return f + ": belongs to a different sweep (" + (differing ? differ : std::string("header")) +
                 (differing > 1 ? " differ" : " differs") + " from " + files.front() + ")";
        }
        continue;
      }
      if (!j.contains("index") || !j["index"].is_number_unsigned()) return f + ":" + std::to_string(n) + ": no index";
      SweepPoint p;
      p.index = j["index"].get<std::size_t>();
      p.params = j.value("params", nlohmann::json::object());
      p.summary = j.value("summary", nlohmann::json());
      p.outputHash = j.value("output_hash", "");
      p.error = j.value("error", "");
      if (p.index >= merged.totalPoints) return f + ": point " + std::to_string(p.index) + " is outside the grid";
      if (!seen.insert(p.index).second) return f + ": point " + std::to_string(p.index) + " appears twice";
      merged.points.push_back(std::move(p));
    }
  }
  if (seen.size() != merged.totalPoints) {
    std::string missing;
    int listed = 0;
    for (std::size_t i = 0; i < merged.totalPoints && listed < 10; ++i)
      if (!seen.count(i)) {
        missing += (listed++ ? ", " : "") + std::to_string(i);
      }
    return "incomplete sweep: " + std::to_string(merged.totalPoints - seen.size()) + " of " +
           std::to_string(merged.totalPoints) + " points missing (" + missing + (listed == 10 ? ", ..." : "") + ")";
  }
  std::sort(merged.points.begin(), merged.points.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  merged.shard = {0, 1};
  return merged;
}

nlohmann::json sweepJson(const SweepRun& run) {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& p : run.points) pts.push_back(pointJson(p));
  return {{"strategy", run.strategy}, {"grid", run.grid.source}, {"points", run.totalPoints}, {"latency", run.latency},
          {"fee_ppm", run.feePpm},    {"cash", cashJson(run)},   {"history", run.history},    {"results", pts}};
}

void writeSweepCsv(const SweepRun& run, std::ostream& out) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : run.grid.axes) keys.push_back(k);
  std::vector<std::string> metrics;
  for (const auto& p : run.points)
    if (p.summary.is_object()) {
      for (const auto& [k, v] : p.summary.items()) metrics.push_back(k);
      break;
    }
  out << "index";
  for (const auto& k : keys) out << ',' << k;
  for (const auto& m : metrics) out << ',' << m;
  out << ",output_hash,error\n";
  for (const auto& p : run.points) {
    out << p.index;
    for (const auto& k : keys) {
      const std::string v = p.params.contains(k) ? p.params[k].dump() : "";
      out << ",\"";
      for (char c : v) out << (c == '"' ? std::string("\"\"") : std::string(1, c));
      out << '"';
    }
    for (const auto& m : metrics)
      out << ',' << (p.summary.is_object() && p.summary.contains(m) ? p.summary[m].dump() : "");
    out << ',' << p.outputHash << ",\"" << p.error << "\"\n";
  }
}

}  // namespace tessera::backtest
