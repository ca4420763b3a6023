// The backtest strategy `procure` (core/procure through backtest/strategies/ProcureStrategy):
// on a hand-made history whose outcome can be worked out by hand, it keeps six H100 GPUs held
// for every hour of a rolling day through its fills, a cancelled listing and a provider that
// withdraws its capacity (a node failure) and lists it again later; and `tessera-backtest run`
// prints its cost against buying the first day upfront.
#include "HandMadeHistory.h"

#include "backtest/BacktestCommand.h"
#include "backtest/History.h"
#include "backtest/StrategyRegistry.h"
#include "core/engine/EventJson.h"
#include "core/procure/Procurement.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace tessera;
using namespace tessera::backtest;
using tessera::testing::HandMadeHistory;

namespace {

constexpr std::int64_t kHour = 3'600'000'000LL;

BacktestResult run(const History& h, const nlohmann::json& params) {
  auto made = makeStrategy("procure", params);
  if (auto* e = std::get_if<std::string>(&made)) qFatal("%s", e->c_str());
  ReplayConfig cfg;
  cfg.latency.orderEntry = LatencyDistribution::fixed(100);
  if (qEnvironmentVariableIsSet("TESSERA_TEST_LOG"))
    cfg.onApply = [&](std::int64_t t, const InputEvent& in, bool own, const std::vector<Event>& out) {
      if (!own) return;
      qInfo("%lld %s", static_cast<long long>(t), toJson(in, h.accounts).dump().c_str());
      for (const auto& e : out) qInfo("   -> %s", toJson(e, h.accounts).dump().c_str());
    };
  return runBacktest(h, *std::get<std::unique_ptr<Strategy>>(made), cfg);
}

// What the strategy's fills made it hold on clusters 1 and 2 (the H100s) in [from, to).
std::vector<GpuCount> held(const BacktestResult& r, Hour from, Hour to) {
  std::vector<HeldContract> contracts;
  for (const Fill& f : r.fills)
    contracts.push_back({f.contract, f.cluster, f.gpus, f.start, f.end, f.side == Side::Buy, 0});
  return heldShape(
      contracts, [](ClusterId c) { return c == 1 || c == 2; }, from, to);
}

}  // namespace

class TestProcureStrategy : public QObject {
  Q_OBJECT
 private slots:
  // Fails if the round ignores the constraints (ProcurementTarget::counts returning true): it
  // buys the cheap L40S listing instead of the H100s. Fails if a round does not wait for the
  // last round's answers or counts an order twice (the shape is then above 6 somewhere), or if
  // a round stops buying after a round that found nothing (hour 28 stays short).
  void holdsSixThroughCancelsAndAWithdrawal() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);
    m.cluster(2, Accelerator::H100, 4);
    m.cluster(3, Accelerator::L40S, 4);
    const OrderId first = m.order(100, "p1", Side::Sell, 1, 8, 0, 12, 2.00);
    m.order(150, "p2", Side::Sell, 2, 8, 0, 60, 2.40);  // above the limit all along
    m.order(160, "p3", Side::Sell, 3, 8, 0, 60, 0.80);  // cheap, but not an H100
    // The first round (a second after the start) buys [0, 12) on c1; [12, 24) is short.
    m.clock(kHour, 1);
    m.add(kHour + 500, CancelRequest{first, m.account("p1")});  // the rest of the first listing
    m.clock(2 * kHour, 2);
    const OrderId cheaper = m.order(2 * kHour + 500, "p1", Side::Sell, 1, 8, 12, 40, 2.10);
    m.clock(3 * kHour, 3);                                            // buys [12, 27)
    m.add(3 * kHour + 500, CancelRequest{cheaper, m.account("p1")});  // p1's nodes fail: withdrawn
    m.clock(4 * kHour, 4);                                            // hour 27 short, nothing offered
    m.order(4 * kHour + 500, "p1", Side::Sell, 1, 8, 20, 60, 2.20);   // and come back
    m.clock(5 * kHour, 5);                                            // buys [27, 29)
    m.clock(6 * kHour, 6);                                            // buys [29, 30)
    const nlohmann::json p = {
        {"accelerators", {"H100"}}, {"gpus", 6}, {"horizon_hours", 24}, {"max_price", 2.30}, {"every_hours", 1}};
    const BacktestResult r = run(m.h, p);
    QVERIFY2(r.setupError.empty(), r.setupError.c_str());
    const Hour start = HandMadeHistory::kStart;
    // Held every hour from the first to the last horizon's end, never more.
    QCOMPARE(held(r, start, start + 6 + 24), std::vector<GpuCount>(30, 6));
    for (const Fill& f : r.fills) QVERIFY(f.cluster != 3);
    QCOMPARE(r.notes.size(), std::size_t(2));
    QCOMPARE(r.notes[0], std::string("procure: held 6 GPUs in 6 of 6 delivery hours"));
    // First day: [0, 12) at $2.00 and [12, 24) at $2.10 bought later, against the opening
    // book's $2.00 and $2.40.
    QCOMPARE(r.notes[1], std::string("procure: the first 24 h cost $295.20 net of sell-backs; buying all 144 "
                                     "GPU-hours upfront at the opening book would have cost $316.80 (saved $21.60)"));
  }

  // A provider's outage takes the strategy's GPUs for three hours (the whole cluster is down, so
  // the outage rule gives its contract all six); the replay tells the strategy, as the
  // exchange's positions would, and the next round buys those hours again on the other cluster.
  // Fails if the replay does not apply outages (History.cpp: feedAfterReports skipping
  // replay.outage) or procure ignores onContractLoss: nothing is bought on cluster 2.
  void buysBackWhatAnOutageTook() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);
    m.cluster(2, Accelerator::H100, 4);
    m.order(100, "p1", Side::Sell, 1, 6, 0, 48, 2.00);  // all p1 lists: nothing left on c1 once bought
    m.order(150, "p2", Side::Sell, 2, 8, 0, 60, 2.20);
    // The first round (a second after the start) buys [0, 24) on c1, the next [24, 25).
    m.clock(kHour, 1);
    m.outage(kHour + 500, "p1", 1, 3, 6, 32);  // cluster 1 down in hours [3, 6)
    m.clock(2 * kHour, 2);                     // buys [3, 6) again, on c2, and [25, 26) on c1
    m.clock(3 * kHour, 3);
    const nlohmann::json p = {
        {"accelerators", {"H100"}}, {"gpus", 6}, {"horizon_hours", 24}, {"max_price", 2.30}, {"every_hours", 1}};
    const BacktestResult r = run(m.h, p);
    QVERIFY2(r.setupError.empty(), r.setupError.c_str());
    const Hour s = HandMadeHistory::kStart;
    QCOMPARE(r.summary.lostGpuHours, std::int64_t(6 * 3));
    std::vector<Fill> onC2;
    for (const Fill& f : r.fills)
      if (f.cluster == 2) onC2.push_back(f);
    QCOMPARE(onC2.size(), std::size_t(1));
    QCOMPARE(onC2[0].start, s + 3);
    QCOMPARE(onC2[0].end, s + 6);
    QCOMPARE(onC2[0].gpus, 6);
    QVERIFY(onC2[0].side == Side::Buy);
    // Held, outage counted: six in every hour of the last horizon [3, 27).
    std::vector<HeldContract> contracts;
    for (const Fill& f : r.fills) {
      contracts.push_back({f.contract, f.cluster, f.gpus, f.start, f.end, f.side == Side::Buy, 0});
      if (f.cluster == 1 && f.start <= s + 3 && f.end >= s + 6) contracts.back().lost = {{s + 3, s + 6, 6}};
    }
    QCOMPARE(heldShape(
                 contracts, [](ClusterId c) { return c == 1 || c == 2; }, s, s + 27),
             std::vector<GpuCount>(27, 6));
  }

  // Over the target, what is over is sold back from the newest contract covering the hours when
  // a bid pays at least the floor, and kept (and said so) where none does.
  // Fails if sell-backs ignore the floor (Procurement.cpp: `takeable` for bids counting every
  // level): the hours [9, 13) are sold to the bid below the floor too.
  void sellsBackWhatIsOverAboveTheFloorOnly() {
    HandMadeHistory m;
    const Cluster c1 = m.cluster(1, Accelerator::H100, 4);
    const Hour s = HandMadeHistory::kStart;
    // Held: 6 GPUs for [0, 24) (contract 1) and 2 more for [0, 24) (contract 2, newer).
    const std::vector<HeldContract> contracts = {{1, 1, 6, s, s + 24, true, 0}, {2, 1, 2, s, s + 24, true, 0}};
    ProcurementTarget t;
    t.gpus = 6;
    t.horizonHours = 12;
    t.leadHours = 1;
    t.cluster = 1;
    t.limit = 2'300'000;
    t.sellFloor = 2'500'000;
    // Bids for two GPUs: at $2.60 in hours [5, 9), at $2.10 in hours [9, 13).
    const auto book = [&](ClusterId, Hour h, Side side) {
      std::vector<BookLevel> l;
      if (side == Side::Buy && h >= s + 5 && h < s + 9) l.push_back({2'600'000, 2, 1, {}});
      if (side == Side::Buy && h >= s + 9 && h < s + 13) l.push_back({2'100'000, 2, 1, {}});
      return l;
    };
    const ProcurementRound round = planProcurement(t, s, {c1}, contracts, book);
    QCOMPARE(round.overGpuHours, std::int64_t(2 * 12));
    QCOMPARE(round.missingGpuHours, std::int64_t(0));
    QCOMPARE(round.orders.size(), std::size_t(1));
    const ProcurementOrder& o = round.orders.front();
    QVERIFY(o.side == Side::Sell);
    QCOMPARE(o.gpus, 2);
    QCOMPARE(o.start, s + 5);
    QCOMPARE(o.end, s + 9);
    QCOMPARE(o.sellBack, ContractId(2));
    QCOMPARE(o.limit, Price(2'500'000));
    QVERIFY(o.request().tif == TimeInForce::IOC);
    const std::vector<std::string> lines = round.describe({c1});
    const auto has = [&](const std::string& text) {
      return std::any_of(lines.begin(), lines.end(),
                         [&](const std::string& l) { return l.find(text) != std::string::npos; });
    };
    QVERIFY(has("hold 8; selling back 2"));
    QVERIFY(has("keeping 2 over the target (no bid at or above $2.50)"));
    QVERIFY(has("order: sell back 2 GPUs on cluster 1 (c1), "));
    // The step function the round saw: 8 for the whole horizon.
    QCOMPARE(heldSteps(round.held, round.from), (std::vector<HeldStep>{{s + 1, s + 13, 8}}));
  }

  // `tessera-backtest run --strategy procure` on a generated market prints the two report lines.
  void theCommandPrintsTheComparison() {
    QTemporaryDir dir;
    const std::string h = dir.path().toStdString() + "/h.db", params = dir.path().toStdString() + "/p.json";
    auto run = [](std::vector<std::string> args, std::string& out) {
      args.insert(args.begin(), "tessera-backtest");
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      std::ostringstream o, e;
      const int code = runBacktestCommand(static_cast<int>(argv.size()), argv.data(), o, e);
      out = o.str() + e.str();
      return code;
    };
    std::string out;
    QVERIFY2(run({"generate", "--out", h, "--days", "2", "--seed", "5", "--quiet"}, out) == 0, out.c_str());
    QVERIFY2(out.find(" 0 provider outages") == std::string::npos, out.c_str());  // node failures recorded
    std::ofstream(params) << R"({"accelerators": ["H100"], "regions": ["us-east"], "gpus": 16, "horizon_hours": 24,
                                "max_price": 3.0, "sell_floor": 3.5})";
    QVERIFY2(run({"run", "--history", h, "--strategy", "procure", "--params", params, "--report",
                  dir.path().toStdString() + "/r"},
                 out) == 0,
             out.c_str());
    QVERIFY2(out.find("procure: held 16 GPUs in ") != std::string::npos, out.c_str());
    QVERIFY2(out.find("upfront at the opening book") != std::string::npos, out.c_str());
    std::ifstream summary(dir.path().toStdString() + "/r/summary.json");
    const nlohmann::json j = nlohmann::json::parse(summary);
    QCOMPARE(j["notes"].size(), std::size_t(2));
    QVERIFY(j["summary"].contains("lost_gpu_hours"));
  }
};

QTEST_GUILESS_MAIN(TestProcureStrategy)
#include "test_procure_strategy.moc"
