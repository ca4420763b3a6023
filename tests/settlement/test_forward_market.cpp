// The forward market: price-time matching per (accelerator, week), margin held on entry and
// posted at the match, self-trade prevention, expiry when the week begins, marks and settlement
// against the mean hourly index of the delivery week, and money conserved throughout.
#include "LedgerAudit.h"
#include "core/settlement/ForwardMarket.h"

#include <QtTest>

#include <random>

using namespace tessera;
using tessera::testing::auditLedger;

namespace {
constexpr AccountId kExternal = 0, kLong = 1, kShort = 2, kThird = 3;
constexpr Hour kNow = 1000;  // Thursday 1970-02-11 16:00Z; the next Monday is hour 1104
const Hour kWeek = nextWeekStart(kNow);

template <typename T>
std::vector<T> only(const std::vector<ForwardMarketEvent>& events) {
  std::vector<T> out;
  for (const auto& e : events)
    if (const auto* x = std::get_if<T>(&e)) out.push_back(*x);
  return out;
}
}  // namespace

class ForwardMarketTest : public QObject {
  Q_OBJECT

  SettlementLedger ledger;
  void fund(AccountId a, Money m) { QVERIFY(!ledger.post({kExternal, Book::External}, {a, Book::Cash}, m, "deposit")); }
  Money cash(AccountId a) const { return ledger.balance({a, Book::Cash}); }
  Money margin(AccountId a) const { return ledger.balance({a, Book::Margin}); }
  static ForwardOrder order(std::uint64_t id, AccountId a, Side s, std::int64_t gpuHours, Price price) {
    return ForwardOrder{id, a, s, Accelerator::H100, kWeek, gpuHours, price};
  }

 private slots:
  void init() { ledger = SettlementLedger{}; }

  void weeksStartOnMondays() {
    QCOMPARE(kWeek, Hour(1104));  // 1970-02-16T00:00Z was a Monday
    QVERIFY(isWeekStart(kWeek));
    QCOMPARE(nextWeekStart(kWeek), kWeek + kHoursPerWeek);
    QCOMPARE(nextWeekStart(kWeek - 1), kWeek);
  }

  void matchesAtTheRestingPriceAndOpensAPosition() {
    fund(kLong, 100'000'000'000);
    fund(kShort, 100'000'000'000);
    ForwardMarket m(ledger);
    std::vector<ForwardMarketEvent> out;
    m.submit(order(1, kShort, Side::Sell, 10'000, 2'000'000), kNow, cash(kShort), out);
    QCOMPARE(only<ForwardAccepted>(out).size(), std::size_t(1));
    QCOMPARE(m.marginHeld(kShort), Money(3'000'000'000));  // 15% of $20,000
    QCOMPARE(m.depth(Accelerator::H100, kWeek, Side::Sell, 5).size(), std::size_t(1));
    out.clear();
    m.submit(order(2, kLong, Side::Buy, 4'000, 2'100'000), kNow, cash(kLong), out);
    const auto trades = only<ForwardTrade>(out);
    QCOMPARE(trades.size(), std::size_t(1));
    QCOMPARE(trades[0].price, Price(2'000'000));
    QCOMPARE(trades[0].gpuHours, std::int64_t(4'000));
    QCOMPARE(trades[0].sellLeaves, std::int64_t(6'000));
    QCOMPARE(trades[0].buyLeaves, std::int64_t(0));
    QCOMPARE(margin(kLong), Money(1'200'000'000));
    QCOMPARE(margin(kShort), Money(1'200'000'000));
    QCOMPARE(m.marginHeld(kShort), Money(1'800'000'000));  // for the 6,000 still resting
    QCOMPARE(m.marginHeld(kLong), Money(0));
    QCOMPARE(m.positionsOf(kLong).size(), std::size_t(1));
    // The match posted 15% of $8,000 from each side's cash into margin, and nothing else moved.
    // Fails if the ledger's balances drift from its postings (mutation: `balances_[to] +=
    // amount + 1` in SettlementLedger::post).
    const auto audit = auditLedger(ledger);
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Margin) == 2 * 1'200'000'000LL);
    QVERIFY(audit.outOfBook(Book::Margin) == 0);
  }

  void priceThenTimePriority() {
    for (AccountId a : {kLong, kShort, kThird}) fund(a, 100'000'000'000);
    ForwardMarket m(ledger);
    std::vector<ForwardMarketEvent> out;
    m.submit(order(1, kShort, Side::Sell, 100, 2'100'000), kNow, cash(kShort), out);
    m.submit(order(2, kThird, Side::Sell, 100, 2'000'000), kNow, cash(kThird), out);
    m.submit(order(3, kShort, Side::Sell, 100, 2'000'000), kNow, cash(kShort), out);
    out.clear();
    m.submit(order(4, kLong, Side::Buy, 250, 2'100'000), kNow, cash(kLong), out);
    const auto trades = only<ForwardTrade>(out);
    QCOMPARE(trades.size(), std::size_t(3));
    QCOMPARE(trades[0].sellOrder, std::uint64_t(2));
    QCOMPARE(trades[1].sellOrder, std::uint64_t(3));
    QCOMPARE(trades[2].sellOrder, std::uint64_t(1));
    QCOMPARE(trades[2].gpuHours, std::int64_t(50));
  }

  void marginIsCheckedOnEntry() {
    fund(kLong, 1'000'000'000);  // $1,000: margin for at most $6,666 of notional
    ForwardMarket m(ledger);
    std::vector<ForwardMarketEvent> out;
    m.submit(order(1, kLong, Side::Buy, 3'000, 2'000'000), kNow, cash(kLong), out);  // $900 margin
    QCOMPARE(only<ForwardAccepted>(out).size(), std::size_t(1));
    out.clear();
    m.submit(order(2, kLong, Side::Buy, 1'000, 2'000'000), kNow, cash(kLong), out);  // $300 more: too much
    const auto r = only<ForwardRejected>(out);
    QCOMPARE(r.size(), std::size_t(1));
    QVERIFY(r[0].reason == ForwardRejectReason::InsufficientMargin);
    // Spendable cash is what the exchange says is free: its bid reservations count.
    out.clear();
    m.submit(order(3, kLong, Side::Buy, 100, 2'000'000), kNow, 50'000'000, out);
    QVERIFY(only<ForwardRejected>(out).at(0).reason == ForwardRejectReason::InsufficientMargin);
  }

  void badOrdersAreRejectedWithAReason() {
    fund(kLong, 100'000'000'000);
    ForwardMarket m(ledger);
    std::vector<ForwardMarketEvent> out;
    auto reason = [&](ForwardOrder o) {
      out.clear();
      m.submit(o, kNow, cash(kLong), out);
      const auto r = only<ForwardRejected>(out);
      return r.empty() ? std::optional<ForwardRejectReason>{} : r[0].reason;
    };
    QVERIFY(reason(order(1, kLong, Side::Buy, 0, 2'000'000)) == ForwardRejectReason::InvalidOrder);
    QVERIFY(reason(order(2, kLong, Side::Buy, 10, 0)) == ForwardRejectReason::InvalidOrder);
    auto notMonday = order(3, kLong, Side::Buy, 10, 2'000'000);
    notMonday.weekStart += 5;
    QVERIFY(reason(notMonday) == ForwardRejectReason::WeekNotTradable);
    auto begun = order(4, kLong, Side::Buy, 10, 2'000'000);
    begun.weekStart -= kHoursPerWeek;
    QVERIFY(reason(begun) == ForwardRejectReason::WeekNotTradable);
    QVERIFY(!reason(order(5, kLong, Side::Buy, 10, 2'000'000)));
    QVERIFY(reason(order(5, kLong, Side::Buy, 10, 2'000'000)) == ForwardRejectReason::InvalidOrder);  // id reused
    out.clear();
    m.cancel(99, kLong, out);
    QVERIFY(only<ForwardRejected>(out).at(0).reason == ForwardRejectReason::UnknownOrder);
    out.clear();
    m.cancel(5, kShort, out);  // not theirs
    QVERIFY(only<ForwardRejected>(out).at(0).reason == ForwardRejectReason::UnknownOrder);
  }

  void selfTradeCancelsTheRestingOrder() {
    fund(kLong, 100'000'000'000);
    ForwardMarket m(ledger);
    std::vector<ForwardMarketEvent> out;
    m.submit(order(1, kLong, Side::Sell, 100, 2'000'000), kNow, cash(kLong), out);
    out.clear();
    m.submit(order(2, kLong, Side::Buy, 100, 2'000'000), kNow, cash(kLong), out);
    QVERIFY(only<ForwardTrade>(out).empty());
    QCOMPARE(only<ForwardCancelled>(out).at(0).order, std::uint64_t(1));
    QCOMPARE(m.workingOrders(kLong).size(), std::size_t(1));
    QCOMPARE(m.marginHeld(kLong), Money(30'000'000));
  }

  void ordersExpireWhenTheWeekBeginsAndPositionsSettleOnTheWeeksMeanIndex() {
    fund(kLong, 100'000'000'000);
    fund(kShort, 100'000'000'000);
    ForwardMarket m(ledger);
    std::vector<ForwardMarketEvent> out;
    m.submit(order(1, kShort, Side::Sell, 10'000, 2'000'000), kNow, cash(kShort), out);
    m.submit(order(2, kLong, Side::Buy, 4'000, 2'000'000), kNow, cash(kLong), out);
    out.clear();
    // The index sits at $2.10 until the week starts: marked, no call (the short has margin).
    m.advance(kWeek, {{Accelerator::H100, 2'100'000}}, out);
    const auto cancelled = only<ForwardCancelled>(out);
    QCOMPARE(cancelled.size(), std::size_t(1));
    QCOMPARE(cancelled[0].reason, std::string("week started"));
    QCOMPARE(m.marginHeld(kShort), Money(0));
    // Half the week at $2.10, half at $2.30: the mean is $2.20, the long gains 0.20 x 4,000.
    out.clear();
    m.advance(kWeek + 84, {{Accelerator::H100, 2'100'000}}, out);
    m.advance(kWeek + 168, {{Accelerator::H100, 2'300'000}}, out);
    const auto marks = only<ForwardMark>(out);
    QCOMPARE(marks.size(), std::size_t(1));
    QCOMPARE(marks[0].index, Price(2'200'000));
    QVERIFY(marks[0].final);
    QCOMPARE(cash(kLong), Money(100'000'000'000 + 800'000'000));
    QCOMPARE(cash(kShort), Money(100'000'000'000 - 800'000'000));
    QCOMPARE(margin(kLong) + margin(kShort), Money(0));
    QVERIFY(m.positionsOf(kLong).at(0).status == ForwardStatus::Settled);
    QCOMPARE(only<ForwardNotice>(out).back().buyer, kLong);
    // Margin in = margin out once the one position settled; cash moved between the two only.
    const auto audit = auditLedger(ledger);
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Margin) > 0);
    QVERIFY(audit.outOfBook(Book::Margin) == audit.inBook(Book::Margin));
  }

  void moneyIsConservedOverRandomTrading() {
    for (AccountId a = 1; a <= 6; ++a) fund(a, 20'000'000'000);
    ForwardMarket m(ledger);
    std::mt19937_64 rng(11);
    std::vector<ForwardMarketEvent> out;
    Hour now = kNow;
    std::uint64_t id = 0;
    Money deposited = 6 * 20'000'000'000LL;
    std::size_t trades = 0, settled = 0;
    for (int step = 0; step < 4000; ++step) {
      out.clear();
      const auto account = static_cast<AccountId>(1 + rng() % 6);
      if (rng() % 10 < 7) {
        ForwardOrder o{++id,
                       account,
                       rng() % 2 ? Side::Buy : Side::Sell,
                       rng() % 2 ? Accelerator::H100 : Accelerator::A100,
                       nextWeekStart(now) + kHoursPerWeek * static_cast<Hour>(rng() % 3),
                       static_cast<std::int64_t>(1 + rng() % 5000),
                       static_cast<Price>(1'500'000 + rng() % 1'000'000)};
        m.submit(o, now, cash(account), out);
      } else if (rng() % 3 == 0 && id > 0) {
        m.cancel(1 + rng() % id, account, out);
      } else {
        now += static_cast<Hour>(1 + rng() % 12);
        m.advance(now,
                  {{Accelerator::H100, static_cast<Price>(1'500'000 + rng() % 1'000'000)},
                   {Accelerator::A100, static_cast<Price>(1'000'000 + rng() % 500'000)}},
                  out);
      }
      trades += only<ForwardTrade>(out).size();
      for (const auto& mk : only<ForwardMark>(out)) settled += mk.final;
      if (step % 500 == 0) {
        // The ledger agrees with its postings and nobody's cash or margin went below zero at
        // any posting, not only at the end of a step (mutation that fails it: `balances_[to]
        // += amount + 1` in SettlementLedger::post).
        const auto audit = auditLedger(ledger);
        QVERIFY2(audit.clean(), audit.report().c_str());
      }
      Money held = 0;
      for (AccountId a = 1; a <= 6; ++a) {
        QVERIFY(cash(a) >= 0);
        QVERIFY(m.marginHeld(a) >= 0);
        held += cash(a) + margin(a);
      }
      QCOMPARE(held, deposited);  // forwards only move money between the traders
    }
    QVERIFY(id > 2000);
    QVERIFY(trades > 500);
    QVERIFY(settled > 5);
  }
};

QTEST_GUILESS_MAIN(ForwardMarketTest)
#include "test_forward_market.moc"
