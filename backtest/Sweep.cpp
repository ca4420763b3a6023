#include "backtest/Sweep.h"

#include "backtest/ReportWriter.h"
#include "backtest/StrategyRegistry.h"
#include "core/domain/Fnv1a.h"

#include <charconv>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

namespace tessera::backtest {

std::variant<SweepGrid, std::string> parseSweepGrid(const nlohmann::json& j) {
  if (!j.is_object()) return std::string("a sweep grid is a JSON object {\"base\": {...}, \"grid\": {\"param\": [values]}}");
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

SweepRun runSweep(const History& history, const std::string& strategy, const SweepGrid& grid, Shard shard, int jobs,
                  LatencyModel latency, const ProgressFn& progress, const std::atomic<bool>* cancel) {
  return runSweep(
      history, strategy, [&](const nlohmann::json& params) { return makeStrategy(strategy, params); }, grid, shard,
      jobs, latency, progress, cancel);
}

SweepRun runSweep(const History& history, const std::string& strategy, const StrategyFactory& make,
                  const SweepGrid& grid, Shard shard, int jobs, LatencyModel latency, const ProgressFn& progress,
                  const std::atomic<bool>* cancel) {
  SweepRun run;
  run.strategy = strategy;
  run.grid = grid;
  run.shard = shard;
  run.latency = latencyJson(latency);
  run.history = historyDigest(history);
  const auto all = expandGrid(grid);
  run.totalPoints = all.size();
  for (std::size_t i = static_cast<std::size_t>(shard.index); i < all.size(); i += static_cast<std::size_t>(shard.count))
    run.points.push_back({i, all[i], {}, {}, {}});
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  jobs = std::min<int>(jobs, static_cast<int>(std::max<std::size_t>(1, run.points.size())));

  std::atomic<std::size_t> next{0}, done{0};
  std::mutex progressMutex;
  auto worker = [&] {
    for (;;) {
      if (cancel && cancel->load()) return;
      const std::size_t k = next.fetch_add(1);
      if (k >= run.points.size()) return;
      SweepPoint& p = run.points[k];
      auto made = make(p.params);
      if (auto* e = std::get_if<std::string>(&made)) {
        p.error = *e;
      } else {
        ReplayConfig cfg;
        cfg.latency = latency;
        cfg.cancel = cancel;
        const BacktestResult r = runBacktest(history, *std::get<std::unique_ptr<Strategy>>(made), cfg);
        if (r.cancelled) return;
        if (!r.setupError.empty()) p.error = r.setupError;
        else p.summary = summaryJson(r.summary);
        char hash[24];
        std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(r.outputHash));
        p.outputHash = hash;
      }
      const std::size_t d = ++done;
      if (progress) {
        std::lock_guard lock(progressMutex);
        progress(static_cast<double>(d) / static_cast<double>(run.points.size()));
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
  run.cancelled = done.load() < run.points.size();
  return run;
}

std::string historyDigest(const History& history) {
  Fnv1a h;
  for (const store::RecordedInput& in : history.inputs) {
    const std::int64_t v[3] = {in.seq, in.timeMicros, static_cast<std::int64_t>(in.event.index())};
    h.add(std::string_view(reinterpret_cast<const char*>(v), sizeof v));
  }
  char hex[24];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h.value()));
  return "inputs=" + std::to_string(history.inputs.size()) + ",fnv=" + hex;
}

namespace {
nlohmann::json pointJson(const SweepPoint& p) {
  nlohmann::json j{{"index", p.index}, {"params", p.params}};
  if (!p.error.empty()) j["error"] = p.error;
  else {
    j["summary"] = p.summary;
    j["output_hash"] = p.outputHash;
  }
  return j;
}
nlohmann::json headerJson(const SweepRun& r) {
  return {{"sweep",
           {{"strategy", r.strategy},
            {"grid", r.grid.source},
            {"points", r.totalPoints},
            {"latency", r.latency},
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
          merged.history = h.value("history", "");
          auto g = parseSweepGrid(h["grid"]);
          if (auto* e = std::get_if<std::string>(&g)) return f + ": " + *e;
          merged.grid = std::get<SweepGrid>(g);
        } else if (h != *first) {
          std::string differ;
          for (const char* k : {"strategy", "grid", "points", "latency", "history"})
            if (h.value(k, nlohmann::json()) != first->value(k, nlohmann::json()))
              differ += std::string(differ.empty() ? "" : ", ") + k;
          return f + ": belongs to a different sweep (" + (differ.empty() ? std::string("header") : differ) +
                 " differ from " + files.front() + ")";
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
  return {{"strategy", run.strategy}, {"grid", run.grid.source},     {"points", run.totalPoints},
          {"latency", run.latency},   {"history", run.history},         {"results", pts}};
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
    for (const auto& m : metrics) out << ',' << (p.summary.is_object() && p.summary.contains(m) ? p.summary[m].dump() : "");
    out << ',' << p.outputHash << ",\"" << p.error << "\"\n";
  }
}

}  // namespace tessera::backtest
