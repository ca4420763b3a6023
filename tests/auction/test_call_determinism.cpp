// The same call clears the same way byte for byte: clearing a freshly built problem of the same
// orders again, in this process and under a node limit, gives the same JSON; so does a large
// call stopped within a relative gap (relaxation, heuristics, warm no-PAB rounds), when it does
// not stop on its time limit.
// Mutation seen failing: toJson writing the call's wall time (which differs run to run).
#include "core/auction/CallAuction.h"
#include "core/auction/SyntheticMarket.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::auction;

class TestCallDeterminism : public QObject {
  Q_OBJECT
 private slots:
  void sameCallSameBytes() {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      SyntheticMarketOptions o;
      o.clusters = 3;
      o.hours = 12;
      o.orders = 40;
      o.blockBidShare = 0.4;
      o.blockAskShare = 0.05;
      o.maxWindow = 8;
      CallOptions options;
      options.solver.nodes = 200;  // a deterministic limit: the solve may stop early, the same way
      const SyntheticMarket m = generateMarket(o, seed);
      const std::string first =
          toJson(clearCall(std::get<ClearingProblem>(buildClearingProblem(m.orders, m.clusters, m.now)), options));
      const std::string second =
          toJson(clearCall(std::get<ClearingProblem>(buildClearingProblem(m.orders, m.clusters, m.now)), options));
      QCOMPARE(second, first);
      QVERIFY(first.find("\"blocks\":[{") != std::string::npos);  // blocks were accepted
    }
  }

  void largeCallSameBytes() {
    SyntheticMarketOptions o;
    o.clusters = 6;
    o.hours = 48;
    o.orders = 3000;
    o.blockBidShare = 0.3;
    o.blockAskShare = 0.02;
    o.maxWindow = 24;
    o.maxSlack = 4;
    o.maxGpus = 64;
    const SyntheticMarket m = generateMarket(o, 7);
    CallOptions options;
    options.solver.seconds = 300;  // generous: the call must end within its gap, not on time
    options.solver.relativeGap = 0.001;
    options.exactPabRounds = 0;
    auto clear = [&] {
      return clearCall(std::get<ClearingProblem>(buildClearingProblem(m.orders, m.clusters, m.now)), options);
    };
    const CallResult first = clear();
    QVERIFY(!first.stoppedOnTime);
    QVERIFY(first.gap <= 0.001);
    QVERIFY(first.blocks.size() > 100);
    QCOMPARE(toJson(clear()), toJson(first));
  }
};

QTEST_APPLESS_MAIN(TestCallDeterminism)
#include "test_call_determinism.moc"
