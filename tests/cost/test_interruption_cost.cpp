// Firm or interruptible capacity for a workload (core/cost/Interruption.h): at the same reclaim
// rate and discount, a job that checkpoints often is cheaper on interruptible capacity and one
// with a long checkpoint interval is dearer; the planner's ranking of an interruptible cluster
// prices its reclaims.
//
// Mutations seen failing: asInterruptible leaving the offer's preemptions unchanged (the
// reclaim rate ignored): both checkpoint cases and thePlannerPricesReclaimsOnInterruptibleClusters;
// reclaimsPerDay without the assumed reclaim (reclaims / days): unwatchedCapacityIsNotRiskFree
// and thePlannerPricesReclaimsOnInterruptibleClusters.
#include "CostTestData.h"
#include "core/cost/Interruption.h"
#include "core/cost/MarketOffers.h"
#include "core/engine/Matcher.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::cost;
namespace td = tessera::cost::testdata;

namespace {

Offer priced(double dollars) {
  Offer o;
  o.label = "offer";
  o.pricePerGpuHour = dollars;
  return o;
}

constexpr double kReclaimsPerDay = 2;

CapacityChoice choiceFor(double checkpointHours) {
  WorkloadProfile w = td::articleTraining();
  w.checkpointIntervalHours = checkpointHours;
  // Firm at $3.00, interruptible at $2.40 (20% off), reclaimed twice a day.
  return chooseCapacity(w, td::articleCluster(true), priced(3.0), priced(2.4), kReclaimsPerDay);
}

}  // namespace

class TestInterruptionCost : public QObject {
  Q_OBJECT
 private slots:
  void aJobThatCheckpointsOftenIsCheaperOnInterruptible() {
    // A quarter-hour interval: each reclaim loses about 7.5 minutes of work and a 10-minute
    // restart, about 2.5% of the run at two a day, well under the 20% discount.
    const CapacityChoice c = choiceFor(0.25);
    QCOMPARE(c.cheaper, std::optional(CapacityKind::Interruptible));
    const auto& spot = std::get<CostBreakdown>(c.interruptible);
    const auto& firm = std::get<CostBreakdown>(c.firm);
    QVERIFY(spot.expectedInterruptions > 50);  // ~2 a day over ~31 days
    QVERIFY(spot.terms.failedWork > 0);
    QCOMPARE(c.saving, firm.terms.total() - spot.terms.total());
    QVERIFY(c.saving > 0.1 * firm.terms.total());
  }

  void aLongCheckpointIntervalMakesInterruptibleDearer() {
    // An 8-hour interval: each reclaim loses 4 hours of work and the restart, about half the
    // run again at two a day: more than the discount saves.
    const CapacityChoice c = choiceFor(8);
    QCOMPARE(c.cheaper, std::optional(CapacityKind::Firm));
    const auto& spot = std::get<CostBreakdown>(c.interruptible);
    const auto& firm = std::get<CostBreakdown>(c.firm);
    QVERIFY(spot.terms.total() > firm.terms.total());
    QVERIFY(spot.wallClockHours > 1.4 * firm.wallClockHours);
  }

  void unwatchedCapacityIsNotRiskFree() {
    QCOMPARE(reclaimsPerDay({}), 1.0);
    // Three reclaims over two contracted days: (3 + 1) / (2 + 1).
    QVERIFY(qAbs(reclaimsPerDay({3, 48}) - 4.0 / 3.0) < 1e-12);
    // Many days without a reclaim bring the rate towards zero.
    QVERIFY(reclaimsPerDay({0, 24 * 999}) < 0.0011);
  }

  void thePlannerPricesReclaimsOnInterruptibleClusters() {
    // Cluster 1 firm at $2.00 and its interruptible book 2 at $1.95.
    auto book = makeMatchingEngine();
    std::vector<Event> ev;
    Cluster firm;
    firm.id = 1;
    firm.nodeCount = 4;
    Cluster spot = firm;
    spot.id = 2;
    spot.interruptibleOf = 1;
    spot.noticeHours = 1;
    book->apply(firm, ev);
    book->apply(spot, ev);
    for (ClusterId c : {1u, 2u}) {
      book->apply(CapacityGrant{7, c, 16, 0, 100}, ev);
      OrderRequest ask;
      ask.id = c;
      ask.account = 7;
      ask.side = Side::Sell;
      ask.cluster = c;
      ask.gpus = 16;
      ask.start = 0;
      ask.end = 100;
      ask.limit = c == 2 ? 1'950'000 : 2'000'000;
      ask.interruptible = c == 2;
      book->apply(ask, ev);
    }
    WorkloadProfile w = td::articleTraining();
    w.parallelism.data = 16;
    w.steps = 2000;
    w.checkpointIntervalHours = 4;
    ClusterConstraints accepts;
    accepts.acceptsInterruptible = true;
    const auto ranked = rankClustersByEffectiveCost(*book, w, accepts, 0, 100);
    QCOMPARE(ranked.size(), std::size_t(2));
    // Cheaper by the hour, but at one reclaim a day (nothing observed yet) a 4-hour checkpoint
    // interval loses more than the 2.5% discount saves: firm ranks first.
    QCOMPARE(ranked[0].cluster.id, ClusterId{1});
    QCOMPARE(ranked[1].cluster.id, ClusterId{2});
    QVERIFY(std::get<CostBreakdown>(ranked[1].result).terms.failedWork >
            std::get<CostBreakdown>(ranked[0].result).terms.failedWork);
    // Observed to be reclaimed once in 100 days, it is the cheaper one.
    const auto steady = rankClustersByEffectiveCost(*book, w, accepts, 0, 100, deriveTopology, [](const Cluster&) {
      return reclaimsPerDay({0, 2400});
    });
    QCOMPARE(steady[0].cluster.id, ClusterId{2});
    // A firm-only buyer's constraints never see the interruptible book.
    QCOMPARE(rankClustersByEffectiveCost(*book, w, ClusterConstraints{}, 0, 100).size(), std::size_t(1));
  }
};

QTEST_GUILESS_MAIN(TestInterruptionCost)
#include "test_interruption_cost.moc"
