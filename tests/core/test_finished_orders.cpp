// FinishedOrders on its own: every request comes back exactly as it went in, whether it fits the
// compact record or is kept whole, and only stopped orders are taken.
#include "core/engine/FinishedOrders.h"

#include <QtTest>

#include <stdexcept>

using namespace tessera;

namespace {
OrderRequest common(OrderId id) {
  OrderRequest r;
  r.id = id;
  r.account = 7;
  r.side = Side::Sell;
  r.cluster = 3;
  r.gpus = 16;
  r.start = 1'000'000;
  r.end = 1'000'168;
  r.limit = 2'500'000;
  r.fill = FillStyle::AllOrNone;
  r.tif = TimeInForce::IOC;
  r.postOnly = true;
  r.stp = SelfTradePrevention::CancelResting;
  r.terms.uptimePromisePpm = 950'000;
  r.terms.estimatedTflopsPerGpu = 900;
  return r;
}
}  // namespace

class FinishedOrdersTest : public QObject {
  Q_OBJECT

 private slots:
  void commonRequestsComeBackExactly() {
    FinishedOrders f;
    OrderRequest a = common(1);
    OrderRequest b = common(2);
    b.terms = OfferTerms{};
    b.side = Side::Buy;
    const auto ia = f.add(a, OrderStatus::Filled, 16 * 168);
    const auto ib = f.add(b, OrderStatus::Cancelled, 0);
    const auto ic = f.add(a, OrderStatus::Cancelled, 5);
    QCOMPARE(f.size(), std::size_t{3});
    QVERIFY(f.at(ia, 1) == (OrderView{a, OrderStatus::Filled, 16 * 168, 0}));
    QVERIFY(f.at(ib, 2) == (OrderView{b, OrderStatus::Cancelled, 0, 0}));
    QVERIFY(f.at(ic, 1) == (OrderView{a, OrderStatus::Cancelled, 5, 0}));
  }

  void everyRareFieldKeepsTheRequestWhole() {
    FinishedOrders f;
    std::vector<OrderRequest> rare(6, common(9));
    rare[0].cluster.reset();
    rare[0].constraints = ClusterConstraints{{Accelerator::H100}, 80, {"us-east"}, FabricClass::InfiniBand, 300};
    rare[1].duration = 24;
    rare[2].tif = TimeInForce::GTD;
    rare[2].expireAt = 1'000'010;
    rare[3].sellBack = 42;
    rare[4].costFactors = {ClusterCostFactor{3, 1'200'000}};
    rare[5].end = rare[5].start - 1;  // never accepted, but kept as given
    for (const OrderRequest& r : rare) {
      const auto i = f.add(r, OrderStatus::Cancelled, 1);
      QVERIFY(f.at(i, 9) == (OrderView{r, OrderStatus::Cancelled, 1, 0}));
    }
  }

  void valuesTooWideForTheCompactRecordKeepTheRequestWhole() {
    // The compact record holds start and limit in 32 bits, the window in 16, GPUs in 20 and the
    // GPU-hours filled in 32: anything wider comes back exactly all the same.
    FinishedOrders f;
    std::vector<std::pair<OrderRequest, std::int64_t>> wide(6, {common(11), 0});
    wide[0].first.start = std::int64_t{1} << 31;
    wide[0].first.end = wide[0].first.start + 10;
    wide[1].first.end = wide[1].first.start + 65'536;
    wide[2].first.limit = std::int64_t{1} << 31;
    wide[3].first.gpus = 1 << 20;
    wide[4].second = std::int64_t{1} << 32;
    wide[5].first.start = -(std::int64_t{1} << 31) - 1;
    for (const auto& [r, filled] : wide) {
      const auto i = f.add(r, OrderStatus::Filled, filled);
      QVERIFY(f.at(i, 11) == (OrderView{r, OrderStatus::Filled, filled, 0}));
    }
    // And the widest values that still fit are kept compact, exactly.
    OrderRequest edge = common(12);
    edge.start = (std::int64_t{1} << 31) - 70'000;
    edge.end = edge.start + 65'535;
    edge.limit = (std::int64_t{1} << 31) - 1;
    edge.gpus = (1 << 20) - 1;
    edge.side = Side::Buy;
    edge.fill = FillStyle::Divisible;
    edge.tif = TimeInForce::FOK;
    edge.stp = SelfTradePrevention::CancelIncoming;
    edge.postOnly = false;
    const auto i = f.add(edge, OrderStatus::Cancelled, (std::int64_t{1} << 32) - 1);
    QVERIFY(f.at(i, 12) == (OrderView{edge, OrderStatus::Cancelled, (std::int64_t{1} << 32) - 1, 0}));
  }

  void aWorkingOrderIsNotFinished() {
    FinishedOrders f;
    QVERIFY_THROWS_EXCEPTION(std::logic_error, f.add(common(1), OrderStatus::Working, 0));
    QCOMPARE(f.size(), std::size_t{0});
  }
};

QTEST_APPLESS_MAIN(FinishedOrdersTest)
#include "test_finished_orders.moc"
