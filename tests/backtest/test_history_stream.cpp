// Streaming a history from SQLite (runBacktestFromStore) replays exactly what loading it whole
// does, whatever the chunk size; an empty history is refused the same way.
#include "backtest/History.h"
#include "backtest/ReportWriter.h"
#include "backtest/SimulatedMarket.h"
#include "backtest/StrategyRegistry.h"
#include "core/store/HistoryRecorder.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::backtest;

namespace {

std::unique_ptr<Strategy> marketMaker() {
  auto made = makeStrategy("market-maker", {{"cluster", "harbor-us-west-h100-b"}, {"spread", 0.03}});
  if (auto* e = std::get_if<std::string>(&made)) qFatal("%s", e->c_str());
  return std::move(std::get<std::unique_ptr<Strategy>>(made));
}

ReplayConfig config() {
  ReplayConfig cfg;
  cfg.latency.orderEntry = LatencyDistribution::fixed(300);
  cfg.latency.marketData.kind = LatencyKind::Exponential;
  cfg.latency.marketData.meanMicros = 150;
  return cfg;
}

// Everything a user gets from a run, as text: summary.json's content and every fill.
std::string everything(const BacktestResult& r) {
  std::string s = resultJson(r, RunInfo{"h", "market-maker", {}, config().latency, 0}).dump();
  for (const Fill& f : r.fills)
    s += "\n" + std::to_string(f.trade) + "," + std::to_string(f.order) + "," + std::to_string(f.gpus) + "," +
         std::to_string(f.start) + "," + std::to_string(f.price);
  return s;
}

}  // namespace

class TestHistoryStream : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void streamedEqualsWholeAtAnyChunkSize() {
    // Mutation seen failing: the next chunk starting two sequence numbers after the last one
    // read (an input lost at every chunk boundary) instead of one.
    const std::string path = dir_.filePath("h.db").toStdString();
    {
      auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadWrite);
      auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
      AccountDirectory accounts;
      SimulatedMarketConfig cfg;
      cfg.seed = 9;
      cfg.activity = 2;
      SimulatedMarket market(cfg, accounts);
      store::HistoryRecorder rec(s, accounts, 4096);
      for (int i = 0; i < 1 + 36; ++i)
        for (const auto& t : market.stepTimed()) rec.recordInput(t.timeMicros, t.event);
      QVERIFY(!rec.flush());
    }
    auto loaded = loadHistory(path);
    QVERIFY(std::holds_alternative<History>(loaded));
    const History& h = std::get<History>(loaded);
    auto mm = marketMaker();
    const BacktestResult whole = runBacktest(h, *mm, config());
    QVERIFY(whole.summary.fills > 0);
    const std::string expected = everything(whole);

    auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadOnly);
    const auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
    const auto n = static_cast<std::int64_t>(h.inputs.size());
    for (std::int64_t chunk : {std::int64_t{1}, std::int64_t{7}, n - 1, n, kDefaultChunkInputs}) {
      auto strategy = marketMaker();
      std::vector<double> progress;
      auto r = runBacktestFromStore(
          s, *strategy, config(), [&](double f) { progress.push_back(f); }, chunk);
      QVERIFY(std::holds_alternative<BacktestResult>(r));
      QCOMPARE(std::get<BacktestResult>(r).inputs, n);
      QVERIFY2(everything(std::get<BacktestResult>(r)) == expected, qPrintable(QString("chunk %1").arg(chunk)));
      QVERIFY(!progress.empty() && progress.back() == 1.0);
    }
  }

  void anEmptyHistoryIsRefusedAsWhenLoaded() {
    const std::string path = dir_.filePath("empty.db").toStdString();
    { auto created = store::MarketHistoryStore::open(path, store::OpenMode::ReadWrite); }
    auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadOnly);
    const auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
    auto strategy = marketMaker();
    auto r = runBacktestFromStore(s, *strategy, config());
    QVERIFY(std::holds_alternative<store::StoreError>(r));
    QCOMPARE(std::get<store::StoreError>(r).kind, store::StoreErrorKind::Empty);
    auto loaded = loadHistory(path);
    QCOMPARE(std::get<store::StoreError>(loaded).message, std::get<store::StoreError>(r).message);
  }
};

QTEST_GUILESS_MAIN(TestHistoryStream)
#include "test_history_stream.moc"
