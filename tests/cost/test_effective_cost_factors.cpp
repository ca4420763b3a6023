// From the cost model's ranking to the factors an all-or-none order carries, and the engine
// picking the cluster that is cheapest in completed work rather than per hour.
#include "core/cost/MarketOffers.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::cost;

namespace {
ClusterRanking ranked(ClusterId id, double price, double effective) {
  ClusterRanking r;
  r.cluster.id = id;
  r.offer.pricePerGpuHour = price;
  CostBreakdown b;
  b.pricePerGpuHour = price;
  b.effectivePricePerGpuHour = effective;
  r.result = b;
  return r;
}
}  // namespace

class EffectiveCostFactorsTest : public QObject {
  Q_OBJECT
 private slots:
  void factorsAreEffectiveOverHourlyPrice() {
    std::vector<ClusterRanking> r{ranked(1, 3.00, 3.18), ranked(2, 1.20, 13.39)};
    r.push_back(ClusterRanking{});
    r.back().cluster.id = 3;
    r.back().result = CostError{"does not fit"};
    const auto f = effectiveCostFactors(r);
    QCOMPARE(f.size(), std::size_t(2));
    QCOMPARE(f[0].cluster, ClusterId(1));
    QCOMPARE(f[0].ppm, std::int64_t(1'060'000));
    QCOMPARE(f[1].ppm, std::int64_t(11'158'333));
  }

  void theEngineRanksByTheFactors() {
    auto m = makeMatchingEngine();
    std::vector<Event> out;
    for (ClusterId c : {1u, 2u}) {
      Cluster k;
      k.id = c;
      k.nodeCount = 8;
      k.fabric = c == 1 ? FabricClass::InfiniBand : FabricClass::Ethernet;
      m->apply(k, out);
      m->apply(CapacityGrant{1, c, 64, 0, 10}, out);
    }
    OrderRequest ask;
    ask.account = 1;
    ask.side = Side::Sell;
    ask.gpus = 64;
    ask.start = 0;
    ask.end = 10;
    ask.id = 1;
    ask.cluster = 1;
    ask.limit = 3'000'000;
    m->apply(ask, out);
    ask.id = 2;
    ask.cluster = 2;
    ask.limit = 1'200'000;
    m->apply(ask, out);
    OrderRequest bid;
    bid.id = 3;
    bid.account = 2;
    bid.gpus = 64;
    bid.start = 0;
    bid.end = 10;
    bid.limit = 3'000'000;
    bid.fill = FillStyle::AllOrNone;
    bid.constraints = ClusterConstraints{};
    bid.costFactors = effectiveCostFactors({ranked(1, 3.00, 3.18), ranked(2, 1.20, 13.39)});
    out.clear();
    m->apply(bid, out);
    const auto* k = [&]() -> const ContractCreated* {
      for (const auto& e : out)
        if (const auto* c = std::get_if<ContractCreated>(&e)) return c;
      return nullptr;
    }();
    QVERIFY(k);
    QCOMPARE(k->contract.cluster, ClusterId(1));  // the cheap-looking Ethernet pool loses
  }
};

QTEST_GUILESS_MAIN(EffectiveCostFactorsTest)
#include "test_effective_cost_factors.moc"
