#include "backtest/History.h"

namespace tessera::backtest {
namespace {

store::StoreError noInputs(const std::string& path, bool ranged) {
  return store::StoreError{"'" + path + "' holds no market inputs" + (ranged ? " in the range asked for" : "") +
                               ": record a market or generate one first",
                           store::StoreErrorKind::Empty};
}

// Feeds `in` to the replay after the outages recorded before it (`next`: the first outage not
// applied yet). Returns false once the replay stops.
bool feedAfterOutages(Replay& replay, const store::RecordedInput& in, const std::vector<store::RecordedOutage>& outages,
                      std::size_t& next) {
  while (next < outages.size() && outages[next].afterInput < in.seq) replay.outage(outages[next++]);
  return replay.feed(in);
}

// The outages recorded after the last input replayed (`lastSeq`).
void applyTrailingOutages(Replay& replay, const std::vector<store::RecordedOutage>& outages, std::size_t next,
                          std::int64_t lastSeq) {
  while (next < outages.size() && outages[next].afterInput <= lastSeq) replay.outage(outages[next++]);
}

}  // namespace

std::variant<History, store::StoreError> loadHistory(const std::string& path, const store::HistoryQuery& q) {
  auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadOnly);
  if (auto* e = std::get_if<store::StoreError>(&opened)) return *e;
  const auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
  History h;
  if (auto e = s.loadAccounts(h.accounts)) return *e;
  if (auto sum = s.summary(); std::holds_alternative<store::HistorySummary>(sum))
    h.inputs.reserve(static_cast<std::size_t>(std::get<store::HistorySummary>(sum).inputs));
  if (auto e = s.forEachInput(q, [&](const store::RecordedInput& in) {
        h.inputs.push_back(in);
        return true;
      }))
    return *e;
  if (h.inputs.empty()) return noInputs(path, q.fromMicros || q.toMicros || q.cluster || q.fromSeq);
  auto outages = s.outages();
  if (auto* e = std::get_if<store::StoreError>(&outages)) return *e;
  h.outages = std::move(std::get<std::vector<store::RecordedOutage>>(outages));
  return h;
}

BacktestResult runBacktest(const History& history, Strategy& strategy, const ReplayConfig& config,
                           const ProgressFn& progress) {
  Replay replay(strategy, history.accounts, config);
  const std::size_t n = history.inputs.size();
  const std::size_t every = std::max<std::size_t>(1, n / 100);
  std::size_t nextOutage = 0;
  bool stopped = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!feedAfterOutages(replay, history.inputs[i], history.outages, nextOutage)) {
      stopped = true;
      break;
    }
    if (progress && (i + 1) % every == 0) progress(static_cast<double>(i + 1) / static_cast<double>(n));
  }
  if (!stopped && n > 0) applyTrailingOutages(replay, history.outages, nextOutage, history.inputs.back().seq);
  BacktestResult r = replay.finish();
  if (progress && !r.cancelled) progress(1.0);
  return r;
}

std::variant<BacktestResult, store::StoreError> runBacktestFromStore(const store::MarketHistoryStore& s,
                                                                     Strategy& strategy, const ReplayConfig& config,
                                                                     const ProgressFn& progress,
                                                                     std::int64_t chunkInputs) {
  AccountDirectory accounts;
  if (auto e = s.loadAccounts(accounts)) return *e;
  auto sum = s.summary();
  if (auto* e = std::get_if<store::StoreError>(&sum)) return *e;
  const store::HistorySummary& summary = std::get<store::HistorySummary>(sum);
  if (summary.inputs == 0) return noInputs(s.path(), false);
  const std::int64_t total = std::max<std::int64_t>(1, summary.inputs);
  const std::int64_t chunk = std::max<std::int64_t>(1, chunkInputs);
  // Outages are few (a node failure now and then): read whole, applied between the inputs.
  auto outagesRead = s.outages();
  if (auto* e = std::get_if<store::StoreError>(&outagesRead)) return *e;
  const std::vector<store::RecordedOutage>& outages = std::get<std::vector<store::RecordedOutage>>(outagesRead);
  std::size_t nextOutage = 0;
  bool stopped = false;
  Replay replay(strategy, accounts, config);
  const std::int64_t every = std::max<std::int64_t>(1, total / 100);
  std::int64_t fed = 0;
  std::vector<store::RecordedInput> inputs;
  inputs.reserve(static_cast<std::size_t>(std::min(chunk, total)));
  store::HistoryQuery q;
  q.fromSeq = 0;
  bool more = true;
  while (more) {
    inputs.clear();
    if (auto e = s.forEachInput(q, [&](const store::RecordedInput& in) {
          if (in.seq > summary.lastInputSeq) return false;
          inputs.push_back(in);
          return static_cast<std::int64_t>(inputs.size()) < chunk;
        }))
      return *e;
    more = static_cast<std::int64_t>(inputs.size()) == chunk;
    if (!inputs.empty()) q.fromSeq = inputs.back().seq + 1;
    for (const store::RecordedInput& in : inputs) {
      if (!feedAfterOutages(replay, in, outages, nextOutage)) {
        more = false;
        stopped = true;
        break;
      }
      if (progress && ++fed % every == 0) progress(static_cast<double>(fed) / static_cast<double>(total));
    }
  }
  if (!stopped) applyTrailingOutages(replay, outages, nextOutage, summary.lastInputSeq);
  BacktestResult r = replay.finish();
  if (progress && !r.cancelled) progress(1.0);
  return r;
}

}  // namespace tessera::backtest
