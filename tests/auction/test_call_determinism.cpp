// The same call clears the same way byte for byte: clearing a freshly built problem of the same
// orders again, in this process and under a node limit, gives the same JSON.
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
};

QTEST_APPLESS_MAIN(TestCallDeterminism)
#include "test_call_determinism.moc"
