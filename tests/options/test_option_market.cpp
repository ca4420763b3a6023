// The options market: listed delivery periods, price-time books on premium with cash holds,
// premium paid at the trade, scenario margin of writers (covering every move of its grid), margin
// calls and close-out, settlement on the period's average, money conserved across expiry
// (checked with the test's own arithmetic, not the ledger's), and the snapshot form.
#include "LedgerAudit.h"
#include "core/engine/SnapshotCodec.h"
#include "core/options/OptionMarket.h"

#include <QtTest>

#include <random>

using namespace tessera;
using namespace tessera::indexoptions;
using tessera::testing::auditLedger;

namespace {
constexpr AccountId kExternal = 0, kBuyer = 1, kWriter = 2, kThird = 3;
constexpr Hour kNow = 499069;  // 2026-12-07T13:00Z
constexpr Hour kJan = 499656;  // 2027-01-01T00:00Z
constexpr Hour kFeb = 500400;  // 2027-02-01T00:00Z: January has 744 hours
constexpr Price kDollar = 1'000'000;

template <typename T>
std::vector<T> only(const std::vector<OptionMarketEvent>& events) {
  std::vector<T> out;
  for (const auto& e : events)
    if (const auto* x = std::get_if<T>(&e)) out.push_back(*x);
  return out;
}

OptionSeries janSeries(OptionKind kind, Price strike) {
  return OptionSeries{Accelerator::H100, kind, PeriodKind::Month, kJan, strike};
}

std::map<Accelerator, ClassIndex> flat(Price level) {
  return {{Accelerator::H100, ClassIndex{level, level, level, {}}}};
}
}  // namespace

class OptionMarketTest : public QObject {
  Q_OBJECT

  SettlementLedger ledger;
  void fund(AccountId a, Money m) { QVERIFY(!ledger.post({kExternal, Book::External}, {a, Book::Cash}, m, "deposit")); }
  Money cash(AccountId a) const { return ledger.balance({a, Book::Cash}); }
  Money margin(AccountId a) const { return ledger.balance({a, Book::Margin}); }
  static OptionOrder order(std::uint64_t id, AccountId a, Side s, const OptionSeries& series, std::int64_t gpuHours,
                           Price premium) {
    return OptionOrder{id, a, s, series, gpuHours, premium};
  }
  // A market at kNow with a flat $2.00 index.
  OptionMarket market(Price level = 2 * kDollar) {
    OptionMarket m(ledger);
    std::vector<OptionMarketEvent> out;
    m.advance(kNow, flat(level), out);
    return m;
  }

 private slots:
  void init() { ledger = SettlementLedger{}; }

  void listedPeriods() {
    const auto periods = indexoptions::listedPeriods(kNow);
    int months = 0, quarters = 0, years = 0;
    for (const auto& p : periods) {
      months += p.kind == PeriodKind::Month;
      quarters += p.kind == PeriodKind::Quarter;
      years += p.kind == PeriodKind::Year;
    }
    QCOMPARE(months, 12);   // 2027-01 .. 2027-12
    QCOMPARE(quarters, 8);  // 2027-Q1 .. 2028-Q4
    QCOMPARE(years, 3);     // 2027, 2028, 2029
    QCOMPARE(periods.front().start, kJan);
    QCOMPARE(periodName(periods.front()), std::string("2027-01"));
    QCOMPARE(periods.front().end, kFeb);
    QCOMPARE(periodName(*periodStarting(PeriodKind::Quarter, 501816)), std::string("2027-Q2"));
    QCOMPARE(periodStarting(PeriodKind::Year, 517200)->end, Hour(525960));  // 2029 -> 2030
    QVERIFY(!periodStarting(PeriodKind::Quarter, kFeb));                    // February begins no quarter
    QVERIFY(!isListed(*periodStarting(PeriodKind::Month, kJan), kJan));     // begun
    QCOMPARE(seriesName(janSeries(OptionKind::Call, 2'300'000)), std::string("H100 2027-01 call $2.30"));
  }

  void payoffPerGpuHour() {
    QCOMPARE(indexoptions::payoffPerGpuHour(OptionKind::Call, 2'300'000, 2'600'000), Money(300'000));
    QCOMPARE(indexoptions::payoffPerGpuHour(OptionKind::Call, 2'300'000, 2'000'000), Money(0));
    QCOMPARE(indexoptions::payoffPerGpuHour(OptionKind::Put, 2'300'000, 2'000'000), Money(300'000));
    QCOMPARE(indexoptions::payoffPerGpuHour(OptionKind::Put, 2'300'000, 2'300'000), Money(0));
  }

  void rejectsWhatCannotTrade() {
    fund(kBuyer, 1'000 * kDollar);
    OptionMarket m = market();
    std::vector<OptionMarketEvent> out;
    auto reason = [&](const OptionOrder& o) {
      out.clear();
      m.submit(o, kNow, cash(o.account), out);
      const auto r = only<OptionRejected>(out);
      return r.empty() ? std::string("accepted") : std::string(toString(r[0].reason));
    };
    QCOMPARE(reason(order(1, kBuyer, Side::Buy, janSeries(OptionKind::Call, 2'305'000), 10, 100'000)),
             std::string("invalid_order"));
    OptionSeries feb = janSeries(OptionKind::Call, 2 * kDollar);
    feb.periodKind = PeriodKind::Quarter;  // January 2027 begins Q1, so this is listed
    QCOMPARE(reason(order(2, kBuyer, Side::Buy, feb, 10, 100'000)), std::string("accepted"));
    OptionSeries later = janSeries(OptionKind::Call, 2 * kDollar);
    later.start = 525216;  // 2029-12: months list a year ahead only
    QCOMPARE(reason(order(3, kBuyer, Side::Buy, later, 10, 100'000)), std::string("series_not_listed"));
    QCOMPARE(reason(order(4, kBuyer, Side::Buy, janSeries(OptionKind::Call, 2 * kDollar), 10'000, 200'000)),
             std::string("insufficient_funds"));  // $2,000 of premium, $1,000 less the $1 held
    OptionMarket fresh(ledger);                   // no index yet: nothing to margin a writer with
    out.clear();
    fresh.submit(order(5, kBuyer, Side::Sell, janSeries(OptionKind::Put, 2 * kDollar), 10, 100'000), kNow, cash(kBuyer),
                 out);
    QVERIFY(only<OptionRejected>(out).at(0).reason == OptionRejectReason::NoIndex);
  }

  void priceTimeOnPremiumWithHolds() {
    fund(kBuyer, 10'000 * kDollar);
    fund(kWriter, 10'000 * kDollar);
    fund(kThird, 10'000 * kDollar);
    OptionMarket m = market();
    const OptionSeries s = janSeries(OptionKind::Call, 2 * kDollar);
    std::vector<OptionMarketEvent> out;
    m.submit(order(1, kWriter, Side::Sell, s, 100, 300'000), kNow, cash(kWriter), out);
    m.submit(order(2, kThird, Side::Sell, s, 100, 290'000), kNow, cash(kThird), out);
    m.submit(order(3, kWriter, Side::Sell, s, 100, 290'000), kNow, cash(kWriter), out);
    QCOMPARE(only<OptionAccepted>(out).size(), std::size_t(3));
    const Price perUnit = *m.marginPerGpuHour(s);
    QCOMPARE(m.held(kWriter), (perUnit - 300'000) * 100 + (perUnit - 290'000) * 100);
    const auto asks = m.depth(s, Side::Sell, 5);
    QCOMPARE(asks.size(), std::size_t(2));
    QCOMPARE(asks[0], (OptionLevel{290'000, 200, 2}));
    out.clear();
    // 150 at up to $0.30: 100 from the third account (first at $0.29), 50 from the writer's $0.29.
    m.submit(order(4, kBuyer, Side::Buy, s, 150, 300'000), kNow, cash(kBuyer), out);
    const auto trades = only<OptionTrade>(out);
    QCOMPARE(trades.size(), std::size_t(2));
    QCOMPARE(trades[0].writer, kThird);
    QCOMPARE(trades[0].premium, Price(290'000));
    QCOMPARE(trades[1].writer, kWriter);
    QCOMPARE(trades[1].gpuHours, std::int64_t(50));
    QCOMPARE(trades[1].sellLeaves, std::int64_t(50));
    // The buyer paid 150 x $0.29; each writer posted the scenario margin of what it wrote.
    QCOMPARE(cash(kBuyer), 10'000 * kDollar - 150 * 290'000);
    QCOMPARE(margin(kThird), perUnit * 100);
    QCOMPARE(cash(kThird), 10'000 * kDollar + 100 * 290'000 - perUnit * 100);
    QCOMPARE(m.held(kBuyer), Money(0));
    QCOMPARE(m.held(kWriter), (perUnit - 300'000) * 100 + (perUnit - 290'000) * 50);
    out.clear();
    m.cancel(1, kWriter, out);
    m.cancel(3, kWriter, out);
    QCOMPARE(only<OptionCancelled>(out).size(), std::size_t(2));
    QCOMPARE(m.held(kWriter), Money(0));
    out.clear();
    m.cancel(3, kWriter, out);
    QVERIFY(only<OptionRejected>(out).at(0).reason == OptionRejectReason::UnknownOrder);
  }

  void ordersLeaveWhenThePeriodBegins() {
    fund(kBuyer, 1'000 * kDollar);
    OptionMarket m = market();
    std::vector<OptionMarketEvent> out;
    m.submit(order(1, kBuyer, Side::Buy, janSeries(OptionKind::Put, 2 * kDollar), 100, 100'000), kNow, cash(kBuyer),
             out);
    QCOMPARE(m.held(kBuyer), Money(10'000'000));
    out.clear();
    m.advance(kJan, flat(2 * kDollar), out);
    const auto c = only<OptionCancelled>(out);
    QCOMPARE(c.size(), std::size_t(1));
    QCOMPARE(c[0].reason, std::string("period started"));
    QCOMPARE(m.held(kBuyer), Money(0));
    QVERIFY(m.books().empty());
  }

  void settlesOnThePeriodAverageByHand() {
    // 1,000 GPU-hours of the January $2.00 call at $0.30. The index is $2.40 for the first 372
    // hours of January and $2.80 for the last 372, so the average is $2.60 and the call pays
    // $0.60 x 1,000 = $600: buyer 10,000 - 300 + 600 = $10,300, writer 10,000 + 300 - 600 = $9,700.
    // Fails if the settlement pays on the last index instead of the average (mutation:
    // `average` -> `last->second.nextDay` in OptionMarket::advance: writer $9,200).
    fund(kBuyer, 10'000 * kDollar);
    fund(kWriter, 10'000 * kDollar);
    OptionMarket m = market();
    const OptionSeries s = janSeries(OptionKind::Call, 2 * kDollar);
    std::vector<OptionMarketEvent> out;
    m.submit(order(1, kWriter, Side::Sell, s, 1'000, 300'000), kNow, cash(kWriter), out);
    m.submit(order(2, kBuyer, Side::Buy, s, 1'000, 300'000), kNow, cash(kBuyer), out);
    QCOMPARE(only<OptionTrade>(out).size(), std::size_t(1));
    for (Hour h = kNow + 1; h <= kFeb; ++h) {
      const Price level = h <= kJan ? 2 * kDollar : h <= kJan + 372 ? 2'400'000 : 2'800'000;
      out.clear();
      m.advance(h, flat(level), out);
    }
    const auto settled = only<OptionSettlement>(out);
    QCOMPARE(settled.size(), std::size_t(1));
    QCOMPARE(settled[0].average, Price(2'600'000));
    QCOMPARE(cash(kBuyer), 10'300 * kDollar);
    QCOMPARE(cash(kWriter), 9'700 * kDollar);
    QCOMPARE(margin(kWriter), Money(0));
    const auto p = *m.positions().position(1);
    QVERIFY(p.status == OptionStatus::Settled);
    QCOMPARE(p.paid, 600 * kDollar);
  }

  void marginCoversEveryScenarioOfTheGrid() {
    // A writer with no cash beyond its margin still pays the whole payoff when the period
    // averages anywhere inside the grid's moves of the forward. Fails when the grid loses its
    // moves (mutation seen failing: kIndexMoves all 0.0: the +30% calls are unpaid).
    for (OptionKind kind : {OptionKind::Call, OptionKind::Put})
      for (Price strike : {1'600'000, 2'000'000, 2'400'000})
        for (double move : {-0.30, -0.20, -0.10, 0.0, 0.10, 0.20, 0.30}) {  // the grid's range, written out
          ledger = SettlementLedger{};
          OptionMarket m = market();
          const OptionSeries s = janSeries(kind, strike);
          const Price perUnit = *m.marginPerGpuHour(s);
          const Price premium = 10'000;
          fund(kWriter, (perUnit - premium) * 100);
          fund(kBuyer, premium * 100);
          std::vector<OptionMarketEvent> out;
          m.submit(order(1, kWriter, Side::Sell, s, 100, premium), kNow, cash(kWriter), out);
          m.submit(order(2, kBuyer, Side::Buy, s, 100, premium), kNow, cash(kBuyer), out);
          QCOMPARE(only<OptionTrade>(out).size(), std::size_t(1));
          QCOMPARE(cash(kWriter), Money(0));
          const Price average = static_cast<Price>(std::llround(2'000'000 * (1.0 + move)));
          out.clear();
          m.advance(kFeb, flat(average), out);  // the whole of January at `average`
          const auto p = *m.positions().position(1);
          QVERIFY(p.status == OptionStatus::Settled);
          QVERIFY2(p.unpaid == 0, qPrintable(QString("%1 strike %2 move %3: %4 unpaid")
                                                 .arg(kind == OptionKind::Call ? "call" : "put")
                                                 .arg(strike)
                                                 .arg(move)
                                                 .arg(p.unpaid)));
          QCOMPARE(p.paid, indexoptions::payoffPerGpuHour(kind, strike, average) * 100);
          QCOMPARE(cash(kBuyer), p.paid);
        }
  }

  void writerWhoCannotMeetACallIsClosedOut() {
    fund(kBuyer, 1'000 * kDollar);
    OptionMarket m = market();
    const OptionSeries s = janSeries(OptionKind::Call, 2 * kDollar);
    const Price perUnit = *m.marginPerGpuHour(s);
    fund(kWriter, (perUnit - 200'000) * 1'000);
    std::vector<OptionMarketEvent> out;
    m.submit(order(1, kWriter, Side::Sell, s, 1'000, 200'000), kNow, cash(kWriter), out);
    m.submit(order(2, kBuyer, Side::Buy, s, 1'000, 200'000), kNow, cash(kBuyer), out);
    QCOMPARE(cash(kWriter), Money(0));
    out.clear();
    m.advance(kNow + 1, flat(2'600'000), out);  // the index jumps 30%: more margin is due
    const auto p = *m.positions().position(1);
    QVERIFY(p.status == OptionStatus::ClosedOut);
    QCOMPARE(only<OptionNotice>(out).size(), std::size_t(1));
    // The buyer receives the reference value at the mark, paid from the writer's margin.
    QCOMPARE(p.paid, p.lastValue * 1'000);
    QCOMPARE(cash(kBuyer), 1'000 * kDollar - 200'000 * 1'000 + p.paid);
    QCOMPARE(margin(kWriter), Money(0));
    QVERIFY(p.lastValue > 600'000);  // at least the intrinsic value of a $2.60 forward
  }

  void moneyIsConservedAcrossExpiry() {
    // Random trades in six January series between four accounts, a random index path through
    // January, settlement. Each account's cash is then computed here from the trades and the
    // test's own average of the path: deposit - premiums paid + premiums received + payoffs
    // received - payoffs paid; every margin is back. Fails if any posting is lost, doubled or
    // mis-sized (mutations seen failing: no "margin returned" posting in OptionPositions::close;
    // premium posted as premium * (gpuHours - 1)).
    std::mt19937 rng(38);
    const std::vector<AccountId> accounts{1, 2, 3, 4};
    const Money deposit = 1'000'000 * kDollar;
    for (AccountId a : accounts) fund(a, deposit);
    OptionMarket m = market();
    std::vector<OptionSeries> series;
    for (OptionKind kind : {OptionKind::Call, OptionKind::Put})
      for (Price k : {1'800'000, 2'000'000, 2'200'000}) series.push_back(janSeries(kind, k));
    std::map<AccountId, Money> expected;
    for (AccountId a : accounts) expected[a] = deposit;
    std::vector<OptionTrade> trades;
    std::uniform_int_distribution<int> pick(0, 5), who(0, 3), qty(1, 500), prem(5, 60);
    std::uint64_t id = 1;
    for (int i = 0; i < 300; ++i) {
      std::vector<OptionMarketEvent> out;
      const AccountId a = accounts[who(rng)];
      const Side side = i % 2 ? Side::Buy : Side::Sell;
      m.submit(order(id++, a, side, series[pick(rng)], qty(rng), prem(rng) * 10'000), kNow, cash(a) - 0, out);
      for (const auto& t : only<OptionTrade>(out)) trades.push_back(t);
    }
    QVERIFY(trades.size() > 20);
    for (const auto& t : trades) {
      expected[t.buyer] -= t.premium * t.gpuHours;
      expected[t.writer] += t.premium * t.gpuHours;
    }
    std::uniform_int_distribution<int> step(-40'000, 40'000);
    Price level = 2 * kDollar;
    __extension__ __int128 sum = 0;
    std::int64_t hours = 0;
    for (Hour h = kNow + 1; h <= kFeb; ++h) {
      level = std::clamp<Price>(level + step(rng), 1'500'000, 2'500'000);
      if (h > kJan) {
        sum += level;
        ++hours;
      }
      std::vector<OptionMarketEvent> out;
      m.advance(h, flat(level), out);
    }
    // Every writer met its calls: nobody was closed out; what netting did not end settled. The
    // payoffs below still add up per trade: netting passes positions on, it changes no sum.
    int netted = 0;
    for (std::uint64_t p = 1; m.positions().position(p); ++p) {
      const OptionStatus st = m.positions().position(p)->status;
      QVERIFY(st == OptionStatus::Settled || st == OptionStatus::Netted);
      netted += st == OptionStatus::Netted;
    }
    QVERIFY(netted > 0);  // the random trades did buy and sell the same series
    QCOMPARE(hours, std::int64_t(744));
    const Price average = static_cast<Price>((sum + hours / 2) / hours);
    for (const auto& t : trades) {
      const Money pays = indexoptions::payoffPerGpuHour(t.series.kind, t.series.strike, average) * t.gpuHours;
      expected[t.buyer] += pays;
      expected[t.writer] -= pays;
    }
    for (AccountId a : accounts) {
      QCOMPARE(margin(a), Money(0));
      QCOMPARE(m.held(a), Money(0));
      QCOMPARE(cash(a), expected[a]);
    }
    const auto audit = auditLedger(ledger);
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Margin) == audit.outOfBook(Book::Margin));
  }

  void snapshotRoundTrip() {
    fund(kBuyer, 10'000 * kDollar);
    fund(kWriter, 10'000 * kDollar);
    OptionMarket m = market();
    std::vector<OptionMarketEvent> out;
    const OptionSeries s = janSeries(OptionKind::Put, 2 * kDollar);
    m.submit(order(1, kWriter, Side::Sell, s, 300, 150'000), kNow, cash(kWriter), out);
    m.submit(order(2, kBuyer, Side::Buy, s, 100, 150'000), kNow, cash(kBuyer), out);
    m.submit(order(3, kBuyer, Side::Buy, janSeries(OptionKind::Call, 2 * kDollar), 100, 50'000), kNow, cash(kBuyer),
             out);
    for (Hour h = kNow + 1; h < kNow + 30; ++h) m.advance(h, flat(2'000'000 + (h % 3) * 10'000), out);
    std::string bytes;
    SnapshotWriter w(bytes);
    m.save(w);
    SettlementLedger copy = ledger;
    OptionMarket loaded(copy);
    SnapshotReader r(bytes);
    loaded.load(r);
    QVERIFY(r.done());
    std::string again;
    SnapshotWriter w2(again);
    loaded.save(w2);
    QVERIFY(bytes == again);
    QCOMPARE(loaded.held(kBuyer), m.held(kBuyer));
    QCOMPARE(loaded.reference(s)->value, m.reference(s)->value);
    QCOMPARE(*loaded.marginPerGpuHour(s), *m.marginPerGpuHour(s));
  }
};

QTEST_APPLESS_MAIN(OptionMarketTest)
#include "test_option_market.moc"
