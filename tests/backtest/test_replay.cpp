// Replay: deterministic output, the latency model, and queue position behind resting orders.
#include "HandMadeHistory.h"

#include "backtest/History.h"
#include "backtest/SimulatedMarket.h"
#include "backtest/StrategyRegistry.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::backtest;
using tessera::testing::HandMadeHistory;

namespace {

History simulated(std::uint64_t seed, int hours) {
  History h;
  SimulatedMarketConfig cfg;
  cfg.seed = seed;
  SimulatedMarket m(cfg, h.accounts);
  std::int64_t seq = 0;
  for (int i = 0; i < hours; ++i)
    for (auto& t : m.stepTimed()) h.inputs.push_back({++seq, t.timeMicros, std::move(t.event)});
  return h;
}

BacktestResult run(const History& h, const std::string& name, const nlohmann::json& params, std::int64_t latency = 0) {
  auto made = makeStrategy(name, params);
  if (auto* e = std::get_if<std::string>(&made)) qFatal("%s", e->c_str());
  ReplayConfig cfg;
  cfg.latency.orderEntry = LatencyDistribution::fixed(latency);
  return runBacktest(h, *std::get<std::unique_ptr<Strategy>>(made), cfg);
}

// Reacts once to the first book change on `side` by sending one order.
class OneShot final : public Strategy {
 public:
  OneShot(Side watch, OrderRequest o) : watch_(watch), order_(std::move(o)) {}
  std::string name() const override { return "one-shot"; }
  void onBookUpdate(StrategyContext& ctx, const BookChange& c) override {
    if (sent_ || c.side != watch_) return;
    sent_ = true;
    sentAt = ctx.timeMicros();
    ctx.place(order_);
  }
  void onOwnFill(StrategyContext& ctx, const Fill& f) override {
    fills.push_back(f);
    fillTimes.push_back(ctx.timeMicros());
  }
  void onTimer(StrategyContext& ctx, int id) override { timers.push_back({id, ctx.timeMicros()}); }
  void onStart(StrategyContext& ctx) override {
    for (const auto& [at, id] : timersToSet) ctx.setTimer(at, id);
  }
  std::vector<Fill> fills;
  std::vector<std::int64_t> fillTimes;
  std::vector<std::pair<int, std::int64_t>> timers;
  std::vector<std::pair<std::int64_t, int>> timersToSet;  // (time, id), set in this order on start
  std::int64_t sentAt = 0;

 private:
  Side watch_;
  OrderRequest order_;
  bool sent_ = false;
};

}  // namespace

class TestReplay : public QObject {
  Q_OBJECT
 private slots:
  void sameInputSameOutputHash() {
    const History h = simulated(3, 36);
    const auto a = run(h, "noop", {});
    const auto b = run(h, "noop", {});
    QVERIFY(a.engineEvents > 5000);
    QCOMPARE(a.inputs, static_cast<std::int64_t>(h.inputs.size()));
    QCOMPARE(a.outputHash, b.outputHash);
    QCOMPARE(a.engineEvents, b.engineEvents);

    const nlohmann::json mm = {{"cluster", "harbor-us-west-h100-b"}, {"hours_ahead", 6}, {"spread", 0.02}};
    const auto m1 = run(h, "market-maker", mm, 250);
    const auto m2 = run(h, "market-maker", mm, 250);
    QVERIFY(m1.strategyActions > 0);
    QCOMPARE(m1.outputHash, m2.outputHash);
    QCOMPARE(m1.summary.finalEquity, m2.summary.finalEquity);
    QCOMPARE(m1.fills.size(), m2.fills.size());
    // The hash sees what the strategy did: trading changes it.
    QVERIFY(m1.outputHash != a.outputHash);
    // A different history gives a different hash.
    QVERIFY(run(simulated(4, 36), "noop", {}).outputHash != a.outputHash);
  }

  void latencyDecidesWhoGetsTheOffer() {
    // A listing at t=100us; a history buyer takes it at t=1000us. The strategy sees the
    // listing and sends an IOC buy that reaches the engine after its latency.
    auto make = [] {
      HandMadeHistory m;
      m.cluster(1, Accelerator::H100, 1);
      m.order(100, "p1", Side::Sell, 1, 8, 2, 4, 2.00);
      m.order(1000, "yves", Side::Buy, 1, 8, 2, 4, 2.00, FillStyle::Divisible, TimeInForce::IOC);
      return m;
    };
    struct Case {
      std::int64_t latency;
      bool strategyFills;
    };
    for (const Case c : {Case{500, true}, Case{899, true}, Case{900, false}, Case{2000, false}}) {
      auto m = make();
      OneShot s(Side::Sell, HandMadeHistory::buy(1, 8, 2, 4, 2.00, TimeInForce::IOC));
      ReplayConfig cfg;
      cfg.latency.orderEntry = LatencyDistribution::fixed(c.latency);
      const auto r = runBacktest(m.h, s, cfg);
      QCOMPARE(s.sentAt, HandMadeHistory::kT0 + 100);
      QVERIFY2(!s.fills.empty() == c.strategyFills, qPrintable(QString("latency %1").arg(c.latency)));
      if (c.strategyFills) {
        QCOMPARE(s.fillTimes.front(), HandMadeHistory::kT0 + 100 + c.latency);
        QCOMPARE(r.summary.boughtGpuHours, 16);
        QCOMPARE(r.summary.averagePaid, 2'000'000);
      } else {
        QCOMPARE(r.summary.boughtGpuHours, 0);
      }
    }
  }

  void strategyOrdersQueueBehindRestingOrders() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);
    m.order(100, "xena", Side::Buy, 1, 8, 2, 4, 2.00);  // rests first
    m.order(500, "zack", Side::Buy, 1, 8, 2, 4, 2.00);  // after the strategy's bid
    const OrderId s1 = m.order(1000, "p1", Side::Sell, 1, 8, 2, 4, 2.00);
    const OrderId s2 = m.order(2000, "p1", Side::Sell, 1, 8, 2, 4, 2.00);
    const OrderId s3 = m.order(3000, "p1", Side::Sell, 1, 8, 2, 4, 2.00);
    (void)s1;
    (void)s3;
    OneShot s(Side::Buy, HandMadeHistory::buy(1, 8, 2, 4, 2.00, TimeInForce::GTC));  // reacts to xena's bid
    ReplayConfig cfg;
    cfg.latency.orderEntry = LatencyDistribution::fixed(50);
    const auto r = runBacktest(m.h, s, cfg);
    QCOMPARE(s.fills.size(), std::size_t{1});
    QCOMPARE(s.fillTimes.front(), HandMadeHistory::kT0 + 2000);  // the second sell, not the first
    // The contract's seller order is the second listing.
    QCOMPARE(r.contracts.size(), std::size_t{1});
    QCOMPARE(r.contracts.front().sellOrder, s2);
    QCOMPARE(r.summary.fillRate, 1.0);
  }

  void timersFireInTimeOrderAfterEarlierHistory() {
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 1);
    m.order(100, "p1", Side::Sell, 1, 8, 2, 4, 2.00);
    m.order(5000, "p1", Side::Sell, 1, 8, 5, 6, 2.00);
    m.order(9000, "p1", Side::Sell, 1, 8, 7, 8, 2.00);
    OneShot s(Side::Buy, HandMadeHistory::buy(1, 1, 2, 3, 1.0, TimeInForce::GTC));
    // Set out of time order, two of them for the same moment. They fire in time order, the two
    // at one moment in the order they were set, each at its own time, among the history's
    // inputs. Fails if pending work goes by arrival alone (mutation: Pending::operator> in
    // backtest/Replay.h compares only `order`).
    constexpr std::int64_t t0 = HandMadeHistory::kT0;
    s.timersToSet = {{t0 + 8000, 3}, {t0 + 2000, 1}, {t0 + 5000, 2}, {t0 + 2000, 4}};
    runBacktest(m.h, s, {});
    const std::vector<std::pair<int, std::int64_t>> expected{
        {1, t0 + 2000}, {4, t0 + 2000}, {2, t0 + 5000}, {3, t0 + 8000}};
    QVERIFY(s.timers == expected);
  }

  // The exchange refuses a bid whose limit x GPUs x hours exceeds cash less what the account's
  // working bids hold; the replay does the same. Fails if the replay forgets the first bid's
  // reservation (seen failing with reservedByWorkingBids() returning 0).
  void bidsBeyondCashAreRefusedAsOnTheExchange() {
    class TwoBids final : public Strategy {
     public:
      std::string name() const override { return "two-bids"; }
      void onStart(StrategyContext& ctx) override {
        first = ctx.place(HandMadeHistory::buy(1, 8, 2, 4, 3.50, TimeInForce::GTC));   // holds $56
        second = ctx.place(HandMadeHistory::buy(1, 8, 2, 4, 3.50, TimeInForce::GTC));  // $56 more: over $100
      }
      void onOrderEvent(StrategyContext&, const Event& e) override {
        if (const auto* r = std::get_if<OrderRejected>(&e)) rejected.push_back(*r);
        if (const auto* a = std::get_if<OrderAccepted>(&e)) accepted.push_back(a->order);
      }
      OrderId first = 0, second = 0;
      std::vector<OrderRejected> rejected;
      std::vector<OrderId> accepted;
    };
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);
    m.order(100, "xena", Side::Buy, 1, 8, 2, 4, 2.00);
    m.clock(1000, 1);
    TwoBids s;
    ReplayConfig cfg;
    cfg.startingCash = 100 * kMicrosPerDollar;
    const auto r = runBacktest(m.h, s, cfg);
    QCOMPARE(s.accepted, std::vector<OrderId>{s.first});
    QCOMPARE(s.rejected.size(), std::size_t{1});
    QCOMPARE(s.rejected.front().order, s.second);
    QVERIFY(s.rejected.front().reason == RejectReason::InsufficientCash);
    QCOMPARE(QString::fromStdString(s.rejected.front().detail), QString("the bid needs $56.00, $44.00 is available"));
    QCOMPARE(r.summary.ordersRejected, std::int64_t{1});
    // Without a cash limit both stand.
    TwoBids unlimited;
    runBacktest(m.h, unlimited, ReplayConfig{});
    QCOMPARE(unlimited.accepted.size(), std::size_t{2});
  }

  // A strategy sees the market's trades as a live one does: the public tape names no parties,
  // orders or contract. Fails if the replay hands onTrade the engine's contract.
  void tradesCarryWhatThePublicTapeCarries() {
    class Tape final : public Strategy {
     public:
      std::string name() const override { return "tape"; }
      void onTrade(StrategyContext&, const Contract& k) override { seen.push_back(k); }
      std::vector<Contract> seen;
    };
    HandMadeHistory m;
    m.cluster(1, Accelerator::H100, 4);
    m.order(50, "p1", Side::Sell, 1, 8, 2, 4, 2.20);
    m.order(60, "yves", Side::Buy, 1, 8, 2, 4, 2.20);
    m.order(70, "zack", Side::Buy, 1, 1, 9, 10, 1.00);  // the strategy starts once trading does
    Tape s;
    runBacktest(m.h, s, ReplayConfig{});
    QCOMPARE(s.seen.size(), std::size_t{1});
    const Contract& k = s.seen.front();
    QCOMPARE(k.price, Price{2'200'000});
    QCOMPARE(k.gpus, GpuCount{8});
    QCOMPARE(k.cluster, ClusterId{1});
    QVERIFY(k.trade != 0);
    QCOMPARE(k.id, ContractId{0});
    QCOMPARE(k.buyer, AccountId{0});
    QCOMPARE(k.seller, AccountId{0});
    QCOMPARE(k.buyOrder, OrderId{0});
    QCOMPARE(k.sellOrder, OrderId{0});
  }

  void cancelStopsTheReplay() {
    const History h = simulated(3, 12);
    std::atomic<bool> stop{true};
    ReplayConfig cfg;
    cfg.cancel = &stop;
    NoopStrategyHolder holder;
    const auto r = runBacktest(h, holder.s, cfg);
    QVERIFY(r.cancelled);
    QCOMPARE(r.inputs, 0);
  }

 private:
  struct NoopStrategyHolder {
    class S final : public Strategy {
     public:
      std::string name() const override { return "noop"; }
    } s;
  };
};

QTEST_GUILESS_MAIN(TestReplay)
#include "test_replay.moc"
