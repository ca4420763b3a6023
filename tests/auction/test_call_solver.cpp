// The block selection's fast path (relaxation, Lagrangian bound, greedy and dive) against its
// exact search on seeded markets:
// - boundIsHonest: a selection stopped within a relative gap reports a bound at least the exact
//   optimum, a welfare at most it, and an optimum within the gap when it says so.
//   Mutation seen failing: lagrangianBound leaving out the exclusive groups' term (the bound
//   then falls below the optimum).
// - warmRoundsEqualFresh: the rounds of one BlockSelector (warm relaxation, forbidden blocks
//   growing) give the optimum a fresh selection of each round gives, and never accept a
//   forbidden block.
//   Mutation seen failing: BlockSelector::select not updating the allowed blocks from the cuts
//   (it keeps the first round's).
#include "core/auction/BlockSelection.h"
#include "core/auction/HourlyClearing.h"
#include "core/auction/SyntheticMarket.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::auction;

namespace {

ClearingProblem market(std::uint64_t seed, int orders) {
  SyntheticMarketOptions o;
  o.clusters = 3;
  o.hours = 24;
  o.orders = orders;
  o.blockBidShare = 0.35;
  o.blockAskShare = 0.05;
  o.maxWindow = 10;
  o.maxSlack = 3;
  o.maxGpus = 24;
  const SyntheticMarket m = generateMarket(o, seed);
  return std::get<ClearingProblem>(buildClearingProblem(m.orders, m.clusters, m.now));
}

// The exact welfare of a selection, micro-dollars.
Money exactWelfare(const ClearingProblem& p, const std::vector<char>& accepted) {
  const auto hc = clearHours(p, accepted);
  if (!hc) throw std::logic_error("a selection that does not balance");
  return selectionWelfare(p, accepted, *hc);
}

}  // namespace

class TestCallSolver : public QObject {
  Q_OBJECT
 private slots:
  void boundIsHonest() {
    int stoppedInGap = 0;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      const ClearingProblem p = market(seed, 80);
      if (p.blocks.empty()) continue;
      SolverLimits exactLimits;
      exactLimits.seconds = 120;
      const BlockSelectionResult exact = selectBlocks(p, {}, exactLimits);
      QVERIFY2(exact.optimal, qPrintable(QString("seed %1").arg(seed)));
      const Money optimum = exactWelfare(p, exact.accepted);
      SolverLimits fast = exactLimits;
      fast.relativeGap = 0.02;
      const BlockSelectionResult r = selectBlocks(p, {}, fast);
      const Money found = exactWelfare(p, r.accepted);
      QVERIFY2(
          static_cast<double>(found) * 1e-6 - r.welfare < 1e-6 && r.welfare - static_cast<double>(found) * 1e-6 < 1e-6,
          "the reported welfare is the selection's");
      QVERIFY2(found <= optimum, qPrintable(QString("seed %1").arg(seed)));
      QVERIFY2(
          r.bound >= static_cast<double>(optimum) * 1e-6 - 1e-6,
          qPrintable(QString("seed %1: bound %2 below the optimum %3").arg(seed).arg(r.bound).arg(optimum * 1e-6)));
      if (r.optimal) {
        QVERIFY(r.bound - r.welfare <= fast.relativeGap * std::abs(r.welfare) + 1e-6);
        QVERIFY(static_cast<double>(optimum - found) <= fast.relativeGap * static_cast<double>(optimum) + 1);
      }
      stoppedInGap += r.optimal && r.nodes == 0 ? 1 : 0;
    }
    // The fast path itself closes the gap on most markets (no branch and bound).
    QVERIFY2(stoppedInGap >= 15, qPrintable(QString("%1 markets closed without branching").arg(stoppedInGap)));
  }

  void warmRoundsEqualFresh() {
    int rounds = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const ClearingProblem p = market(100 + seed, 60);
      if (p.blocks.empty()) continue;
      SolverLimits limits;
      limits.seconds = 120;
      BlockSelector selector(p, limits.seed);
      SelectionCuts cuts;
      cuts.forbidden.assign(p.blocks.size(), 0);
      for (int round = 0; round < 4; ++round) {
        const BlockSelectionResult warm = selector.select(cuts, limits);
        const BlockSelectionResult fresh = selectBlocks(p, cuts, limits);
        QVERIFY(warm.optimal && fresh.optimal);
        QCOMPARE(exactWelfare(p, warm.accepted), exactWelfare(p, fresh.accepted));
        ++rounds;
        // Forbid the first accepted block, as the no-PAB loop would.
        std::size_t first = p.blocks.size();
        for (std::size_t b = 0; b < p.blocks.size(); ++b) {
          QVERIFY2(!(warm.accepted[b] && cuts.forbidden[b]), "a forbidden block accepted");
          if (warm.accepted[b] && first == p.blocks.size()) first = b;
        }
        if (first == p.blocks.size()) break;
        cuts.forbidden[first] = 1;
      }
    }
    QVERIFY(rounds > 40);
  }
};

QTEST_APPLESS_MAIN(TestCallSolver)
#include "test_call_solver.moc"
