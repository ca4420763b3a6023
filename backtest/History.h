#pragma once
// Market histories for replays, two ways. Streamed (`HistoryStream`): inputs are read from
// SQLite a chunk at a time and replayed, so a history larger than memory replays in memory
// bounded by the chunk; every program replays this way (`run`, sweeps, the terminal's dock,
// the Python package). Loaded into memory (`History`, `loadHistory`): histories built in
// memory by tests and benchmarks, and the reference the streamed replay is checked against.
// Both give byte-identical results.
#include "core/domain/AccountDirectory.h"
#include "core/store/MarketHistoryStore.h"

#include "backtest/BacktestResult.h"
#include "backtest/Replay.h"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::backtest {

struct History {
  AccountDirectory accounts;
  std::vector<store::RecordedInput> inputs;
  std::vector<store::RecordedOutage> outages;    // providers' outages, applied between the inputs
  std::vector<store::RecordedReclaim> reclaims;  // providers' reclaims of interruptible capacity, likewise
};

std::variant<History, store::StoreError> loadHistory(const std::string& path, const store::HistoryQuery& q = {});

// Progress is reported as a fraction in [0, 1], about a hundred times per run.
using ProgressFn = std::function<void(double)>;

BacktestResult runBacktest(const History& history, Strategy& strategy, const ReplayConfig& config,
                           const ProgressFn& progress = {});

inline constexpr std::int64_t kDefaultChunkInputs = 65'536;  // about 25 MB of inputs

// The one reader of a stored history for replays (`run`, sweeps, the terminal's dock, the Python
// package). Opening reads the accounts and the summary; forEachChunk() then reads the inputs in
// sequence order `chunkInputs` at a time (one query from the sequence number after the last
// chunk's, finished before the chunk is handed over, so no read stays open while strategies
// run). Every pass stops at the last input the history held when the stream was opened, so a
// history that is still being recorded gives every pass, and every point of a sweep, the same
// inputs. A history with no inputs is a StoreErrorKind::Empty error, as for loadHistory.
class HistoryStream {
 public:
  // Opens the file read-only and keeps it open for the stream's life.
  static std::variant<HistoryStream, store::StoreError> open(const std::string& path,
                                                             std::int64_t chunkInputs = kDefaultChunkInputs);
  // Reads an open store, which must outlive the stream.
  static std::variant<HistoryStream, store::StoreError> over(const store::MarketHistoryStore& store,
                                                             std::int64_t chunkInputs = kDefaultChunkInputs);

  const AccountDirectory& accounts() const { return accounts_; }
  const store::HistorySummary& summary() const { return summary_; }
  std::int64_t inputs() const { return summary_.inputs; }
  std::int64_t chunkInputs() const { return chunk_; }
  // The provider outages recorded in the history, in order (read whole: they are few).
  const std::vector<store::RecordedOutage>& outages() const { return outages_; }
  // ... and its reclaims of interruptible capacity.
  const std::vector<store::RecordedReclaim>& reclaims() const { return reclaims_; }

  // Hands each chunk to `chunk` (which returns false to stop the pass); a read error ends the pass.
  // Copies of a stream share its connection and may run passes on several threads at once: each
  // chunk's read holds the copies' one lock (SQLite's connection is opened without its own).
  [[nodiscard]] std::optional<store::StoreError> forEachChunk(
      const std::function<bool(const std::vector<store::RecordedInput>&)>& chunk) const;

 private:
  HistoryStream() = default;
  std::shared_ptr<const store::MarketHistoryStore> owned_;
  const store::MarketHistoryStore* store_ = nullptr;
  std::shared_ptr<std::mutex> reading_ = std::make_shared<std::mutex>();
  AccountDirectory accounts_;
  store::HistorySummary summary_;
  std::vector<store::RecordedOutage> outages_;
  std::vector<store::RecordedReclaim> reclaims_;
  std::int64_t chunk_ = kDefaultChunkInputs;
};

// What a history records beside its inputs, applied between them: providers' outages and
// reclaims, and how far a replay has applied each (the first not applied yet).
struct ProviderReports {
  const std::vector<store::RecordedOutage>& outages;
  const std::vector<store::RecordedReclaim>& reclaims;
};
struct ReportsApplied {
  std::size_t outages = 0;
  std::size_t reclaims = 0;
};

// Feeds `in` to the replay after the reports recorded before it (outages before reclaims
// recorded after the same input). Returns false once the replay stops.
bool feedAfterReports(Replay& replay, const store::RecordedInput& in, const ProviderReports& reports,
                      ReportsApplied& next);
// Applies the reports recorded up to the last input replayed (`lastSeq`), from `next` on.
void applyTrailingReports(Replay& replay, const ProviderReports& reports, ReportsApplied next, std::int64_t lastSeq);

// Replays a stream with one strategy: memory is bounded by a chunk, not by the history.
std::variant<BacktestResult, store::StoreError> runBacktest(const HistoryStream& history, Strategy& strategy,
                                                            const ReplayConfig& config,
                                                            const ProgressFn& progress = {});

// The same over an open store (`tessera-backtest run`).
std::variant<BacktestResult, store::StoreError> runBacktestFromStore(const store::MarketHistoryStore& store,
                                                                     Strategy& strategy, const ReplayConfig& config,
                                                                     const ProgressFn& progress = {},
                                                                     std::int64_t chunkInputs = kDefaultChunkInputs);

}  // namespace tessera::backtest
