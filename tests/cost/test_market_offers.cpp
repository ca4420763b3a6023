// The cost model on a live book: asks become offers, constraint orders rank clusters by
// effective cost rather than by the hourly rate.
#include "CostTestData.h"
#include "core/cost/MarketOffers.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::cost;
namespace td = tessera::cost::testdata;

namespace {

constexpr Hour kStart = 100, kEnd = 124;

Cluster makeCluster(ClusterId id, const char* name, FabricClass fabric, int gbpsPerNode) {
  Cluster c;
  c.id = id;
  c.name = name;
  c.provider = "p";
  c.region = "us-east";
  c.nodeCount = 16;
  c.fabric = fabric;
  c.fabricGbpsPerNode = gbpsPerNode;
  return c;
}

struct Book {
  std::unique_ptr<Matcher> engine = makeMatchingEngine();
  std::vector<Event> events;
  OrderId nextId = 1;

  void list(ClusterId cluster, GpuCount gpus, double dollars, AccountId seller) {
    engine->apply(CapacityGrant{seller, cluster, gpus, kStart, kEnd}, events);
    OrderRequest o;
    o.id = nextId++;
    o.account = seller;
    o.side = Side::Sell;
    o.cluster = cluster;
    o.gpus = gpus;
    o.start = kStart;
    o.end = kEnd;
    o.limit = static_cast<Price>(dollars * kMicrosPerDollar);
    engine->apply(o, events);
  }
};

WorkloadProfile syncHeavy(int gpus) {
  WorkloadProfile w = td::articleTraining();
  w.parallelism.data = gpus;
  w.steps = 2000;
  return w;
}

}  // namespace

class TestMarketOffers : public QObject {
  Q_OBJECT

 private slots:
  void offerWalksTheAsks() {
    Book b;
    b.engine->apply(makeCluster(1, "ib", FabricClass::InfiniBand, 3200), b.events);
    b.list(1, 64, 3.00, 1);
    b.list(1, 64, 3.50, 2);
    const auto o = offerFromBook(*b.engine, 1, kStart, kEnd, 100);
    QVERIFY(o.has_value());
    QVERIFY(qAbs(o->pricePerGpuHour - (64 * 3.0 + 36 * 3.5) / 100) < 1e-9);
    QCOMPARE(o->gpus, 100);
    QCOMPARE(*o->windowHours, 24.0);
    QVERIFY(!offerFromBook(*b.engine, 1, kStart, kEnd, 129));    // not enough offered
    QVERIFY(!offerFromBook(*b.engine, 1, kStart, kEnd + 1, 8));  // not every hour
    QVERIFY(!offerFromBook(*b.engine, 9, kStart, kEnd, 8));      // no such cluster
  }

  void levelAsOffer() {
    const Offer o = offerFromLevel(BookLevel{2'500'000, 32, 3}, 48);
    QCOMPARE(o.pricePerGpuHour, 2.5);
    QCOMPARE(o.gpus, 32);
    QCOMPARE(*o.windowHours, 48.0);
  }

  void constraintOrderRanksByEffectiveCost() {
    Book b;
    b.engine->apply(makeCluster(1, "ib", FabricClass::InfiniBand, 3200), b.events);
    b.engine->apply(makeCluster(2, "eth", FabricClass::Ethernet, 100), b.events);
    b.engine->apply(makeCluster(3, "small", FabricClass::InfiniBand, 3200), b.events);
    b.list(1, 128, 3.00, 1);
    b.list(2, 128, 1.00, 2);
    b.list(3, 16, 0.50, 3);

    const WorkloadProfile w = syncHeavy(64);
    const auto ranked = rankClustersByEffectiveCost(*b.engine, w, ClusterConstraints{}, kStart, kEnd);
    QCOMPARE(ranked.size(), std::size_t{3});
    QCOMPARE(QString::fromStdString(ranked[0].cluster.name), QStringLiteral("ib"));
    QCOMPARE(QString::fromStdString(ranked[1].cluster.name), QStringLiteral("eth"));
    QCOMPARE(QString::fromStdString(ranked[2].cluster.name), QStringLiteral("small"));
    QVERIFY(std::holds_alternative<CostError>(ranked[2].result));
    QVERIFY(ranked[1].offer.pricePerGpuHour < ranked[0].offer.pricePerGpuHour);

    ClusterConstraints ibOnly;
    ibOnly.minFabric = FabricClass::InfiniBand;
    const auto filtered = rankClustersByEffectiveCost(*b.engine, w, ibOnly, kStart, kEnd);
    QCOMPARE(filtered.size(), std::size_t{2});
    for (const auto& r : filtered) QVERIFY(r.cluster.fabric == FabricClass::InfiniBand);

    // Without synchronisation the cheap Ethernet pool wins.
    WorkloadProfile inference;
    inference.kind = WorkloadKind::Inference;
    inference.parallelism.data = 64;
    inference.inferenceTokens = 1e9;
    inference.tokensPerSecondPerGpu = 1000;
    inference.tolerance = InterruptionTolerance::Elastic;
    const auto inf = rankClustersByEffectiveCost(*b.engine, inference, ClusterConstraints{}, kStart, kEnd);
    QCOMPARE(QString::fromStdString(inf[0].cluster.name), QStringLiteral("eth"));

    const auto candidates = candidatesFromBook(*b.engine, 64, kStart, kEnd);
    QCOMPARE(candidates.size(), std::size_t{2});
  }
};

QTEST_APPLESS_MAIN(TestMarketOffers)
#include "test_market_offers.moc"
