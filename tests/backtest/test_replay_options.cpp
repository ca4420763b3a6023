// Options in the backtester: a strategy buys a call and writes a put through the strategy API,
// the replay's dealer fills them, premiums move at the trade, and the options settle on the
// delivery month's average next-day index, with money conserved on the option ledger.
#include "HandMadeHistory.h"

#include "backtest/Replay.h"
#include "backtest/ReportWriter.h"
#include "backtest/StrategyRegistry.h"
#include "core/options/OptionSeries.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::backtest;
using namespace tessera::indexoptions;
using tessera::testing::HandMadeHistory;

namespace {

constexpr std::int64_t kHour = 3'600'000'000LL;
constexpr Price kBefore = 2'000'000;  // $2.00: the next-day index until a day before February
constexpr Price kDuring = 2'500'000;  // $2.50: every hour of February
constexpr std::int64_t kNotional = 100;

constexpr Hour kFebruary = HandMadeHistory::kStart + 27 * 24;  // 2026-02-01 00:00 UTC

// One H100 cluster from 2026-01-05 to two hours past February: every hour one trade of 8 GPUs
// for the next hour, so the next-day index is its price. The price changes 30 hours before
// February, so every index value inside February is $2.50.
HandMadeHistory februaryHistory() {
  HandMadeHistory hm;
  const Cluster c = hm.cluster(1, Accelerator::H100, 4);
  const Hour february = kFebruary;
  const auto period = periodStarting(PeriodKind::Month, february);
  if (!period) qFatal("2026-02-01 begins no month");
  const Hour end = period->end;  // 2026-03-01
  hm.add(0, CapacityGrant{hm.account(c.provider), c.id, c.totalGpus(), HandMadeHistory::kStart, end + 48});
  for (Hour h = 1; h <= end - HandMadeHistory::kStart + 2; ++h) {
    const std::int64_t at = h * kHour;
    hm.clock(at, h);
    const double dollars = static_cast<double>(HandMadeHistory::kStart + h < february - 30 ? kBefore : kDuring) / 1e6;
    hm.order(at + 1, c.provider, Side::Sell, c.id, 8, h + 1, h + 2, dollars);
    hm.order(at + 2, "buyer", Side::Buy, c.id, 8, h + 1, h + 2, dollars);
  }

  return hm;
}

// Asks for the February $2.10 call's and $1.90 put's quotes at hour 2, then buys the call at its
// ask and writes the put at its bid once both are quoted.
class OptionTrader final : public Strategy {
 public:
  OptionTrader(OptionSeries call, OptionSeries put) : call_(call), put_(put) {}
  std::string name() const override { return "option-trader"; }
  void onClock(StrategyContext& ctx, Hour) override {
    if (sent_) return;
    const OptionQuote c = ctx.optionQuote(call_), p = ctx.optionQuote(put_);
    if (!c.ask || !p.bid) return;
    sent_ = true;
    callAsk = *c.ask;
    putBid = *p.bid;
    callId = ctx.placeOption({Side::Buy, call_, kNotional, callAsk});
    putId = ctx.placeOption({Side::Sell, put_, kNotional, putBid});
  }
  void onOptionEvent(StrategyContext&, const OptionUpdate& u) override { updates.push_back(u); }

  Price callAsk = 0, putBid = 0;
  std::uint64_t callId = 0, putId = 0;
  std::vector<OptionUpdate> updates;

 private:
  OptionSeries call_, put_;
  bool sent_ = false;
};

}  // namespace

class TestReplayOptions : public QObject {
  Q_OBJECT
 private slots:
  // Fails if the replay does not feed the next-day index to the option market
  // (Replay::advanceOptions starting its tenor loop at 1: no curve, no quotes), if the payoff
  // stays out of the strategy's cash (Replay::deliverOptionUpdates adding only fills), or if a
  // settled long position's payoff counts with the writer's sign (OptionReplay::translate).
  void callInTheMoneyPaysAverageMinusStrikeLessPremium() {
    const HandMadeHistory hm = februaryHistory();
    const Hour february = kFebruary;
    const OptionSeries call{Accelerator::H100, OptionKind::Call, PeriodKind::Month, february, 2'100'000};
    const OptionSeries put{Accelerator::H100, OptionKind::Put, PeriodKind::Month, february, 1'900'000};
    QCOMPARE(periodStarting(PeriodKind::Month, february)->end - february, Hour{28 * 24});
    OptionTrader trader(call, put);
    ReplayConfig cfg;
    const Money deposit = 10'000'000'000;  // $10,000
    cfg.startingCash = deposit;
    Replay replay(trader, hm.h.accounts, cfg);
    for (const auto& in : hm.h.inputs) QVERIFY(replay.feed(in));
    const OptionReplay& market = replay.options();
    const BacktestResult r = replay.finish();

    QVERIFY2(trader.callAsk > 0 && trader.putBid > 0, "the dealer never quoted the February series");
    // The call's fill: bought at the dealer's ask, the put written at its bid.
    std::vector<OptionUpdate> fills, notices;
    for (const OptionUpdate& u : trader.updates) {
      if (u.kind == OptionUpdate::Kind::Filled) fills.push_back(u);
      // Margin calls on the written put are notices too; the settlements are the ones that say so.
      if (u.kind == OptionUpdate::Kind::Notice && u.text.rfind("settled", 0) == 0) notices.push_back(u);
      QVERIFY2(u.kind != OptionUpdate::Kind::Rejected, u.text.c_str());
    }
    QCOMPARE(fills.size(), std::size_t{2});
    QCOMPARE(fills[0].order, trader.callId);
    QVERIFY(fills[0].isLong);
    QCOMPARE(fills[0].premium, trader.callAsk);
    QCOMPARE(fills[0].gpuHours, kNotional);
    QCOMPARE(fills[1].order, trader.putId);
    QVERIFY(!fills[1].isLong);
    QCOMPARE(fills[1].premium, trader.putBid);

    // By hand: the February average is $2.50, so the call pays (2.50 - 2.10) x 100 = $40 and the
    // put (struck at $1.90) nothing.
    const Money payoff = (kDuring - call.strike) * kNotional;
    QCOMPARE(payoff, Money{40'000'000});
    const OptionSummary& o = r.summary.options;
    QCOMPARE(o.fills, std::int64_t{2});
    QCOMPARE(o.premiumPaid, trader.callAsk * kNotional);
    QCOMPARE(o.premiumReceived, trader.putBid * kNotional);
    QCOMPARE(o.payoffReceived, payoff);
    QCOMPARE(o.payoffPaid, Money{0});
    QCOMPARE(o.openValue, Money{0});
    QCOMPARE(o.marginHeld, Money{0});
    const Money pnl = payoff - trader.callAsk * kNotional + trader.putBid * kNotional;
    QCOMPARE(o.pnl, pnl);
    // The strategy traded nothing else: its cash is its option P&L.
    QCOMPARE(r.summary.finalCash, pnl);
    QCOMPARE(r.summary.finalEquity, pnl);
    QCOMPARE(notices.size(), std::size_t{2});
    for (const OptionUpdate& n : notices) QVERIFY2(n.text.find("$2.50") != std::string::npos, n.text.c_str());
    QCOMPARE(notices[0].amount + notices[1].amount, payoff);

    // The report's summary carries the option P&L.
    const nlohmann::json j = summaryJson(r.summary);
    QCOMPARE(j["options"]["pnl"].get<Money>(), pnl);
    QCOMPARE(j["options"]["payoff_received"].get<Money>(), payoff);

    // Conservation on the option ledger: the strategy's gain is the dealer's loss.
    const SettlementLedger& ledger = market.ledger();
    const AccountId me = replay.accounts().find("strategy:option-trader").value();
    const AccountId dealer = replay.accounts().find("options:dealer").value();
    auto held = [&](AccountId a) { return ledger.balance({a, Book::Cash}) + ledger.balance({a, Book::Margin}); };
    QCOMPARE(held(me) - deposit, pnl);
    QCOMPARE(held(dealer) - OptionDealerSettings{}.cash, -pnl);
    QCOMPARE(ledger.balance({me, Book::Margin}), Money{0});
  }

  // The built-in option-buyer reaches the same market from tessera-backtest's registry: it buys
  // the February $2.10 call within its premium limit and collects (2.50 - 2.10) x 100 at
  // settlement. Fails if it never buys (OptionBuyerStrategy::onClock comparing the ask with its
  // limit the wrong way round).
  void builtInOptionBuyerSettlesInTheMoney() {
    const HandMadeHistory hm = februaryHistory();
    auto made = makeStrategy("option-buyer", {{"strike", 2.1}, {"gpu_hours", 100}, {"max_premium", 1.0}});
    QVERIFY(std::holds_alternative<std::unique_ptr<Strategy>>(made));
    const BacktestResult r = runBacktest(hm.h, *std::get<std::unique_ptr<Strategy>>(made), ReplayConfig{});
    const OptionSummary& o = r.summary.options;
    QCOMPARE(o.boughtGpuHours, kNotional);
    QVERIFY(o.premiumPaid > 0);
    QCOMPARE(o.payoffReceived, (kDuring - 2'100'000) * kNotional);
    QCOMPARE(o.pnl, o.payoffReceived - o.premiumPaid);
    QCOMPARE(r.summary.finalCash, o.pnl);
    QCOMPARE(r.notes.size(), std::size_t{1});
    QVERIFY2(r.notes[0].find("bought 100 of 100 GPU-hours of H100 2026-02 call $2.10") != std::string::npos,
             r.notes[0].c_str());
  }
};

QTEST_GUILESS_MAIN(TestReplayOptions)
#include "test_replay_options.moc"
