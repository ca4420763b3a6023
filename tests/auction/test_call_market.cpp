// CallMarket: orders collect between clock steps and clear at the call; what a divisible order
// does not trade stays for the next call with its remaining GPUs per hour; an all-or-none bid
// stays whole until it fits; cancels remove, amends change the limit.
// Mutation seen failing: CallMarket::call not subtracting the fills from `remaining` (filled
// orders then stay working).
#include "core/auction/CallMarket.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::auction;

namespace {

OrderRequest order(OrderId id, Side side, GpuCount gpus, Price limit, Hour start, Hour end,
                   FillStyle fill = FillStyle::Divisible) {
  OrderRequest o;
  o.id = id;
  o.account = static_cast<AccountId>(id);
  o.side = side;
  o.cluster = 1;
  o.gpus = gpus;
  o.limit = limit;
  o.start = start;
  o.end = end;
  o.fill = fill;
  return o;
}

GpuCount traded(const CallResult& r, OrderId id) {
  GpuCount g = 0;
  for (const CallFill& f : r.fills)
    if (f.order == id) g += f.gpus * static_cast<GpuCount>(f.end - f.start);
  return g;
}

}  // namespace

class TestCallMarket : public QObject {
  Q_OBJECT
 private slots:
  void ordersCarryOverBetweenCalls() {
    CallMarket m;
    QVERIFY(!m.apply(Cluster{.id = 1}));
    QVERIFY(m.apply(ClockAdvance{100}));                              // an empty call
    QVERIFY(!m.apply(order(1, Side::Sell, 4, 2'000'000, 102, 104)));  // 8 GPU-hours
    QVERIFY(!m.apply(order(2, Side::Buy, 3, 3'000'000, 102, 104)));   // takes 6 of them
    auto first = m.apply(ClockAdvance{101});
    QVERIFY(first);
    QCOMPARE(traded(*first, 1), 6);
    QCOMPARE(traded(*first, 2), 6);
    QCOMPARE(m.workingOrders(), std::size_t{1});  // the ask's 1 GPU an hour stays
    // A block bid of 2 GPUs over both hours cannot fit the 1 GPU left; a second ask makes room.
    QVERIFY(!m.apply(order(3, Side::Buy, 2, 4'000'000, 102, 104, FillStyle::AllOrNone)));
    auto second = m.apply(ClockAdvance{102});
    QVERIFY(second);
    QCOMPARE(traded(*second, 3), 0);
    QCOMPARE(m.workingOrders(), std::size_t{2});
    QVERIFY(!m.apply(order(4, Side::Sell, 1, 2'500'000, 102, 104)));
    auto third = m.apply(ClockAdvance{103});
    QVERIFY(third);
    // The call at hour 103 trades hour 103 only: the block's window starts at 102, so it has
    // no placement left and expires; the asks' hour 103 stays unsold.
    QCOMPARE(traded(*third, 3), 0);
    QVERIFY(std::find(third->expired.begin(), third->expired.end(), OrderId{3}) != third->expired.end());
  }

  void blockFillsWhenSupplyArrivesBeforeItsWindow() {
    CallMarket m;
    QVERIFY(!m.apply(Cluster{.id = 1}));
    QVERIFY(m.apply(ClockAdvance{100}));
    QVERIFY(!m.apply(order(1, Side::Sell, 4, 2'000'000, 110, 112)));
    QVERIFY(!m.apply(order(2, Side::Buy, 3, 3'000'000, 110, 112)));
    QVERIFY(!m.apply(order(3, Side::Buy, 2, 4'000'000, 110, 112, FillStyle::AllOrNone)));
    auto first = m.apply(ClockAdvance{101});
    QVERIFY(first);
    QCOMPARE(traded(*first, 3), 4);  // the block is worth most: it gets 2 of the 4 GPUs
    QCOMPARE(traded(*first, 2), 4);  // the divisible bid the other 2
    QCOMPARE(traded(*first, 1), 8);
    QCOMPARE(m.workingOrders(), std::size_t{1});  // the divisible bid's last GPU an hour
    QVERIFY(!m.apply(order(4, Side::Sell, 1, 2'900'000, 110, 112)));
    QVERIFY(!m.apply(AmendRequest{.id = 2, .account = 2, .limit = 2'800'000}));
    auto second = m.apply(ClockAdvance{102});
    QVERIFY(second);
    QCOMPARE(traded(*second, 2), 0);  // amended below the new ask: no trade
    QVERIFY(!m.apply(CancelRequest{.id = 4, .account = 4}));
    QCOMPARE(m.workingOrders(), std::size_t{1});
  }
};

QTEST_APPLESS_MAIN(TestCallMarket)
#include "test_call_market.moc"
