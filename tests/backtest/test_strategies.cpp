// Each built-in strategy on a small hand-made history whose outcome can be worked out by hand.
#include "HandMadeHistory.h"

#include "backtest/History.h"
#include "backtest/StrategyRegistry.h"
#include "backtest/strategies/JobPlannerStrategy.h"
#include "core/engine/EventJson.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::backtest;
using tessera::testing::HandMadeHistory;

namespace {

BacktestResult run(const History& h, const std::string& name, const nlohmann::json& params,
                   std::int64_t latency = 100) {
  auto made = makeStrategy(name, params);
  if (auto* e = std::get_if<std::string>(&made)) qFatal("%s", e->c_str());
  ReplayConfig cfg;
  cfg.latency.orderEntry = LatencyDistribution::fixed(latency);
  if (qEnvironmentVariableIsSet("TESSERA_TEST_LOG"))
    cfg.onApply = [&](std::int64_t t, const InputEvent& in, bool own, const std::vector<Event>& out) {
      if (!own) return;
      qInfo("%lld %s", static_cast<long long>(t), toJson(in, h.accounts).dump().c_str());
      for (const auto& e : out) qInfo("   -> %s", toJson(e, h.accounts).dump().c_str());
    };
  return runBacktest(h, *std::get<std::unique_ptr<Strategy>>(made), cfg);
}

constexpr std::int64_t kHour = 3'600'000'000LL;

}  // namespace

class TestStrategies : public QObject {
  Q_OBJECT
 private slots:
  void standingBidFillsWhenTheAverageIsLowEnough() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 16);                       // 128 GPUs: room for both listings
    m.order(100, "p1", Side::Sell, 1, 64, 10, 30, 2.60);       // too dear at first
    m.order(kHour + 10, "other", Side::Buy, 1, 8, 2, 3, 1.0);  // trading starts: the strategy starts
    m.clock(2 * kHour, 2);
    m.order(2 * kHour + 500, "p1", Side::Sell, 1, 64, 20, 50, 2.40);  // a cheaper listing later
    m.clock(3 * kHour, 3);
    m.clock(4 * kHour, 4);
    const nlohmann::json p = {
        {"cluster", "c1"}, {"gpus", 64}, {"hours", 24}, {"max_price", 2.50}, {"deadline_hours", 72}};
    const auto r = run(m.h, "standing-bid", p);
    QCOMPARE(r.summary.boughtGpuHours, 64 * 24);
    QCOMPARE(r.summary.averagePaid, 2'400'000);
    QCOMPARE(r.summary.unfilledDemandGpuHours, 0);
    QCOMPARE(r.summary.effectiveCostPerUsefulGpuHour, 2'400'000);
    for (const auto& c : r.contracts) {
      QVERIFY(c.start >= HandMadeHistory::kStart + 20);
      QVERIFY(c.end <= HandMadeHistory::kStart + 44 + 6);
    }

    // With a lower limit, nothing fills and the whole run is unfilled demand.
    nlohmann::json low = p;
    low["max_price"] = 2.30;
    const auto none = run(m.h, "standing-bid", low);
    QCOMPARE(none.summary.boughtGpuHours, 0);
    QCOMPARE(none.summary.unfilledDemandGpuHours, 64 * 24);
    QCOMPARE(none.summary.ordersPlaced, 1);  // one standing bid, not one per hour
  }

  void calendarBuysTheBlockAndSellsBackTheMiddle() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);  // 32 GPUs
    m.order(100, "p1", Side::Sell, 1, 32, 24, 120, 2.00);
    m.order(200, "other", Side::Buy, 1, 1, 1, 2, 0.5);  // trading starts
    m.clock(kHour, 1);
    // Later a buyer wants exactly the hours the strategy sells back, and pays up.
    m.order(kHour + 500, "bella", Side::Buy, 1, 32, 72, 96, 2.20);
    m.clock(2 * kHour, 2);
    const nlohmann::json p = {{"cluster", "c1"},       {"gpus", 32},         {"start_in_hours", 24},
                              {"hours", 96},           {"max_price", 2.10},  {"sell_back_from_hours", 48},
                              {"sell_back_hours", 24}, {"sell_markup", 0.05}};
    const auto r = run(m.h, "calendar", p);
    QCOMPARE(r.summary.boughtGpuHours, 32 * 96);
    QCOMPARE(r.summary.soldGpuHours, 32 * 24);
    QCOMPARE(r.summary.spent, Money{2'000'000} * 32 * 96);
    QCOMPARE(r.summary.received, Money{2'100'000} * 32 * 24);  // the ask: paid + 5%
    QCOMPARE(r.summary.usefulGpuHours, 32 * 72);
    QCOMPARE(r.summary.unfilledDemandGpuHours, 0);
    // (spent - received) / useful = (2.00*96 - 2.10*24) / 72 dollars
    QCOMPARE(r.summary.effectiveCostPerUsefulGpuHour, (Money{2'000'000} * 96 - Money{2'100'000} * 24) / 72);
  }

  void marketMakerBuysTheBidAndSellsTheAsk() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);
    // A book around $2.10 for the hours the maker quotes ([12, 16) after start).
    m.order(100, "bob", Side::Buy, 1, 8, 12, 16, 2.00);
    m.order(200, "p1", Side::Sell, 1, 8, 12, 16, 2.20);
    // The maker (hours_ahead 12 from hour 0) bids 2.10 * 0.98 = 2.058 for [12, 16).
    m.order(1000, "p1", Side::Sell, 1, 8, 12, 16, 2.05, FillStyle::Divisible, TimeInForce::IOC);
    m.clock(kHour, 1);
    // At hour 1 it offers the block it holds at 2.10 * 1.02 = 2.142, ahead of p1's 2.20.
    m.order(kHour + 1000, "carl", Side::Buy, 1, 8, 12, 16, 2.30, FillStyle::Divisible, TimeInForce::IOC);
    m.clock(2 * kHour, 2);
    const nlohmann::json p = {{"cluster", "c1"},   {"gpus", 8},      {"hours_ahead", 12},
                              {"window_hours", 4}, {"spread", 0.04}, {"max_inventory_gpus", 8}};
    const auto r = run(m.h, "market-maker", p);
    QCOMPARE(r.summary.boughtGpuHours, 32);
    QCOMPARE(r.summary.soldGpuHours, 32);
    QCOMPARE(r.summary.spent, Money{2'058'000} * 32);
    QCOMPARE(r.summary.received, Money{2'142'000} * 32);
    QCOMPARE(r.summary.finalCash, Money{84'000} * 32);
    QCOMPARE(r.summary.finalEquity, r.summary.finalCash);  // flat: nothing left to mark
  }

  void plannerTakesTheLeastEffectiveCost() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);                         // $2.40 on InfiniBand
    m.cluster(2, Accelerator::L40S, 4, FabricClass::Ethernet);  // $0.90, but slow for 16 GPUs
    m.cluster(3, Accelerator::H100, 1);                         // $2.20, but only 8 GPUs
    m.order(100, "p1", Side::Sell, 1, 32, 2, 60, 2.40);
    m.order(110, "p2", Side::Sell, 2, 32, 2, 60, 0.90);
    m.order(120, "p3", Side::Sell, 3, 8, 2, 60, 2.20);
    m.order(200, "other", Side::Buy, 1, 1, 1, 2, 0.5);  // trading starts
    m.clock(kHour, 1);
    m.clock(2 * kHour, 2);
    const nlohmann::json p = {
        {"jobs",
         {{{"name", "train"}, {"gpus", 16}, {"hours", 10}, {"deadline_hours", 40}},
          {{"name", "eval"}, {"gpus", 4}, {"hours", 5}, {"deadline_hours", 40}, {"accelerators", {"L40S"}}}}}};
    const auto r = run(m.h, "planner", p);
    QCOMPARE(r.summary.unfilledDemandGpuHours, 0);
    QCOMPARE(r.summary.boughtGpuHours, 16 * 10 + 4 * 5);
    bool trainOnH100 = false, evalOnL40S = false;
    for (const auto& c : r.contracts) {
      if (c.gpus == 16 && c.cluster == 1) trainOnH100 = true;
      if (c.gpus == 4 && c.cluster == 2) evalOnL40S = true;
    }
    QVERIFY(trainOnH100);
    QVERIFY(evalOnL40S);
    // Effective cost: the L40S fabric penalty makes 0.90 dearer than 2.40 for a 16-GPU run.
    Cluster l40s;
    l40s.accelerator = Accelerator::L40S;
    l40s.fabric = FabricClass::Ethernet;
    l40s.gpusPerNode = 8;
    Cluster h100;
    QVERIFY(0.90 / relativeThroughput(l40s, 16) > 2.40 / relativeThroughput(h100, 16));
  }

  void badParametersAreExplained() {
    auto r = makeStrategy("standing-bid", {{"gpus", "many"}, {"colour", "red"}});
    QVERIFY(std::holds_alternative<std::string>(r));
    const auto& msg = std::get<std::string>(r);
    QVERIFY(msg.find("gpus") != std::string::npos);
    QVERIFY(msg.find("unknown parameter 'colour'") != std::string::npos);
    QVERIFY(msg.find("max_price: required") != std::string::npos);
    QVERIFY(std::holds_alternative<std::string>(makeStrategy("moon", {})));
    QVERIFY(std::holds_alternative<std::string>(makeStrategy("planner", {{"jobs", nlohmann::json::array()}})));
    for (const auto& s : builtInStrategies())
      QVERIFY2(std::holds_alternative<std::unique_ptr<Strategy>>(makeStrategy(s.name, s.exampleParams)),
               s.name.c_str());
  }

  // The built-in strategies register themselves from their own files (no central list): all
  // five are there, once each, in name order; a second registration of a name and example
  // parameters that are not JSON are refused with a reason, and change nothing.
  // Fails if registerStrategy accepts a name twice (the list then holds two "noop").
  void strategiesRegisterThemselvesOnce() {
    std::vector<std::string> names;
    for (const auto& s : builtInStrategies()) names.push_back(s.name);
    QCOMPARE(names, (std::vector<std::string>{"calendar", "market-maker", "noop", "option-buyer", "planner", "procure",
                                              "standing-bid"}));
    QVERIFY(registrationErrors().empty());
    auto noop = [](const nlohmann::json&) -> MadeStrategy { return std::string("never made"); };
    QVERIFY(!registerStrategy("noop", "a second noop", "{}", noop));
    QVERIFY(registrationErrors().back().find("'noop' is registered twice") != std::string::npos);
    QVERIFY(!registerStrategy("fresh", "bad example", "{not json", noop));
    QVERIFY(registrationErrors().back().find("not valid JSON") != std::string::npos);
    QCOMPARE(builtInStrategies().size(), names.size());
    QVERIFY(std::holds_alternative<std::unique_ptr<Strategy>>(makeStrategy("noop", {})));
  }
};

QTEST_GUILESS_MAIN(TestStrategies)
#include "test_strategies.moc"
