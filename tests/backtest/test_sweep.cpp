// Parameter sweeps: grid order, shards that merge into exactly the single-run result,
// parallel runs equal to serial ones, every point equal to its own replay of the history loaded
// whole at any chunk size, and merges that refuse incomplete or mixed shards.
#include "backtest/History.h"
#include "backtest/SimulatedMarket.h"
#include "backtest/ReportWriter.h"
#include "backtest/StrategyRegistry.h"
#include "backtest/Sweep.h"
#include "core/store/HistoryRecorder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tessera;
using namespace tessera::backtest;

namespace {

// `hours` of the simulated market written to `path`, as `tessera-backtest generate` writes it.
void writeSimulated(const std::string& path, int hours) {
  auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadWrite);
  auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
  AccountDirectory accounts;
  SimulatedMarketConfig cfg;
  cfg.seed = 21;
  cfg.clusterCount = 8;
  SimulatedMarket m(cfg, accounts);
  store::HistoryRecorder rec(s, accounts, 4096);
  for (int i = 0; i < hours; ++i)
    for (const auto& t : m.stepTimed()) rec.recordInput(t.timeMicros, t.event);
  if (rec.flush()) qFatal("cannot write %s", path.c_str());
}

HistoryStream stream(const std::string& path, std::int64_t chunk = kDefaultChunkInputs) {
  auto opened = HistoryStream::open(path, chunk);
  if (auto* e = std::get_if<store::StoreError>(&opened)) qFatal("%s", e->message.c_str());
  return std::move(std::get<HistoryStream>(opened));
}

SweepRun swept(std::variant<SweepRun, store::StoreError>&& r) {
  if (auto* e = std::get_if<store::StoreError>(&r)) qFatal("%s", e->message.c_str());
  return std::move(std::get<SweepRun>(r));
}

SweepGrid grid() {
  const auto j = nlohmann::json::parse(R"({
    "base": {"cluster": "harbor-us-west-h100-b", "window_hours": 4},
    "grid": {"spread": [0.02, 0.04, 0.08], "hours_ahead": [6, 12], "gpus": [8, 16]}})");
  return std::get<SweepGrid>(parseSweepGrid(j));
}

std::string dump(const SweepRun& r) { return sweepJson(r)["results"].dump(); }

}  // namespace

class TestSweep : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void gridExpandsInAFixedOrder() {
    const auto points = expandGrid(grid());
    QCOMPARE(points.size(), std::size_t{12});
    // Keys in order (gpus, hours_ahead, spread); the last varies fastest.
    QCOMPARE(points[0]["gpus"].get<int>(), 8);
    QCOMPARE(points[0]["hours_ahead"].get<int>(), 6);
    QCOMPARE(points[0]["spread"].get<double>(), 0.02);
    QCOMPARE(points[1]["spread"].get<double>(), 0.04);
    QCOMPARE(points[3]["hours_ahead"].get<int>(), 12);
    QCOMPARE(points[11]["gpus"].get<int>(), 16);
    QCOMPARE(points[5]["cluster"].get<std::string>(), std::string("harbor-us-west-h100-b"));
  }

  void shardsParse() {
    QCOMPARE(std::get<Shard>(parseShard("2/5")).index, 2);
    QCOMPARE(std::get<Shard>(parseShard("2/5")).count, 5);
    for (const char* bad : {"5/5", "-1/3", "1", "a/b", "1/0", "1/3x"})
      QVERIFY2(std::holds_alternative<std::string>(parseShard(bad)), bad);
    QVERIFY(std::holds_alternative<std::string>(parseSweepGrid(nlohmann::json::parse(R"({"grid": {"x": []}})"))));
    QVERIFY(std::holds_alternative<std::string>(parseSweepGrid(nlohmann::json::parse(R"({"grd": {}})"))));
  }

  void shardedSweepMergesToTheSingleRun() {
    const std::string path = dir_.filePath("h30.db").toStdString();
    writeSimulated(path, 30);
    const HistoryStream h = stream(path);
    ReplayConfig lat;
    lat.latency = LatencyModel{LatencyDistribution::fixed(100)};
    const SweepRun single = swept(runSweep(h, "market-maker", grid(), {0, 1}, 1, lat));
    QCOMPARE(single.points.size(), std::size_t{12});
    int traded = 0;
    for (const auto& p : single.points) {
      QVERIFY2(p.error.empty(), p.error.c_str());
      traded += p.summary["fills"].get<int>() > 0 ? 1 : 0;
    }
    QVERIFY(traded > 0);  // the points actually trade, so equality below means something

    // In parallel on all cores: the same.
    QCOMPARE(dump(swept(runSweep(h, "market-maker", grid(), {0, 1}, 0, lat))), dump(single));

    std::vector<std::string> files;
    for (int i = 0; i < 3; ++i) {
      const SweepRun shard = swept(runSweep(h, "market-maker", grid(), {i, 3}, 2, lat));
      QCOMPARE(shard.points.size(), std::size_t{4});
      files.push_back((dir_.path() + QString("/shard-%1.jsonl").arg(i)).toStdString());
      std::ofstream f(files.back());
      writeSweepShard(shard, f);
    }
    std::reverse(files.begin(), files.end());  // merge order must not matter
    auto merged = mergeSweepShards(files);
    QVERIFY2(std::holds_alternative<SweepRun>(merged),
             std::holds_alternative<std::string>(merged) ? std::get<std::string>(merged).c_str() : "");
    QCOMPARE(dump(std::get<SweepRun>(merged)), dump(single));

    // Missing a shard, or a shard twice: refused with a reason.
    auto partial = mergeSweepShards({files[0], files[1]});
    QVERIFY(std::holds_alternative<std::string>(partial));
    QVERIFY(std::get<std::string>(partial).find("incomplete") != std::string::npos);
    auto twice = mergeSweepShards({files[0], files[0], files[1], files[2]});
    QVERIFY(std::holds_alternative<std::string>(twice));
    QVERIFY(std::get<std::string>(twice).find("twice") != std::string::npos);

    // A shard of a different sweep.
    auto other = grid();
    other.source["grid"]["spread"] = {0.5};
    other.axes.back().second = {0.5};
    const SweepRun alien = swept(runSweep(h, "market-maker", other, {0, 3}, 1, lat));
    const auto alienFile = (dir_.path() + "/alien.jsonl").toStdString();
    {
      std::ofstream f(alienFile);
      writeSweepShard(alien, f);
    }
    auto mixed = mergeSweepShards({files[0], files[1], alienFile});
    QVERIFY(std::holds_alternative<std::string>(mixed));
    QVERIFY(std::get<std::string>(mixed).find("different sweep") != std::string::npos);

    // The third shard run with a fee: refused, naming what differs.
    ReplayConfig withFee = lat;
    withFee.feePpm = 1'000;
    const auto feeFile = (dir_.path() + "/fee.jsonl").toStdString();
    {
      std::ofstream f(feeFile);
      writeSweepShard(swept(runSweep(h, "market-maker", grid(), {2, 3}, 1, withFee)), f);
    }
    auto feeMixed = mergeSweepShards({files[2], files[1], feeFile});
    QVERIFY(std::holds_alternative<std::string>(feeMixed));
    QVERIFY2(std::get<std::string>(feeMixed).find("(fee_ppm differs") != std::string::npos,
             std::get<std::string>(feeMixed).c_str());
  }

  void everyPointIsItsReplayOfTheWholeHistory() {
    // The sweep streams the history past `jobs` replays at once; each point is exactly the
    // replay of that point alone over the history loaded whole, whatever the chunk size and
    // however many points share a pass. Mutation seen failing: the sweep's chunk loop feeding a
    // lane only the first half of each chunk after its first.
    const std::string path = dir_.filePath("h20.db").toStdString();
    writeSimulated(path, 20);
    auto loaded = loadHistory(path);
    QVERIFY(std::holds_alternative<History>(loaded));
    const History& whole = std::get<History>(loaded);
    // Latency, fee and cash reach every point (a point's own replay below has them too).
    ReplayConfig lat;
    lat.latency = LatencyModel{LatencyDistribution::fixed(100)};
    lat.latency.marketData.kind = LatencyKind::Exponential;
    lat.latency.marketData.meanMicros = 200;
    lat.feePpm = 20'000;
    lat.startingCash = 150 * kMicrosPerDollar;
    const SweepRun reference = swept(runSweep(stream(path), "market-maker", grid(), {0, 1}, 1, lat));
    int traded = 0;
    std::int64_t refused = 0;
    for (const SweepPoint& p : reference.points) {
      auto made = makeStrategy("market-maker", p.params);
      QVERIFY(std::holds_alternative<std::unique_ptr<Strategy>>(made));
      const BacktestResult r = runBacktest(whole, *std::get<std::unique_ptr<Strategy>>(made), lat);
      char hash[24];
      std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(r.outputHash));
      QCOMPARE(p.outputHash, std::string(hash));
      QCOMPARE(p.summary.dump(), summaryJson(r.summary).dump());
      traded += r.summary.fills > 0 ? 1 : 0;
      refused += r.summary.ordersRejected;
    }
    QVERIFY(traded > 0);
    QVERIFY(refused > 0);  // the cash limit refused bids (python/tests check that fees are paid)
    QCOMPARE(sweepJson(reference)["fee_ppm"].get<int>(), 20'000);
    QCOMPARE(sweepJson(reference)["cash"].get<Money>(), 150 * kMicrosPerDollar);
    const auto n = static_cast<std::int64_t>(whole.inputs.size());
    for (std::int64_t chunk : {std::int64_t{7}, n - 1, n}) {
      for (int jobs : {1, 2, 5}) {
        std::vector<double> progress;
        const SweepRun r = swept(runSweep(stream(path, chunk), "market-maker", grid(), {0, 1}, jobs, lat,
                                          [&](double f) { progress.push_back(f); }));
        QVERIFY2(dump(r) == dump(reference), qPrintable(QString("chunk %1, jobs %2").arg(chunk).arg(jobs)));
        QCOMPARE(r.history, reference.history);
        QVERIFY(!progress.empty() && progress.back() == 1.0);
        QVERIFY(std::is_sorted(progress.begin(), progress.end()));
      }
    }
    QCOMPARE(reference.history.substr(0, reference.history.find(',')), "inputs=" + std::to_string(n));
  }

  void badPointsAreReportedNotFatal() {
    const std::string path = dir_.filePath("h6.db").toStdString();
    writeSimulated(path, 6);
    const auto g = std::get<SweepGrid>(parseSweepGrid(
        nlohmann::json::parse(R"({"base": {"cluster": "harbor-us-west-h100-b"}, "grid": {"spread": [0.02, 7]}})")));
    const SweepRun r = swept(runSweep(stream(path), "market-maker", g, {0, 1}, 2, {}));
    QCOMPARE(r.points.size(), std::size_t{2});
    QVERIFY(r.points[0].error.empty());
    QVERIFY(r.points[1].error.find("spread") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "test_sweep.moc"
