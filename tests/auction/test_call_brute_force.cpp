// The call's clearing equals a brute-force enumeration of every selection of blocks (at most one
// per exclusive group) on many small random markets: the programme's optimum is the best
// selection that balances, and the call's result is the best selection that also has prices
// keeping every accepted block in the money.
// Mutation seen failing: dropping the exclusive-group rows in BlockSelection.cpp (the solver then
// accepts two placements of one order and beats the enumeration).
#include "core/auction/CallAuction.h"
#include "core/auction/HourlyClearing.h"
#include "core/auction/PriceProgramme.h"
#include "core/auction/SyntheticMarket.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::auction;

namespace {

struct Enumeration {
  Money best = 0;        // over selections that balance
  Money bestPriced = 0;  // over selections that also have supporting prices
};

Enumeration enumerate(const ClearingProblem& p) {
  // Groups: the blocks of group g are [first[g], first[g+1]).
  std::vector<std::size_t> first;
  for (std::size_t b = 0; b < p.blocks.size(); ++b)
    if (b == 0 || p.blocks[b].group != p.blocks[b - 1].group) first.push_back(b);
  first.push_back(p.blocks.size());
  const std::size_t groups = first.size() - 1;
  std::vector<std::size_t> pick(groups, 0);  // 0: none, k: block first[g] + k - 1
  Enumeration e;
  for (;;) {
    std::vector<char> accepted(p.blocks.size(), 0);
    for (std::size_t g = 0; g < groups; ++g)
      if (pick[g]) accepted[first[g] + pick[g] - 1] = 1;
    if (auto hc = clearHours(p, accepted)) {
      const Money w = selectionWelfare(p, accepted, *hc);
      e.best = std::max(e.best, w);
      if (w > e.bestPriced && solvePrices(p, accepted, *hc)) e.bestPriced = w;
    }
    std::size_t g = 0;
    for (; g < groups; ++g) {
      if (++pick[g] <= first[g + 1] - first[g]) break;
      pick[g] = 0;
    }
    if (g == groups) break;
  }
  return e;
}

}  // namespace

class TestCallBruteForce : public QObject {
  Q_OBJECT
 private slots:
  void equalsEnumeration_data() {
    QTest::addColumn<double>("blockAsks");
    QTest::newRow("bids only as blocks") << 0.0;
    QTest::newRow("block asks too") << 0.15;
  }
  void equalsEnumeration() {
    QFETCH(double, blockAsks);
    int withBlocks = 0, paradoxical = 0;
    for (std::uint64_t seed = 1; seed <= 150; ++seed) {
      SyntheticMarketOptions o;
      o.clusters = 2;
      o.hours = 6;
      o.orders = 10;
      o.blockBidShare = 0.4;
      o.blockAskShare = blockAsks;
      o.maxWindow = 4;
      o.maxSlack = 1;
      const SyntheticMarket m = generateMarket(o, seed);
      const auto built = buildClearingProblem(m.orders, m.clusters, m.now);
      QVERIFY(std::holds_alternative<ClearingProblem>(built));
      const ClearingProblem& p = std::get<ClearingProblem>(built);
      const Enumeration e = enumerate(p);
      const CallResult r = clearCall(p);
      QVERIFY2(r.optimal, qPrintable(QString("seed %1").arg(seed)));
      QCOMPARE(r.firstRoundWelfare, e.best);
      QVERIFY2(r.rounds <= CallOptions{}.exactPabRounds, "the exact no-PAB rounds suffice on small calls");
      QCOMPARE(r.welfare, e.bestPriced);
      withBlocks += p.blocks.empty() ? 0 : 1;
      paradoxical += r.rounds > 1 ? 1 : 0;
    }
    // The markets exercise what they claim to: blocks in most, the no-PAB loop in some.
    QVERIFY(withBlocks > 100);
    qInfo("calls with blocks %d, calls that needed the no-PAB loop %d", withBlocks, paradoxical);
  }
};

QTEST_APPLESS_MAIN(TestCallBruteForce)
#include "test_call_brute_force.moc"
