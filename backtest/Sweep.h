#pragma once
// Parameter sweeps: a grid of parameter values, one independent backtest per point, run in
// parallel on the machine's cores. Points are numbered in a fixed order, so a sweep can be
// split into shards (`--shard i/N` takes the points with index % N == i), run as a job array
// on a batch scheduler, and merged back into exactly the result of one unsharded run.
#include "backtest/History.h"
#include "core/domain/Fnv1a.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

namespace tessera::backtest {

// {"base": {...fixed params...}, "grid": {"max_price": [2.2, 2.4], "gpus": [32, 64]}}
struct SweepGrid {
  nlohmann::json base = nlohmann::json::object();
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> axes;  // in key order
  nlohmann::json source;  // as given, to check that shards belong together
};

std::variant<SweepGrid, std::string> parseSweepGrid(const nlohmann::json& j);
// Every point's parameters; the last axis varies fastest.
std::vector<nlohmann::json> expandGrid(const SweepGrid& g);

struct Shard {
  int index = 0;
  int count = 1;
};
std::variant<Shard, std::string> parseShard(const std::string& s);  // "i/N", 0 <= i < N

struct SweepPoint {
  std::size_t index = 0;
  nlohmann::json params;
  nlohmann::json summary;  // summaryJson of the run
  std::string outputHash;
  std::string error;  // the parameters were rejected; no run
};

struct SweepRun {
  std::string strategy;
  SweepGrid grid;
  Shard shard;
  std::size_t totalPoints = 0;
  // What the points ran on, so shards of different runs are never merged and a merged result
  // says how to reproduce it: latencyJson(model), the fee and cash, and the HistoryDigest of
  // the inputs.
  nlohmann::json latency;
  int feePpm = 0;                     // ReplayConfig::feePpm
  std::optional<Money> startingCash;  // ReplayConfig::startingCash
  std::string history;
  std::vector<SweepPoint> points;  // this shard's, by index
  bool cancelled = false;
};

// Makes the strategy of one grid point from its parameters (or says what is wrong with them).
// Called from the sweep's worker threads.
using StrategyFactory = std::function<std::variant<std::unique_ptr<Strategy>, std::string>(const nlohmann::json&)>;

// Every point replays with `config`'s latency model, fee and starting cash (its cancel is the
// sweep's `cancel`). The history streams (HistoryStream) past `jobs` replays at once (0: one per core): each chunk
// read is fed to that many points' replays in parallel, then dropped, so memory holds one
// chunk and `jobs` engines whatever the history's size, and the history is read once per
// `jobs` points. Progress counts this shard's points, finished and under way. A read error
// of the history ends the sweep with that error.
// `strategy` names a registered strategy (StrategyRegistry.h).
std::variant<SweepRun, store::StoreError> runSweep(const HistoryStream& history, const std::string& strategy,
                                                   const SweepGrid& grid, Shard shard, int jobs,
                                                   const ReplayConfig& config, const ProgressFn& progress = {},
                                                   const std::atomic<bool>* cancel = nullptr);
// The same with strategies from `make` (the Python package's strategies); `strategy` is the
// name the sweep records.
std::variant<SweepRun, store::StoreError> runSweep(const HistoryStream& history, const std::string& strategy,
                                                   const StrategyFactory& make, const SweepGrid& grid, Shard shard,
                                                   int jobs, const ReplayConfig& config,
                                                   const ProgressFn& progress = {},
                                                   const std::atomic<bool>* cancel = nullptr);

// "inputs=N,fnv=HEX": every input's sequence number, time and kind, hashed, as the sweep reads
// them. Two shards that replayed different histories (or different ranges of one) have
// different digests.
class HistoryDigest {
 public:
  void add(const store::RecordedInput& in);
  std::string text() const;

 private:
  Fnv1a hash_;
  std::int64_t inputs_ = 0;
};

// A shard file: a header line, then one JSON line per point.
void writeSweepShard(const SweepRun& run, std::ostream& out);
// Reads shard files and checks they are one sweep, complete, without duplicates.
std::variant<SweepRun, std::string> mergeSweepShards(const std::vector<std::string>& files);
void writeSweepCsv(const SweepRun& run, std::ostream& out);
nlohmann::json sweepJson(const SweepRun& run);

}  // namespace tessera::backtest
