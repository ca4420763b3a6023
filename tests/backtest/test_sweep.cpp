// Parameter sweeps: grid order, shards that merge into exactly the single-run result,
// parallel runs equal to serial ones, and merges that refuse incomplete or mixed shards.
#include "backtest/History.h"
#include "backtest/SimulatedMarket.h"
#include "backtest/Sweep.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tessera;
using namespace tessera::backtest;

namespace {

History simulated(int hours) {
  History h;
  SimulatedMarketConfig cfg;
  cfg.seed = 21;
  cfg.clusterCount = 8;
  SimulatedMarket m(cfg, h.accounts);
  std::int64_t seq = 0;
  for (int i = 0; i < hours; ++i)
    for (auto& t : m.stepTimed()) h.inputs.push_back({++seq, t.timeMicros, std::move(t.event)});
  return h;
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
    const History h = simulated(30);
    LatencyModel lat{LatencyDistribution::fixed(100)};
    const SweepRun single = runSweep(h, "market-maker", grid(), {0, 1}, 1, lat);
    QCOMPARE(single.points.size(), std::size_t{12});
    int traded = 0;
    for (const auto& p : single.points) {
      QVERIFY2(p.error.empty(), p.error.c_str());
      traded += p.summary["fills"].get<int>() > 0 ? 1 : 0;
    }
    QVERIFY(traded > 0);  // the points actually trade, so equality below means something

    // In parallel on all cores: the same.
    QCOMPARE(dump(runSweep(h, "market-maker", grid(), {0, 1}, 0, lat)), dump(single));

    std::vector<std::string> files;
    for (int i = 0; i < 3; ++i) {
      const SweepRun shard = runSweep(h, "market-maker", grid(), {i, 3}, 2, lat);
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
    const SweepRun alien = runSweep(h, "market-maker", other, {0, 3}, 1, lat);
    const auto alienFile = (dir_.path() + "/alien.jsonl").toStdString();
    {
      std::ofstream f(alienFile);
      writeSweepShard(alien, f);
    }
    auto mixed = mergeSweepShards({files[0], files[1], alienFile});
    QVERIFY(std::holds_alternative<std::string>(mixed));
    QVERIFY(std::get<std::string>(mixed).find("different sweep") != std::string::npos);
  }

  void badPointsAreReportedNotFatal() {
    const History h = simulated(6);
    const auto g = std::get<SweepGrid>(parseSweepGrid(nlohmann::json::parse(
        R"({"base": {"cluster": "harbor-us-west-h100-b"}, "grid": {"spread": [0.02, 7]}})")));
    const SweepRun r = runSweep(h, "market-maker", g, {0, 1}, 2, {});
    QCOMPARE(r.points.size(), std::size_t{2});
    QVERIFY(r.points[0].error.empty());
    QVERIFY(r.points[1].error.find("spread") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestSweep)
#include "test_sweep.moc"
