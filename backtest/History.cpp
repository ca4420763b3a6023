#include "backtest/History.h"

namespace tessera::backtest {
namespace {

store::StoreError noInputs(const std::string& path, bool ranged) {
  return store::StoreError{"'" + path + "' holds no market inputs" + (ranged ? " in the range asked for" : "") +
                               ": record a market or generate one first",
                           store::StoreErrorKind::Empty};
}

using InputVisitor = std::function<bool(const store::RecordedInput&)>;

// The one replay loop of both histories (loaded whole, or streamed in chunks): `inputs` hands
// each input to the visitor until it returns false; each is fed after the providers' reports
// (outages, reclaims) recorded before it, progress is reported every hundredth of `total`, and
// the reports recorded up to `lastSeq` follow the last input unless the replay stopped first.
std::variant<BacktestResult, store::StoreError> replayInputs(
    Replay& replay, std::int64_t total, std::optional<std::int64_t> lastSeq, const ProviderReports& reports,
    const ProgressFn& progress, const std::function<std::optional<store::StoreError>(const InputVisitor&)>& inputs) {
  total = std::max<std::int64_t>(1, total);
  const std::int64_t every = std::max<std::int64_t>(1, total / 100);
  std::int64_t fed = 0;
  ReportsApplied next;
  bool stopped = false;
  if (auto e = inputs([&](const store::RecordedInput& in) {
        if (!feedAfterReports(replay, in, reports, next)) {
          stopped = true;
          return false;
        }
        if (progress && ++fed % every == 0) progress(static_cast<double>(fed) / static_cast<double>(total));
        return true;
      }))
    return *e;
  if (!stopped && lastSeq) applyTrailingReports(replay, reports, next, *lastSeq);
  BacktestResult r = replay.finish();
  if (progress && !r.cancelled) progress(1.0);
  return r;
}

// Applies every report recorded after inputs numbered below `beforeSeq`.
void applyReports(Replay& replay, const ProviderReports& reports, ReportsApplied& next, std::int64_t beforeSeq) {
  for (;;) {
    const bool outage = next.outages < reports.outages.size() && reports.outages[next.outages].afterInput < beforeSeq;
    const bool reclaim =
        next.reclaims < reports.reclaims.size() && reports.reclaims[next.reclaims].afterInput < beforeSeq;
    if (outage && (!reclaim || reports.outages[next.outages].afterInput <= reports.reclaims[next.reclaims].afterInput))
      replay.outage(reports.outages[next.outages++]);
    else if (reclaim)
      replay.reclaim(reports.reclaims[next.reclaims++]);
    else
      return;
  }
}

}  // namespace

bool feedAfterReports(Replay& replay, const store::RecordedInput& in, const ProviderReports& reports,
                      ReportsApplied& next) {
  applyReports(replay, reports, next, in.seq);
  return replay.feed(in);
}

void applyTrailingReports(Replay& replay, const ProviderReports& reports, ReportsApplied next, std::int64_t lastSeq) {
  applyReports(replay, reports, next, lastSeq + 1);
}

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
  auto reclaims = s.reclaims();
  if (auto* e = std::get_if<store::StoreError>(&reclaims)) return *e;
  h.reclaims = std::move(std::get<std::vector<store::RecordedReclaim>>(reclaims));
  return h;
}

BacktestResult runBacktest(const History& history, Strategy& strategy, const ReplayConfig& config,
                           const ProgressFn& progress) {
  Replay replay(strategy, history.accounts, config);
  const auto n = static_cast<std::int64_t>(history.inputs.size());
  const std::optional<std::int64_t> lastSeq =
      history.inputs.empty() ? std::nullopt : std::optional(history.inputs.back().seq);
  auto r = replayInputs(replay, n, lastSeq, ProviderReports{history.outages, history.reclaims}, progress,
                        [&](const InputVisitor& visit) {
                          for (const store::RecordedInput& in : history.inputs)
                            if (!visit(in)) break;
                          return std::optional<store::StoreError>();
                        });
  return std::get<BacktestResult>(std::move(r));  // a history in memory has no read errors
}

std::variant<HistoryStream, store::StoreError> HistoryStream::open(const std::string& path, std::int64_t chunkInputs) {
  auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadOnly);
  if (auto* e = std::get_if<store::StoreError>(&opened)) return *e;
  std::shared_ptr<const store::MarketHistoryStore> owned =
      std::move(std::get<std::unique_ptr<store::MarketHistoryStore>>(opened));
  auto stream = over(*owned, chunkInputs);
  if (auto* s = std::get_if<HistoryStream>(&stream)) s->owned_ = std::move(owned);
  return stream;
}

std::variant<HistoryStream, store::StoreError> HistoryStream::over(const store::MarketHistoryStore& s,
                                                                   std::int64_t chunkInputs) {
  HistoryStream h;
  h.store_ = &s;
  h.chunk_ = std::max<std::int64_t>(1, chunkInputs);
  if (auto e = s.loadAccounts(h.accounts_)) return *e;
  auto sum = s.summary();
  if (auto* e = std::get_if<store::StoreError>(&sum)) return *e;
  h.summary_ = std::get<store::HistorySummary>(sum);
  if (h.summary_.inputs == 0) return noInputs(s.path(), false);
  // Outages and reclaims are few (a node failure, a provider taking machines back, now and
  // then): read whole, applied between the inputs.
  auto outages = s.outages();
  if (auto* e = std::get_if<store::StoreError>(&outages)) return *e;
  h.outages_ = std::move(std::get<std::vector<store::RecordedOutage>>(outages));
  auto reclaims = s.reclaims();
  if (auto* e = std::get_if<store::StoreError>(&reclaims)) return *e;
  h.reclaims_ = std::move(std::get<std::vector<store::RecordedReclaim>>(reclaims));
  return h;
}

std::optional<store::StoreError> HistoryStream::forEachChunk(
    const std::function<bool(const std::vector<store::RecordedInput>&)>& chunk) const {
  std::vector<store::RecordedInput> inputs;
  inputs.reserve(static_cast<std::size_t>(std::min(chunk_, std::max<std::int64_t>(1, summary_.inputs))));
  store::HistoryQuery q;
  q.fromSeq = 0;
  for (bool more = true; more;) {
    inputs.clear();
    {
      std::lock_guard lock(*reading_);
      if (auto e = store_->forEachInput(q, [&](const store::RecordedInput& in) {
            if (in.seq > summary_.lastInputSeq) return false;
            inputs.push_back(in);
            return static_cast<std::int64_t>(inputs.size()) < chunk_;
          }))
        return e;
    }
    more = static_cast<std::int64_t>(inputs.size()) == chunk_;
    if (inputs.empty()) break;
    q.fromSeq = inputs.back().seq + 1;
    if (!chunk(inputs)) break;
  }
  return std::nullopt;
}

std::variant<BacktestResult, store::StoreError> runBacktest(const HistoryStream& history, Strategy& strategy,
                                                            const ReplayConfig& config, const ProgressFn& progress) {
  Replay replay(strategy, history.accounts(), config);
  return replayInputs(replay, history.inputs(), history.summary().lastInputSeq,
                      ProviderReports{history.outages(), history.reclaims()}, progress, [&](const InputVisitor& visit) {
                        return history.forEachChunk([&](const std::vector<store::RecordedInput>& inputs) {
                          for (const store::RecordedInput& in : inputs)
                            if (!visit(in)) return false;
                          return true;
                        });
                      });
}

std::variant<BacktestResult, store::StoreError> runBacktestFromStore(const store::MarketHistoryStore& s,
                                                                     Strategy& strategy, const ReplayConfig& config,
                                                                     const ProgressFn& progress,
                                                                     std::int64_t chunkInputs) {
  auto stream = HistoryStream::over(s, chunkInputs);
  if (auto* e = std::get_if<store::StoreError>(&stream)) return *e;
  return runBacktest(std::get<HistoryStream>(stream), strategy, config, progress);
}

}  // namespace tessera::backtest
