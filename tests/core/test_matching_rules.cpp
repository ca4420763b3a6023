// The market's matching rules, one test each, run against both the fast engine and the
// reference matcher (see docs/matching.md for the rules themselves).
#include "EngineScript.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::testing;

namespace {
// QCOMPARE cannot print these enums (ADL finds tessera::toString), so compare their names.
template <typename E>
QString name(E e) {
  const auto s = toString(e);
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}
}  // namespace

class MatchingRulesTest : public QObject {
  Q_OBJECT

  std::unique_ptr<EngineHarness> market() {
    QFETCH_GLOBAL(bool, reference);
    auto h = std::make_unique<EngineHarness>(reference ? makeReferenceMatcher() : makeMatchingEngine());
    h->send(makeCluster(1, Accelerator::H100, "us-east", 8, FabricClass::InfiniBand));  // 64 GPUs
    h->send(makeCluster(2, Accelerator::H100, "eu-north", 8, FabricClass::RoCE));       // 64 GPUs
    h->send(makeCluster(3, Accelerator::A100, "us-east", 8, FabricClass::Ethernet));    // 64 GPUs
    for (ClusterId c : {1u, 2u, 3u}) {
      h->send(CapacityGrant{kProvider, c, 32, 0, 1000});
      h->send(CapacityGrant{kProvider2, c, 32, 0, 1000});
    }
    return h;
  }

 private slots:
  void initTestCase_data() {
    QTest::addColumn<bool>("reference");
    QTest::newRow("fast engine") << false;
    QTest::newRow("reference matcher") << true;
  }

  void bidTakesCheapestAsksAndPaysTheirPrice() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 4, usd(2.50)));
    m->send(ask(2, kProvider2, 1, 8, 0, 4, usd(2.00)));
    auto ev = m->send(bid(3, kAlice, 1, 12, 0, 4, usd(3.00)));
    auto contracts = eventsOf<ContractCreated>(ev);
    QCOMPARE(contracts.size(), std::size_t(2));
    QCOMPARE(contracts[0].contract.sellOrder, OrderId(2));
    QCOMPARE(contracts[0].contract.price, usd(2.00));
    QCOMPARE(contracts[0].contract.gpus, 8);
    QCOMPARE(contracts[1].contract.sellOrder, OrderId(1));
    QCOMPARE(contracts[1].contract.price, usd(2.50));
    QCOMPARE(contracts[1].contract.gpus, 4);
    QCOMPARE(contracts[1].contract.end - contracts[1].contract.start, Hour(4));  // one contract for 4 hours
    QCOMPARE(m->matcher().order(3)->status, OrderStatus::Filled);
  }

  void timePriorityAtOnePrice() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 4, 0, 1, usd(2.00)));
    m->send(ask(2, kProvider2, 1, 4, 0, 1, usd(2.00)));
    auto ev = m->send(bid(3, kAlice, 1, 4, 0, 1, usd(2.00)));
    QCOMPARE(eventsOf<ContractCreated>(ev).at(0).contract.sellOrder, OrderId(1));
    QCOMPARE(m->matcher().order(2)->leavesGpuHours, 4);
  }

  void divisibleBidFillsHourByHourAndRestsTheRest() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 10, 2, 3, usd(1.80)));  // only hour 2 is offered
    auto ev = m->send(bid(2, kAlice, 1, 6, 0, 4, usd(2.00)));
    auto k = eventsOf<ContractCreated>(ev);
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.start, Hour(2));
    QCOMPARE(k[0].contract.end, Hour(3));
    QCOMPARE(m->matcher().order(2)->leavesGpuHours, 18);  // 6 GPUs x hours 0, 1, 3
    QCOMPARE(m->matcher().depth(1, 0, Side::Buy, 5).at(0).gpus, 6);
    QVERIFY(m->matcher().depth(1, 2, Side::Buy, 5).empty());
    QCOMPARE(m->matcher().depth(1, 2, Side::Sell, 5).at(0).gpus, 4);
  }

  void allOrNoneFillsOnlyWhenTheLastMissingHourArrives() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 16, 0, 3, usd(2.00)));
    auto ev = m->send(allOrNone(2, kAlice, 1, 16, 0, 4, usd(2.50)));
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    QCOMPARE(m->matcher().allOrNoneBids(1).size(), std::size_t(1));
    ev = m->send(ask(3, kProvider2, 1, 8, 3, 4, usd(2.10)));  // not enough GPUs in hour 3
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    ev = m->send(ask(4, kProvider2, 1, 8, 3, 4, usd(2.20)));  // now hour 3 has 16
    auto k = eventsOf<ContractCreated>(ev);
    QCOMPARE(k.size(), std::size_t(3));
    std::int64_t gpuHours = 0;
    for (const auto& c : k) gpuHours += std::int64_t(c.contract.gpus) * (c.contract.end - c.contract.start);
    QCOMPARE(gpuHours, std::int64_t(64));
    QCOMPARE(m->matcher().order(2)->status, OrderStatus::Filled);
    QVERIFY(m->matcher().allOrNoneBids(1).empty());
    for (const auto& f : eventsOf<Fill>(ev))
      if (f.order == 4) QVERIFY(f.aggressor);
  }

  void allOrNoneLimitBoundsTheAveragePrice() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 3, usd(2.00)));
    m->send(ask(2, kProvider, 1, 8, 3, 4, usd(3.00)));               // one dear hour
    auto ev = m->send(allOrNone(3, kAlice, 1, 8, 0, 4, usd(2.20)));  // average 2.25 > 2.20
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    ev = m->send(allOrNone(4, kBob, 1, 8, 0, 4, usd(2.25)));  // average exactly 2.25
    auto k = eventsOf<ContractCreated>(ev);
    QCOMPARE(k.size(), std::size_t(2));
    QCOMPARE(k[0].contract.price, usd(2.00));
    QCOMPARE(k[1].contract.price, usd(3.00));  // each hour pays its own ask
  }

  // Several asks, none of which would do alone, together bring the average within the limit:
  // the bid fills on the one that completes it, not before and not later.
  void allOrNoneFillsOnceEnoughCheaperAsksHaveArrived() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 8, usd(3.00)));
    auto ev = m->send(allOrNone(2, kAlice, 1, 8, 0, 8, usd(2.50)));
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    for (OrderId id = 3; id <= 5; ++id) {  // hours 0, 1, 2 at $2.00: the average is still above $2.50
      const Hour h = static_cast<Hour>(id - 3);
      ev = m->send(ask(id, kProvider2, 1, 8, h, h + 1, usd(2.00)));
      QVERIFY2(eventsOf<ContractCreated>(ev).empty(), qPrintable(QString("hour %1").arg(h)));
    }
    ev = m->send(ask(6, kProvider2, 1, 8, 3, 4, usd(2.00)));  // four hours at $2.00, four at $3.00
    auto k = eventsOf<ContractCreated>(ev);
    QCOMPARE(m->matcher().order(2)->status, OrderStatus::Filled);
    Money paid = 0;
    for (const auto& c : k) paid += c.contract.notional();
    QCOMPARE(paid, usd(2.50) * 8 * 8);
  }

  // Hours that held no asks at all arrive one ask at a time, each elsewhere in the window.
  void allOrNoneFillsWhenItsEmptyHoursArriveOneByOne() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 1, usd(2.00)));
    auto ev = m->send(allOrNone(2, kAlice, 1, 8, 0, 4, usd(3.00)));
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    for (OrderId id : {3, 4}) {
      const Hour h = static_cast<Hour>(id - 2);
      ev = m->send(ask(id, kProvider, 1, 8, h, h + 1, usd(2.00)));
      QVERIFY(eventsOf<ContractCreated>(ev).empty());
    }
    ev = m->send(ask(5, kProvider, 1, 8, 3, 4, usd(2.00)));
    QCOMPARE(eventsOf<ContractCreated>(ev).size(), std::size_t(4));
    QCOMPARE(m->matcher().order(2)->status, OrderStatus::Filled);
  }

  void allOrNoneIsNeverSplitAcrossClusters() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 2, usd(1.00)));
    m->send(ask(2, kProvider, 2, 8, 0, 2, usd(1.00)));
    OrderRequest o = allOrNone(3, kAlice, 1, 16, 0, 2, usd(5.00));
    o.cluster.reset();
    o.constraints = ClusterConstraints{{Accelerator::H100}, 0, {}, std::nullopt, std::nullopt};
    auto ev = m->send(o);
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    QCOMPARE(m->matcher().order(3)->status, OrderStatus::Working);
  }

  void constraintOrderPicksTheCheapestMatchingCluster() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 16, 0, 2, usd(2.40)));  // H100, InfiniBand
    m->send(ask(2, kProvider, 2, 16, 0, 2, usd(2.10)));  // H100, RoCE: cheapest H100
    m->send(ask(3, kProvider, 3, 16, 0, 2, usd(1.20)));  // A100: cheaper but excluded
    OrderRequest o = allOrNone(4, kAlice, 1, 16, 0, 2, usd(3.00));
    o.cluster.reset();
    o.constraints = ClusterConstraints{{Accelerator::H100}, 0, {}, std::nullopt, std::nullopt};
    auto k = eventsOf<ContractCreated>(m->send(o));
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.cluster, ClusterId(2));
    // Requiring InfiniBand leaves only cluster 1.
    OrderRequest p = o;
    p.id = 5;
    p.constraints->minFabric = FabricClass::InfiniBand;
    k = eventsOf<ContractCreated>(m->send(p));
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.cluster, ClusterId(1));
    // No cluster meets an impossible constraint: a clear reject.
    OrderRequest q = o;
    q.id = 6;
    q.constraints->regions = {"antarctica"};
    auto r = eventsOf<OrderRejected>(m->send(q));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::NoMatchingCluster));
  }

  void constraintOrderRanksByEffectiveCostWhenGivenFactors() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 16, 0, 2, usd(2.40)));  // InfiniBand
    m->send(ask(2, kProvider, 2, 16, 0, 2, usd(2.10)));  // RoCE: cheaper per hour
    OrderRequest o = allOrNone(3, kAlice, 1, 16, 0, 2, usd(3.00));
    o.cluster.reset();
    o.constraints = ClusterConstraints{{Accelerator::H100}, 0, {}, std::nullopt, std::nullopt};
    // This training job runs 1.3x longer on RoCE: 2.10 x 1.3 = 2.73 effective > 2.40.
    o.costFactors = {{2, 1'300'000}};
    auto k = eventsOf<ContractCreated>(m->send(o));
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.cluster, ClusterId(1));
    QCOMPARE(k[0].contract.price, usd(2.40));  // it pays the hourly price
    OrderRequest bad = o;
    bad.id = 4;
    bad.costFactors = {{2, 0}};
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(bad)).at(0).reason), name(RejectReason::InvalidPrice));
  }

  void flexibleWindowChoosesTheCheapestPlacement() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 10, usd(2.50)));
    m->send(ask(2, kProvider2, 1, 8, 5, 8, usd(1.50)));  // a dip in hours 5..7
    OrderRequest o = allOrNone(3, kAlice, 1, 8, 0, 10, usd(2.60));
    o.duration = 3;
    auto k = eventsOf<ContractCreated>(m->send(o));
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.start, Hour(5));
    QCOMPARE(k[0].contract.end, Hour(8));
    QCOMPARE(k[0].contract.price, usd(1.50));
  }

  void flexibleBidRunsWhenThePriceDips() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 24, usd(2.50)));
    OrderRequest o = allOrNone(2, kAlice, 1, 8, 0, 24, usd(2.00));
    o.duration = 4;
    QVERIFY(eventsOf<ContractCreated>(m->send(o)).empty());
    auto k = eventsOf<ContractCreated>(m->send(ask(3, kProvider2, 1, 8, 10, 14, usd(1.40))));
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.start, Hour(10));
    QCOMPARE(k[0].contract.buyOrder, OrderId(2));
  }

  void holderSellsBackPartOfAContract() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 16, 0, 720, usd(2.00)));
    auto k = eventsOf<ContractCreated>(m->send(allOrNone(2, kAlice, 1, 16, 0, 720, usd(2.00))));
    QCOMPARE(k.size(), std::size_t(1));
    const ContractId held = k[0].contract.id;
    QCOMPARE(m->matcher().holding(kAlice, 1, 100).held, 16);
    // Sell one week back.
    OrderRequest back = ask(3, kAlice, 1, 16, 168, 336, usd(2.30));
    back.sellBack = held;
    auto ev = m->send(back);
    QVERIFY(eventsOf<OrderAccepted>(ev).size() == 1);
    QCOMPARE(m->matcher().holding(kAlice, 1, 200).offered, 16);
    k = eventsOf<ContractCreated>(m->send(bid(4, kBob, 1, 16, 168, 336, usd(2.30))));
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.seller, kAlice);
    QCOMPARE(m->matcher().holding(kAlice, 1, 200).held, 0);
    QCOMPARE(m->matcher().holding(kAlice, 1, 100).held, 16);
    QCOMPARE(m->matcher().holding(kBob, 1, 200).held, 16);
    // The same week cannot be sold again, and nor can hours outside the contract.
    auto r = eventsOf<OrderRejected>(m->send(ask(5, kAlice, 1, 1, 168, 169, usd(2.30))));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::InsufficientHoldings));
    OrderRequest outside = ask(6, kAlice, 1, 1, 700, 730, usd(2.30));
    outside.sellBack = held;
    r = eventsOf<OrderRejected>(m->send(outside));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::InvalidWindow));
  }

  void providerTransfersReplacementCapacityToTheBuyerOfItsContract() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 16, 0, 48, usd(2.00)));
    auto k = eventsOf<ContractCreated>(m->send(bid(2, kAlice, 1, 16, 0, 48, usd(2.00))));
    QCOMPARE(k.size(), std::size_t(1));
    const ContractId failed = k[0].contract.id;
    // Cluster 2 hours 24..48, 16 GPUs, from the provider's unlisted capacity there.
    auto ev = m->send(CapacityTransfer{failed, kProvider, kAlice, 2, 16, 24, 48, usd(2.00)});
    auto made = eventsOf<ContractCreated>(ev);
    QCOMPARE(made.size(), std::size_t(1));
    QCOMPARE(made[0].contract.replaces, failed);
    QCOMPARE(made[0].contract.trade, TradeId(0));
    QCOMPARE(made[0].contract.cluster, ClusterId(2));
    QVERIFY(eventsOf<Fill>(ev).empty());
    QCOMPARE(m->matcher().holding(kAlice, 2, 30).held, 16);
    QCOMPARE(m->matcher().holding(kProvider, 2, 30).held, 16);
    QVERIFY(m->matcher().contract(made[0].contract.id) == made[0].contract);
    // Only the contract's own two parties, and only capacity held free of offers.
    auto r = eventsOf<OrderRejected>(m->send(CapacityTransfer{failed, kProvider2, kAlice, 2, 1, 24, 48, usd(2.00)}));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::UnknownContract));
    r = eventsOf<OrderRejected>(m->send(CapacityTransfer{failed, kProvider, kBob, 2, 1, 24, 48, usd(2.00)}));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::UnknownContract));
    m->send(ask(3, kProvider, 2, 16, 24, 48, usd(2.50)));  // offers the provider's last 16 there
    r = eventsOf<OrderRejected>(m->send(CapacityTransfer{failed, kProvider, kAlice, 2, 1, 24, 48, usd(2.00)}));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::InsufficientHoldings));
    r = eventsOf<OrderRejected>(m->send(CapacityTransfer{failed, kProvider, kAlice, 9, 1, 24, 48, usd(2.00)}));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::UnknownCluster));
  }

  void nobodySellsWhatTheyNeitherOwnNorHold() {
    auto m = market();
    auto r = eventsOf<OrderRejected>(m->send(ask(1, kAlice, 1, 1, 0, 1, usd(2.00))));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::InsufficientHoldings));
    QVERIFY(eventsOf<OrderAccepted>(m->send(ask(2, kProvider, 1, 32, 0, 10, usd(2.00)))).size() == 1);
    r = eventsOf<OrderRejected>(m->send(ask(3, kProvider, 1, 1, 5, 6, usd(2.00))));  // all 32 already offered
    QCOMPARE(name(r.at(0).reason), name(RejectReason::InsufficientHoldings));
    r = eventsOf<OrderRejected>(m->send(CapacityGrant{kProvider, 1, 1, 0, 10}));  // cluster is full
    QCOMPARE(name(r.at(0).reason), name(RejectReason::ExceedsClusterSize));
  }

  void immediateOrCancelAndFillOrKill() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 2, usd(2.00)));
    OrderRequest ioc = bid(2, kAlice, 1, 10, 0, 2, usd(2.00));
    ioc.tif = TimeInForce::IOC;
    auto ev = m->send(ioc);
    QCOMPARE(eventsOf<ContractCreated>(ev).size(), std::size_t(1));
    auto c = eventsOf<OrderCancelled>(ev);
    QCOMPARE(name(c.at(0).reason), name(CancelReason::ImmediateOrCancel));
    QCOMPARE(c.at(0).cancelledGpuHours, 4);
    QVERIFY(m->matcher().depth(1, 0, Side::Buy, 5).empty());

    m->send(ask(3, kProvider, 1, 8, 0, 2, usd(2.00)));
    OrderRequest fok = bid(4, kBob, 1, 10, 0, 2, usd(2.00));
    fok.tif = TimeInForce::FOK;
    ev = m->send(fok);
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    QCOMPARE(name(eventsOf<OrderCancelled>(ev).at(0).reason), name(CancelReason::FillOrKill));
    fok.id = 5;
    fok.gpus = 8;
    QCOMPARE(eventsOf<ContractCreated>(m->send(fok)).size(), std::size_t(1));
  }

  void postOnlyNeverTrades() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 2, usd(2.00)));
    OrderRequest o = bid(2, kAlice, 1, 8, 0, 2, usd(2.00));
    o.postOnly = true;
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(o)).at(0).reason), name(RejectReason::PostOnlyWouldTrade));
    o.limit = usd(1.90);
    QCOMPARE(eventsOf<OrderAccepted>(m->send(o)).size(), std::size_t(1));
  }

  void postOnlySellThatWouldCompleteAnAllOrNoneBidIsRejected() {
    auto m = market();
    m->send(allOrNone(1, kAlice, 1, 4, 0, 2, usd(2.00)));
    OrderRequest o = ask(2, kProvider, 1, 8, 0, 2, usd(1.00));
    o.postOnly = true;
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(o)).at(0).reason), name(RejectReason::PostOnlyWouldTrade));
    QCOMPARE(m->matcher().holding(kProvider, 1, 0).offered, 0);
    QVERIFY(m->matcher().depth(1, 0, Side::Sell, 5).empty());
    o.id = 3;
    o.gpus = 2;  // too few to complete the bid: rests
    QCOMPARE(eventsOf<OrderAccepted>(m->send(o)).size(), std::size_t(1));
    QCOMPARE(m->matcher().order(1)->status, OrderStatus::Working);
  }

  void clockExpiresGoodTillDateAndPastHours() {
    auto m = market();
    OrderRequest gtd = bid(1, kAlice, 1, 4, 10, 20, usd(1.00));
    gtd.tif = TimeInForce::GTD;
    gtd.expireAt = 5;
    m->send(gtd);
    m->send(bid(2, kBob, 1, 4, 0, 10, usd(1.00)));
    auto ev = m->send(ClockAdvance{5});
    auto c = eventsOf<OrderCancelled>(ev);
    QCOMPARE(c.size(), std::size_t(2));
    QCOMPARE(c[0].order, OrderId(1));
    QCOMPARE(c[0].leavesGpuHours, 0);
    QCOMPARE(c[1].order, OrderId(2));
    QCOMPARE(c[1].cancelledGpuHours, 20);  // hours 0..4 passed
    QCOMPARE(c[1].leavesGpuHours, 20);     // hours 5..9 still work
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(bid(3, kBob, 1, 4, 4, 10, usd(1.00)))).at(0).reason),
             name(RejectReason::WindowInPast));
    QCOMPARE(eventsOf<OrderRejected>(m->send(ClockAdvance{3})).size(), std::size_t(1));
  }

  // The fast engine reuses a stopped order's slot for the next order; nothing of the old order
  // may show through: its lookups, its dead book entry, or where it stood in arrival order.
  void stoppedOrdersStayVisibleAndLeaveNoTrace() {
    auto m = market();
    OrderRequest first = bid(1, kAlice, 1, 4, 10, 20, usd(1.00));
    first.tif = TimeInForce::GTD;
    first.expireAt = 8;
    m->send(first);
    m->send(ask(2, kProvider, 1, 8, 0, 4, usd(2.00)));
    m->send(bid(3, kBob, 1, 4, 0, 10, usd(1.00)));
    m->send(CancelRequest{1, kAlice});
    m->send(CancelRequest{2, kProvider});
    OrderRequest gtd = bid(4, kAlice, 1, 4, 10, 20, usd(1.00));
    gtd.tif = TimeInForce::GTD;
    gtd.expireAt = 5;
    m->send(gtd);
    // Where the cancelled ask rested, nothing is left to trade with.
    auto ev = m->send(bid(5, kBob, 1, 8, 0, 4, usd(3.00)));
    QCOMPARE(eventsOf<ContractCreated>(ev).size(), std::size_t(0));
    QCOMPARE(m->matcher().order(5)->leavesGpuHours, 32);
    // The stopped orders are still found, as they were.
    const auto one = m->matcher().order(1);
    QVERIFY(one);
    QVERIFY(one->status == OrderStatus::Cancelled);
    QVERIFY(one->request == first);
    QCOMPARE(m->matcher().order(2)->request.limit, usd(2.00));
    QVERIFY(m->matcher().order(4)->status == OrderStatus::Working);
    QCOMPARE(m->matcher().workingOrders(kAlice).size(), std::size_t(1));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CancelRequest{1, kAlice})).at(0).reason),
             name(RejectReason::UnknownOrder));
    // Order 3 re-enters with a new price (and a new sequence) but still arrived before order 4,
    // which sits in a slot an earlier order left: expiry reports them in arrival order.
    QCOMPARE(eventsOf<OrderAmended>(m->send(AmendRequest{3, kBob, usd(1.10), std::nullopt})).size(), std::size_t(1));
    auto c = eventsOf<OrderCancelled>(m->send(ClockAdvance{5}));
    QCOMPARE(c.size(), std::size_t(3));
    QCOMPARE(c[0].order, OrderId(3));
    QCOMPARE(c[1].order, OrderId(4));
    QCOMPARE(c[2].order, OrderId(5));
  }

  void selfTradePrevention() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 1, usd(2.00)));
    m->send(ask(2, kProvider2, 1, 8, 0, 1, usd(2.10)));
    auto ev = m->send(bid(3, kProvider, 1, 8, 0, 1, usd(3.00)));  // would hit its own ask first
    QVERIFY(eventsOf<ContractCreated>(ev).empty());
    QCOMPARE(name(eventsOf<OrderCancelled>(ev).at(0).reason), name(CancelReason::SelfTrade));
    QCOMPARE(eventsOf<OrderCancelled>(ev).at(0).order, OrderId(3));
    OrderRequest o = bid(4, kProvider, 1, 8, 0, 1, usd(3.00));
    o.stp = SelfTradePrevention::CancelResting;
    ev = m->send(o);
    QCOMPARE(eventsOf<OrderCancelled>(ev).at(0).order, OrderId(1));
    QCOMPARE(eventsOf<ContractCreated>(ev).at(0).contract.sellOrder, OrderId(2));
  }

  void amendKeepsPriorityOnlyWhenShrinking() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 1, usd(2.00)));
    m->send(ask(2, kProvider2, 1, 8, 0, 1, usd(2.00)));
    auto a = eventsOf<OrderAmended>(m->send(AmendRequest{1, kProvider, std::nullopt, 6}));
    QVERIFY(a.at(0).priorityKept);
    auto k = eventsOf<ContractCreated>(m->send(bid(3, kAlice, 1, 2, 0, 1, usd(2.00))));
    QCOMPARE(k.at(0).contract.sellOrder, OrderId(1));
    a = eventsOf<OrderAmended>(m->send(AmendRequest{1, kProvider, std::nullopt, 10}));
    QVERIFY(!a.at(0).priorityKept);
    k = eventsOf<ContractCreated>(m->send(bid(4, kAlice, 1, 2, 0, 1, usd(2.00))));
    QCOMPARE(k.at(0).contract.sellOrder, OrderId(2));
    // Repricing through the book trades at once.
    m->send(bid(5, kBob, 1, 4, 0, 1, usd(1.50)));
    k = eventsOf<ContractCreated>(m->send(AmendRequest{2, kProvider2, usd(1.50), std::nullopt}));
    QCOMPARE(k.at(0).contract.buyOrder, OrderId(5));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(AmendRequest{2, kProvider2, usd(1.50), std::nullopt})).at(0).reason),
             name(RejectReason::NothingToAmend));
  }

  void amendCannotOutgrowTheCluster() {
    auto m = market();
    m->send(bid(1, kAlice, 1, 4, 0, 2, usd(1.00)));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(AmendRequest{1, kAlice, std::nullopt, 65})).at(0).reason),
             name(RejectReason::ExceedsClusterSize));
    QCOMPARE(eventsOf<OrderAmended>(m->send(AmendRequest{1, kAlice, std::nullopt, 64})).size(), std::size_t(1));
    m->send(allOrNone(2, kAlice, 1, 8, 0, 2, usd(1.00)));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(AmendRequest{2, kAlice, std::nullopt, 65})).at(0).reason),
             name(RejectReason::ExceedsClusterSize));
  }

  void anyOrderIdWorks() {
    auto m = market();
    const OrderId big = OrderId{1} << 45;  // beyond the dense id range
    QCOMPARE(eventsOf<OrderAccepted>(m->send(bid(big, kAlice, 1, 4, 0, 2, usd(1.00)))).size(), std::size_t(1));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(bid(big, kAlice, 1, 4, 0, 2, usd(1.00)))).at(0).reason),
             name(RejectReason::DuplicateOrderId));
    QCOMPARE(m->matcher().order(big)->leavesGpuHours, 8);
    QVERIFY(!m->matcher().order(big + 1));
    QCOMPARE(eventsOf<OrderCancelled>(m->send(CancelRequest{big, kAlice})).size(), std::size_t(1));
    // Ids that arrive out of order, some of them stored before the dense range grew over them.
    for (OrderId id : {OrderId(9000), OrderId(5), OrderId(20000), OrderId(6), OrderId(7000), OrderId(40000)})
      QCOMPARE(eventsOf<OrderAccepted>(m->send(bid(id, kBob, 1, 1, 0, 1, usd(0.50)))).size(), std::size_t(1));
    for (OrderId id : {OrderId(9000), OrderId(5), OrderId(20000), OrderId(6), OrderId(7000), OrderId(40000)}) {
      QVERIFY(m->matcher().order(id).has_value());
      QCOMPARE(name(eventsOf<OrderRejected>(m->send(bid(id, kBob, 1, 1, 0, 1, usd(0.50)))).at(0).reason),
               name(RejectReason::DuplicateOrderId));
    }
  }

  // Review findings: hostile hours and ids must not exhaust memory, and amends keep the rules.
  void farFutureWindowsAreRefusedNotStored() {
    auto m = market();
    QCOMPARE(eventsOf<OrderAccepted>(m->send(bid(1, kAlice, 1, 1, 0, 1, usd(1.00)))).size(), std::size_t(1));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(bid(2, kAlice, 1, 1, Hour{1} << 39, (Hour{1} << 39) + 1, usd(1.00))))
                      .at(0)
                      .reason),
             name(RejectReason::InvalidWindow));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CapacityGrant{kProvider, 1, 1, Hour{1} << 39, (Hour{1} << 39) + 1}))
                      .at(0)
                      .reason),
             name(RejectReason::InvalidWindow));
    // Up to five years ahead is fine, also after the clock moved.
    QCOMPARE(eventsOf<OrderAccepted>(m->send(bid(3, kAlice, 1, 1, 43'000, 43'001, usd(1.00)))).size(), std::size_t(1));
    m->send(ClockAdvance{40'000});
    QCOMPARE(eventsOf<OrderAccepted>(m->send(bid(4, kAlice, 1, 1, 80'000, 80'001, usd(1.00)))).size(), std::size_t(1));
    QCOMPARE(eventsOf<CapacityAdded>(m->send(CapacityGrant{kProvider, 1, 1, 80'000, 80'010})).size(), std::size_t(1));
    // Grants at ever-earlier hours stay cheap (the holding grows its front geometrically).
    for (Hour h = 83'000; h > 41'000; h -= 100) m->send(CapacityGrant{kProvider2, 2, 1, h, h + 1});
    QCOMPARE(m->matcher().holding(kProvider2, 2, 41'100).held, 1);
  }

  void idsChosenToDoubleTheIndexDoNotExhaustMemory() {
    auto m = market();
    OrderId id = 4095;
    for (int i = 0; i < 40 && id < (OrderId{1} << 52); ++i, id = 2 * id + 4096)
      QCOMPARE(eventsOf<OrderAccepted>(m->send(bid(id, kAlice, 1, 1, 0, 1, usd(0.10)))).size(), std::size_t(1));
    QVERIFY(m->matcher().order(4095).has_value());
  }

  void amendedAllOrNoneKeepsItsAcceptedCandidates() {
    QFETCH_GLOBAL(bool, reference);
    EngineHarness m(reference ? makeReferenceMatcher() : makeMatchingEngine());
    m.send(makeCluster(1, Accelerator::H100, "us-east", 1, FabricClass::InfiniBand));  // 8 GPUs
    m.send(makeCluster(2, Accelerator::H100, "us-east", 2, FabricClass::InfiniBand));  // 16 GPUs
    m.send(CapacityGrant{kProvider, 1, 8, 0, 10});
    OrderRequest o = allOrNone(1, kAlice, 1, 4, 0, 2, usd(1.00));
    o.cluster.reset();
    o.constraints = ClusterConstraints{};
    m.send(o);
    m.send(AmendRequest{1, kAlice, std::nullopt, 12});  // only cluster 2 holds 12
    m.send(AmendRequest{1, kAlice, std::nullopt, 4});   // both again
    auto k = eventsOf<ContractCreated>(m.send(ask(2, kProvider, 1, 8, 0, 2, usd(0.50))));
    QCOMPARE(k.size(), std::size_t(1));
    QCOMPARE(k[0].contract.buyOrder, OrderId(1));
  }

  void sellBackCannotBeAmendedPastItsContract() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 8, 0, 10, usd(1.00)));
    auto k = eventsOf<ContractCreated>(m->send(bid(2, kAlice, 1, 4, 0, 10, usd(1.00))));
    m->send(ask(3, kProvider, 1, 4, 0, 10, usd(1.00)));
    m->send(bid(4, kAlice, 1, 4, 0, 10, usd(1.00)));  // a second 4-GPU contract
    OrderRequest back = ask(5, kAlice, 1, 4, 0, 10, usd(2.00));
    back.sellBack = k.at(0).contract.id;
    QCOMPARE(eventsOf<OrderAccepted>(m->send(back)).size(), std::size_t(1));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(AmendRequest{5, kAlice, std::nullopt, 8})).at(0).reason),
             name(RejectReason::InvalidWindow));
  }

  void onlyTheOwnerCancels() {
    auto m = market();
    m->send(bid(1, kAlice, 1, 4, 0, 2, usd(1.00)));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CancelRequest{1, kBob})).at(0).reason),
             name(RejectReason::NotYourOrder));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CancelRequest{99, kBob})).at(0).reason),
             name(RejectReason::UnknownOrder));
    auto c = eventsOf<OrderCancelled>(m->send(CancelRequest{1, kAlice}));
    QCOMPARE(c.at(0).cancelledGpuHours, 8);
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CancelRequest{1, kAlice})).at(0).reason),
             name(RejectReason::UnknownOrder));
  }

  void impossibleOrdersAreRejectedWithAReason() {
    auto m = market();
    auto reason = [&](OrderRequest o) { return eventsOf<OrderRejected>(m->send(o)).at(0).reason; };
    QCOMPARE(name(reason(bid(1, kAlice, 1, 0, 0, 2, usd(1.00)))), name(RejectReason::InvalidGpuCount));
    QCOMPARE(name(reason(bid(2, kAlice, 1, 65, 0, 2, usd(1.00)))), name(RejectReason::ExceedsClusterSize));
    QCOMPARE(name(reason(bid(3, kAlice, 1, 4, 5, 5, usd(1.00)))), name(RejectReason::InvalidWindow));
    QCOMPARE(name(reason(bid(4, kAlice, 1, 4, 0, 2, 0))), name(RejectReason::InvalidPrice));
    QCOMPARE(name(reason(bid(5, kAlice, 9, 4, 0, 2, usd(1.00)))), name(RejectReason::UnknownCluster));
    OrderRequest aonSell = ask(6, kProvider, 1, 4, 0, 2, usd(1.00));
    aonSell.fill = FillStyle::AllOrNone;
    QCOMPARE(name(reason(aonSell)), name(RejectReason::Unsupported));
    m->send(bid(7, kAlice, 1, 4, 0, 2, usd(1.00)));
    QCOMPARE(name(reason(bid(7, kAlice, 1, 4, 0, 2, usd(1.00)))), name(RejectReason::DuplicateOrderId));
    OrderRequest gtd = bid(8, kAlice, 1, 4, 0, 2, usd(1.00));
    gtd.tif = TimeInForce::GTD;
    QCOMPARE(name(reason(gtd)), name(RejectReason::InvalidTimeInForce));
  }

  // A post-only order re-entered by an amend is judged as it would rest afterwards: a sell
  // whose new price or size would complete a resting all-or-none bid is rejected and keeps its
  // price, size and priority; one that would not is amended. Fails without the amend's
  // all-or-none probe (mutation: drop `sellWouldCompleteAllOrNone` from either matcher's amend).
  void postOnlyAmendThatWouldCompleteAnAllOrNoneBidIsRejected() {
    auto m = market();
    OrderRequest sell = ask(1, kProvider, 1, 2, 0, 2, usd(3.00));
    sell.postOnly = true;
    m->send(sell);
    m->send(allOrNone(2, kAlice, 1, 2, 0, 2, usd(2.00)));
    m->send(allOrNone(3, kBob, 1, 4, 0, 2, usd(3.00)));
    auto r = eventsOf<OrderRejected>(m->send(AmendRequest{1, kProvider, usd(2.00), std::nullopt}));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::PostOnlyWouldTrade));
    r = eventsOf<OrderRejected>(m->send(AmendRequest{1, kProvider, std::nullopt, 4}));
    QCOMPARE(name(r.at(0).reason), name(RejectReason::PostOnlyWouldTrade));
    QCOMPARE(m->matcher().order(1)->request.limit, usd(3.00));
    QCOMPARE(m->matcher().order(1)->leavesGpuHours, 4);
    QCOMPARE(m->matcher().depth(1, 0, Side::Sell, 5).at(0).gpus, 2);
    QVERIFY(m->matcher().contractsOf(kProvider).empty());
    // $2.50 completes neither bid (the first averages at most $2.00, the second needs 4 GPUs).
    QCOMPARE(eventsOf<OrderAmended>(m->send(AmendRequest{1, kProvider, usd(2.50), std::nullopt})).size(),
             std::size_t(1));
    QVERIFY(m->matcher().contractsOf(kProvider).empty());
    // Its entry before the amend does not count either: shrinking to 1 GPU at $1.00 completes
    // nothing (a 2-GPU bid would need the old entry's GPUs too).
    QCOMPARE(eventsOf<OrderAmended>(m->send(AmendRequest{1, kProvider, usd(1.00), 1})).size(), std::size_t(1));
    QVERIFY(m->matcher().contractsOf(kProvider).empty());
  }

  // An amend checks its GPU count before its price, like a new order, and its size before the
  // holdings. Fails if validateAmend checks the price first.
  void amendChecksGpusThenPriceThenSizeThenHoldings() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 4, 0, 2, usd(2.00)));
    auto reason = [&](AmendRequest a) { return name(eventsOf<OrderRejected>(m->send(a)).at(0).reason); };
    QCOMPARE(reason(AmendRequest{1, kProvider, 0, 0}), name(RejectReason::InvalidGpuCount));
    QCOMPARE(reason(AmendRequest{1, kProvider, 0, 8}), name(RejectReason::InvalidPrice));
    // 65 GPUs: more than cluster 1 has, and more than the provider holds: size first.
    QCOMPARE(reason(AmendRequest{1, kProvider, std::nullopt, 65}), name(RejectReason::ExceedsClusterSize));
    QCOMPARE(reason(AmendRequest{1, kProvider, std::nullopt, 33}), name(RejectReason::InsufficientHoldings));
  }

  // A transfer carries the replaced contract's price, and checks its own fields before what it
  // refers to. Fails if validateTransfer accepts another price or looks the cluster up first.
  void transferCarriesTheReplacedPriceAndChecksItsFieldsFirst() {
    auto m = market();
    m->send(ask(1, kProvider, 1, 4, 0, 48, usd(2.00)));
    const ContractId k = eventsOf<ContractCreated>(m->send(bid(2, kAlice, 1, 4, 0, 48, usd(2.00)))).at(0).contract.id;
    auto reason = [&](CapacityTransfer t) { return name(eventsOf<OrderRejected>(m->send(t)).at(0).reason); };
    QCOMPARE(reason(CapacityTransfer{k, kProvider, kAlice, 9, 1, 30, 24, usd(2.00)}),
             name(RejectReason::InvalidWindow));
    QCOMPARE(reason(CapacityTransfer{k, kProvider, kAlice, 9, 1, 24, 48, usd(2.00)}),
             name(RejectReason::UnknownCluster));
    QCOMPARE(reason(CapacityTransfer{k, kProvider, kAlice, 2, 1, 24, 48, 0}), name(RejectReason::InvalidPrice));
    QCOMPARE(reason(CapacityTransfer{k, kProvider, kAlice, 2, 1, 24, 48, usd(2.50)}), name(RejectReason::InvalidPrice));
    QCOMPARE(reason(CapacityTransfer{k, kProvider, kAlice, 2, 1, 24, Hour{1} << 20, usd(2.00)}),
             name(RejectReason::InvalidWindow));
    const auto made =
        eventsOf<ContractCreated>(m->send(CapacityTransfer{k, kProvider, kAlice, 2, 1, 24, 48, usd(2.00)}));
    QCOMPARE(made.at(0).contract.price, usd(2.00));
    QCOMPARE(made.at(0).contract.buyOrder, OrderId(0));
  }

  // Each term's range, both ends in and one past each end out (docs/matching.md, "Terms").
  // Fails if a bound moves (mutation: `> 1'000'000` -> `> 1'000'001` for the uptime promise).
  void termsHaveInclusiveRanges() {
    auto m = market();
    OrderId id = 100;
    // "accepted", or the reason of the reject.
    auto outcome = [&](auto set) -> QString {
      OrderRequest o = ask(++id, kProvider, 1, 1, 0, 1, usd(2.00));
      set(o.terms);
      const auto ev = m->send(o);
      if (eventsOf<OrderAccepted>(ev).empty()) return name(eventsOf<OrderRejected>(ev).at(0).reason);
      m->send(CancelRequest{id, kProvider});
      return "accepted";
    };
    const QString invalid = name(RejectReason::InvalidTerms);
    QCOMPARE(outcome([](OfferTerms& t) { t.uptimePromisePpm = 0; }), QString("accepted"));
    QCOMPARE(outcome([](OfferTerms& t) { t.uptimePromisePpm = 1'000'000; }), QString("accepted"));
    QCOMPARE(outcome([](OfferTerms& t) { t.uptimePromisePpm = -1; }), invalid);
    QCOMPARE(outcome([](OfferTerms& t) { t.uptimePromisePpm = 1'000'001; }), invalid);
    QCOMPARE(outcome([](OfferTerms& t) { t.creditPerUndeliveredGpuHour = 0; }), QString("accepted"));
    QCOMPARE(outcome([](OfferTerms& t) { t.creditPerUndeliveredGpuHour = 100'000'000; }), QString("accepted"));
    QCOMPARE(outcome([](OfferTerms& t) { t.creditPerUndeliveredGpuHour = -1; }), invalid);
    QCOMPARE(outcome([](OfferTerms& t) { t.creditPerUndeliveredGpuHour = 100'000'001; }), invalid);
    QCOMPARE(outcome([](OfferTerms& t) { t.replacementWithinHours = 0; }), QString("accepted"));
    QCOMPARE(outcome([](OfferTerms& t) { t.replacementWithinHours = 43'920; }), QString("accepted"));
    QCOMPARE(outcome([](OfferTerms& t) { t.replacementWithinHours = -1; }), invalid);
    QCOMPARE(outcome([](OfferTerms& t) { t.replacementWithinHours = 43'921; }), invalid);
    QCOMPARE(outcome([](OfferTerms& t) { t.estimatedTflopsPerGpu = 1; }), QString("accepted"));
    QCOMPARE(outcome([](OfferTerms& t) { t.estimatedTflopsPerGpu = 0; }), invalid);
    OrderRequest buy = bid(200, kAlice, 1, 1, 0, 1, usd(1.00));
    buy.terms.uptimePromisePpm = 999'000;
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(buy)).at(0).reason), name(RejectReason::InvalidTerms));
  }

  // A cluster, like every input, checks its own figures before whether its id is taken. Fails
  // if validateCluster looks the id up first.
  void clusterChecksItsFiguresBeforeItsId() {
    auto m = market();
    Cluster bad = makeCluster(1, Accelerator::H100, "us-east", 0, FabricClass::InfiniBand);
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(bad)).at(0).reason), name(RejectReason::InvalidCluster));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(makeCluster(1, Accelerator::H100, "us-east", 2, FabricClass::RoCE)))
                      .at(0)
                      .reason),
             name(RejectReason::DuplicateCluster));
  }

  // A grant, like every input, checks its own fields before the cluster it names.
  void grantChecksItsFieldsBeforeItsCluster() {
    auto m = market();
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CapacityGrant{kProvider, 9, 0, 0, 10})).at(0).reason),
             name(RejectReason::InvalidGpuCount));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CapacityGrant{kProvider, 9, 1, 10, 0})).at(0).reason),
             name(RejectReason::InvalidWindow));
    QCOMPARE(name(eventsOf<OrderRejected>(m->send(CapacityGrant{kProvider, 9, 1, 0, 10})).at(0).reason),
             name(RejectReason::UnknownCluster));
  }
};

QTEST_GUILESS_MAIN(MatchingRulesTest)
#include "test_matching_rules.moc"
