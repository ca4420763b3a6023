// tessera-cli's cost model on a live book, as a user runs it: quote and buy --effective-cost and
// plan --connect, the tessera-cli program against a tessera-exchange program on loopback, both
// started here; what the order carried is checked over the exchange's own protocol.
#include "CliTestSupport.h"
#include "ExchangeProcess.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

const std::string kWorkload = std::string(TESSERA_SOURCE_DIR) + "/resources/workloads/finetune-8b-single-node.json";

}  // namespace

class TestCliEffectiveCost : public QObject {
  Q_OBJECT
 private slots:
  // Fails if buy drops the factors it printed (ClientCommand.cpp: `order.costFactors = {}`): the
  // resting order at the exchange has no effective_cost_factors.
  void quoteBuyAndPlanOnTheLiveBook() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    const std::uint16_t port = exchange.port();
    for (const auto& [cluster, price] : {std::pair{"1", "2"}, std::pair{"2", "3"}}) {
      ProgramResult r = cli(port, "provider",
                            {"place", "--side", "sell", "--cluster", cluster, "--gpus", "16", "--start", hour(kNow),
                             "--end", hour(kNow + 40), "--limit-usd", price});
      QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    }
    const std::vector<std::string> rectangle = {
        "--accelerator", "H100,H200", "--effective-cost", kWorkload, "--start", "now", "--for", "36h"};
    std::vector<std::string> quote = {"quote"};
    quote.insert(quote.end(), rectangle.begin(), rectangle.end());
    ProgramResult r = cli(port, "alice", quote);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(
        r.out.find("effective cost of finetune-8b-single-node (8 GPUs), 2038-06-13T00:00Z to 2038-06-14T12:00Z UTC") !=
            std::string::npos,
        r.out.c_str());
    QVERIFY2(r.out.find("  cluster 1 (test-h100): ask $2.0000/GPU-h, $") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("  cluster 2 (test-h200): ask $3.0000/GPU-h, $") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("quote: buy 8 GPUs on cluster 1") != std::string::npos,
             r.out.c_str());  // GPUs from the workload

    // A bid below the asks rests, and carries a factor for each cluster it ranks.
    std::vector<std::string> buy = {"buy", "--limit-usd", "1.5", "--yes"};
    buy.insert(buy.end(), rectangle.begin(), rectangle.end());
    r = cli(port, "alice", buy);
    QVERIFY2(r.code == 0 && r.out.find("ranked by effective cost on 2 cluster(s)") != std::string::npos,
             (r.out + r.err).c_str());
    LineClient c(port);
    QVERIFY(c.logon("alice"));
    c.send(R"({"type":"orders"})");
    const auto orders = c.until("orders");
    QVERIFY(orders);
    QCOMPARE((*orders)["orders"].size(), std::size_t(1));
    const json factors = (*orders)["orders"][0]["order"]["effective_cost_factors"];
    QVERIFY2(factors.is_array() && factors.size() == 2, orders->dump().c_str());

    // A divisible buy cannot use the ranking: refused before connecting.
    r = cli(port, "alice",
            {"buy", "--cluster", "1", "--effective-cost", kWorkload, "--start", "now", "--for", "36h", "--yes"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("all-or-none") != std::string::npos, r.err.c_str());

    // plan --connect: the planner on the exchange's book.
    r = cli(port, "alice", {"plan", "--workload", kWorkload, "--start-in", "0", "--latest-start-in", "2"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("1. test-h100: 8 x H100") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("\"effective_cost_factors\"") != std::string::npos, r.out.c_str());
    r = cli(port, "alice", {"plan", "--workload", kWorkload, "--kinds", "Z9"});
    QCOMPARE(r.code, 2);
  }
};

QTEST_GUILESS_MAIN(TestCliEffectiveCost)
#include "test_cli_effective_cost.moc"
