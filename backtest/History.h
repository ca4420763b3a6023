#pragma once
// Market histories for replays, two ways. Loaded into memory (`History`, `loadHistory`): one
// load serves many runs, so sweeps run one replay per grid point in parallel over the same
// read-only inputs. Streamed (`runBacktestFromStore`): inputs are read from SQLite a chunk at a
// time and replayed, so a history larger than memory replays in memory bounded by the chunk
// (`tessera-backtest run` does this). Both give byte-identical results.
#include "core/domain/AccountDirectory.h"
#include "core/store/MarketHistoryStore.h"

#include "backtest/BacktestResult.h"
#include "backtest/Replay.h"

#include <functional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::backtest {

struct History {
  AccountDirectory accounts;
  std::vector<store::RecordedInput> inputs;
  std::vector<store::RecordedOutage> outages;  // providers' outages, applied between the inputs
};

std::variant<History, store::StoreError> loadHistory(const std::string& path, const store::HistoryQuery& q = {});

// Progress is reported as a fraction in [0, 1], about a hundred times per run.
using ProgressFn = std::function<void(double)>;

BacktestResult runBacktest(const History& history, Strategy& strategy, const ReplayConfig& config,
                           const ProgressFn& progress = {});

inline constexpr std::int64_t kDefaultChunkInputs = 65'536;  // about 25 MB of inputs

// Streams a history from SQLite through the replay without loading it: `chunkInputs` inputs
// are read (one query from the sequence number after the last chunk's, finished before the
// chunk replays, so no read stays open while the strategy runs), replayed, and dropped. The
// replay stops at the last input the history held when it started, so a history that is
// still being recorded replays the same whatever is appended meanwhile. A history with no
// inputs is a StoreErrorKind::Empty error, as for loadHistory.
std::variant<BacktestResult, store::StoreError> runBacktestFromStore(const store::MarketHistoryStore& store,
                                                                     Strategy& strategy, const ReplayConfig& config,
                                                                     const ProgressFn& progress = {},
                                                                     std::int64_t chunkInputs = kDefaultChunkInputs);

}  // namespace tessera::backtest
