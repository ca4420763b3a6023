// Latency models (backtest/Latency.h): the three channels' timing, parsing and refusals,
// byte-identical results for one seed, and a strategy losing fills as latency grows on a
// bursty generated history.
#include "HandMadeHistory.h"

#include "backtest/History.h"
#include "backtest/Latency.h"
#include "backtest/ReportWriter.h"
#include "backtest/SimulatedMarket.h"

#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace tessera;
using namespace tessera::backtest;
using tessera::testing::HandMadeHistory;

namespace {

History bursty(std::uint64_t seed, int hours, int burstSize) {
  History h;
  SimulatedMarketConfig cfg;
  cfg.seed = seed;
  cfg.activity = 2.0;
  cfg.burstSize = burstSize;
  cfg.burstGapMicros = 500;
  // Firm clusters only: the race is for firm listings, and the interruptible books' own flow
  // (and their sellers listing a quarter less on the firm books) is not what this measures.
  cfg.interruptibleSupply = false;
  SimulatedMarket m(cfg, h.accounts);
  std::int64_t seq = 0;
  for (int i = 0; i <= hours; ++i)
    for (auto& t : m.stepTimed()) h.inputs.push_back({++seq, t.timeMicros, std::move(t.event)});
  return h;
}

// Takes every new best offer it sees: an IOC buy of up to 8 GPUs for the offer's first hour at
// the offer's price. It races the history's own bidders for the same listings.
class Sniper final : public Strategy {
 public:
  std::string name() const override { return "sniper"; }
  void onBookUpdate(StrategyContext& ctx, const BookChange& c) override {
    if (c.side != Side::Sell) return;
    const auto best = ctx.depth(c.cluster, c.start, Side::Sell, 1);
    if (best.empty()) return;
    OrderRequest o;
    o.side = Side::Buy;
    o.cluster = c.cluster;
    o.gpus = std::min<GpuCount>(8, best.front().gpus);
    o.start = c.start;
    o.end = c.start + 1;
    o.limit = best.front().price;
    o.tif = TimeInForce::IOC;
    ctx.place(o);
  }
};

// Records when each callback reached it; sends one IOC buy on the first offer it sees.
class Clocked final : public Strategy {
 public:
  explicit Clocked(OrderRequest o) : order_(std::move(o)) {}
  std::string name() const override { return "clocked"; }
  void onBookUpdate(StrategyContext& ctx, const BookChange& c) override {
    bookAt.push_back(ctx.timeMicros());
    if (sent_ || c.side != Side::Sell) return;
    sent_ = true;
    ctx.place(order_);
  }
  void onOrderEvent(StrategyContext& ctx, const Event&) override { ackAt.push_back(ctx.timeMicros()); }
  void onOwnFill(StrategyContext& ctx, const Fill&) override { fillAt.push_back(ctx.timeMicros()); }
  void onTrade(StrategyContext& ctx, const Contract&) override { tradeAt.push_back(ctx.timeMicros()); }
  std::vector<std::int64_t> bookAt, ackAt, fillAt, tradeAt;

 private:
  OrderRequest order_;
  bool sent_ = false;
};

BacktestResult run(const History& h, Strategy& s, LatencyModel m) {
  ReplayConfig cfg;
  cfg.latency = std::move(m);
  return runBacktest(h, s, cfg);
}

LatencyDistribution parsed(const std::string& spec) {
  auto d = parseLatency(spec);
  if (auto* e = std::get_if<std::string>(&d)) qFatal("%s", e->c_str());
  return std::get<LatencyDistribution>(d);
}

}  // namespace

class TestLatency : public QObject {
  Q_OBJECT

 private slots:
  void eachChannelDelaysItsOwnMessages() {
    // A provider lists at +100 us. The strategy hears of it a market-data latency later, its buy
    // reaches the engine an order-entry latency after that, and it learns of its acceptance
    // and fill an acknowledgement latency after the engine made them. The trade on the tape
    // comes by market data. A later input keeps the history going past them all.
    HandMadeHistory hm;
    hm.cluster(1, Accelerator::H100, 1);
    hm.order(100, "p1", Side::Sell, 1, 8, 2, 4, 2.0);
    hm.clock(60'000'000, 1);
    LatencyModel m;
    m.orderEntry = LatencyDistribution::fixed(200);
    m.ack = LatencyDistribution::fixed(3'000);
    m.marketData = LatencyDistribution::fixed(1'000);
    Clocked s(HandMadeHistory::buy(1, 8, 2, 4, 2.0, TimeInForce::IOC));
    const BacktestResult r = run(hm.h, s, m);
    QCOMPARE(r.summary.fills, std::int64_t{1});
    const std::int64_t t0 = HandMadeHistory::kT0;
    QVERIFY(!s.bookAt.empty());
    QCOMPARE(s.bookAt.front(), t0 + 100 + 1'000);                 // market data
    QCOMPARE(s.ackAt.front(), t0 + 100 + 1'000 + 200 + 3'000);    // accepted: entry + ack
    QCOMPARE(s.fillAt.front(), t0 + 100 + 1'000 + 200 + 3'000);   // own fill: same message
    QCOMPARE(s.tradeAt.front(), t0 + 100 + 1'000 + 200 + 1'000);  // the tape: market data
  }

  void parsesEachFormAndRefusesTheRest() {
    QCOMPARE(parsed("250").fixedMicros, std::int64_t{250});
    QCOMPARE(parsed("fixed:0").describe(), std::string("fixed:0"));
    QCOMPARE(parsed("exp:50").describe(), std::string("exp:50"));
    QCOMPARE(parsed("lognormal:100,0.5").describe(), std::string("lognormal:100,0.5"));
    const auto dir = std::filesystem::temp_directory_path() / ("tessera_latency_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
      std::ofstream(dir / "measured.txt") << "# one per line, microseconds\n120\n\n340\n95\n";
      std::ofstream(dir / "bad.txt") << "120\n-3\n";
      std::ofstream(dir / "empty.txt") << "# nothing\n";
    }
    const LatencyDistribution f = parsed("file:" + (dir / "measured.txt").string());
    QCOMPARE(f.samples, (std::vector<std::int64_t>{120, 340, 95}));
    QVERIFY(f.describe().rfind("file:measured.txt#n=3,fnv=", 0) == 0);
    for (const std::string& bad :
         std::vector<std::string>{"-5", "fixed:-1", "1.5", "exp:-2", "lognormal:100", "lognormal:-1,0.5", "gamma:3",
                                  "soon", "", "file:" + (dir / "bad.txt").string(),
                                  "file:" + (dir / "empty.txt").string(), "file:" + (dir / "none.txt").string()})
      QVERIFY2(std::holds_alternative<std::string>(parseLatency(bad)), bad.c_str());
    QVERIFY(std::get<std::string>(parseLatency((std::string("file:") + (dir / "bad.txt").string()))).find(":2:") !=
            std::string::npos);
    std::filesystem::remove_all(dir);
  }

  void drawsFollowTheirDistribution() {
    // A channel's draws have the distribution's centre, and never let a message overtake an
    // earlier one.
    LatencyChannel expo(parsed("exp:1000"), 7, 1), logn(parsed("lognormal:500,0.8"), 7, 2);
    double sum = 0;
    std::vector<std::int64_t> lat;
    std::int64_t last = 0;
    for (int i = 0; i < 20'000; ++i) {
      const std::int64_t sent = std::int64_t{i} * 10'000;
      sum += static_cast<double>(expo.arrival(sent) - sent);
      const std::int64_t at = logn.arrival(sent);
      QVERIFY(at >= last);
      last = at;
      lat.push_back(at - sent);
    }
    QVERIFY2(std::abs(sum / 20'000 - 1000) < 40, qPrintable(QString::number(sum / 20'000)));
    std::nth_element(lat.begin(), lat.begin() + 10'000, lat.end());
    QVERIFY2(std::abs(lat[10'000] - 500) < 25, qPrintable(QString::number(lat[10'000])));
  }

  void aStrategyLosesFillsAsLatencyGrowsOnABurstyHistory() {
    // Arrivals come in bursts of 32, 500 us apart: the sniper races the burst's own bidders for
    // each new offer. At 0 it is first; at 1 ms the burst's next two orders go before it; at
    // 50 ms the whole rest of the burst does. Its fills fall, and fall further.
    // Mutation seen failing: Replay::send using time_ instead of the order channel's arrival
    // (every latency then fills the same); and notify() calling at once whatever the
    // market-data latency (the market-data rows then fill the same).
    const History h = bursty(11, 48, 32);
    std::vector<std::int64_t> byOrderEntry, byMarketData;
    for (std::int64_t lat : {0, 1'000, 50'000}) {
      Sniper a, b;
      LatencyModel entry, md;
      entry.orderEntry = LatencyDistribution::fixed(lat);
      md.marketData = LatencyDistribution::fixed(lat);
      byOrderEntry.push_back(run(h, a, entry).summary.filledGpuHours);
      byMarketData.push_back(run(h, b, md).summary.filledGpuHours);
    }
    const QString seen = QString("order entry %1 %2 %3, market data %4 %5 %6")
                             .arg(byOrderEntry[0])
                             .arg(byOrderEntry[1])
                             .arg(byOrderEntry[2])
                             .arg(byMarketData[0])
                             .arg(byMarketData[1])
                             .arg(byMarketData[2]);
    qInfo("filled GPU-hours at 0, 1 ms, 50 ms: %s", qPrintable(seen));
    for (const auto* v : {&byOrderEntry, &byMarketData}) {
      QVERIFY2((*v)[0] > 0, qPrintable(seen));
      QVERIFY2((*v)[1] < (*v)[0], qPrintable(seen));
      QVERIFY2((*v)[2] < (*v)[1], qPrintable(seen));
    }
  }

  void theSameSeedGivesByteIdenticalResults() {
    const History h = bursty(5, 24, 32);
    auto once = [&](std::uint64_t seed) {
      LatencyModel m;
      m.orderEntry = parsed("lognormal:800,0.7");
      m.ack = parsed("exp:300");
      m.marketData = parsed("exp:500");
      m.seed = seed;
      Sniper s;
      const BacktestResult r = run(h, s, m);
      RunInfo info{"bursty", "sniper", nlohmann::json::object(), m, 0};
      return resultJson(r, info).dump();
    };
    const std::string a = once(3), b = once(3), c = once(4);
    QCOMPARE(a, b);
    QVERIFY(a != c);  // the draws do matter
    QVERIFY(a.find("lognormal:800,0.7") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestLatency)
#include "test_latency.moc"
