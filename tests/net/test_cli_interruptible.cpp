// Interruptible capacity from tessera-cli as a user runs it: the tessera-cli program against a
// tessera-exchange program on loopback, both started here, what reached the exchange checked over
// its own protocol. A provider lists with --interruptible, a buyer naming the interruptible
// cluster without it is refused, a constraint buy with --interruptible --checkpoint-hours fills
// there, and the provider's `reclaim` refunds the buyer (and is refused inside the notice).
//
// Mutations seen failing: ClientCommand's constraint buy not copying --interruptible into the
// order (the quote picks the interruptible cluster, the order names none it may trade: the buy
// fails); `reclaim` sending twice --gpus (the refund is $24, not $12); heldContracts without the
// reclaimed runs (positions shows 8 GPUs held to the end); quote --effective-cost ranking without
// the observed rates (the interruptible cluster's effective price is the same before and after
// the reclaim).
#include "CliTestSupport.h"
#include "ExchangeProcess.h"
#include "core/domain/HourText.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

// marketConfig() with cluster 1's 64 GPUs split: 32 firm, 32 on its interruptible book
// (cluster 3, "test-h100-interruptible", three hours' notice).
ExchangeConfig interruptibleConfig() {
  ExchangeConfig c = marketConfig();
  Cluster spot = c.clusters.front();
  spot.id = 3;
  spot.name = "test-h100-interruptible";
  spot.interruptibleOf = 1;
  spot.noticeHours = 3;
  c.clusters.push_back(spot);
  c.grants = {GrantConfig{"provider", "test-h100", 32, kNow, kNow + 48},
              GrantConfig{"provider", "test-h100-interruptible", 32, kNow, kNow + 48}};
  return c;
}

const std::string kWorkload = std::string(TESSERA_SOURCE_DIR) + "/resources/workloads/finetune-8b-single-node.json";

// The effective price quote --effective-cost gives the interruptible cluster, in dollars (-1 if none).
double interruptibleEffectivePrice(std::uint16_t port) {
  const ProgramResult r = cli(port, "alice",
                              {"quote", "--accelerator", "H100", "--interruptible", "--checkpoint-hours", "1",
                               "--effective-cost", kWorkload, "--start", hour(kNow + 6), "--end", hour(kNow + 42)});
  const std::string key = "cluster 3 (test-h100-interruptible): ask $1.5000/GPU-h, $";
  const auto at = r.out.find(key);
  if (at == std::string::npos) qWarning("%s", (r.out + r.err).c_str());
  return at == std::string::npos ? -1 : std::stod(r.out.substr(at + key.size()));
}

}  // namespace

class TestCliInterruptible : public QObject {
  Q_OBJECT
 private slots:
  void listBuyAndReclaimInterruptibleCapacity() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), interruptibleConfig());
    const std::uint16_t port = exchange.port();
    ProgramResult r = cli(port, "provider",
                          {"place", "--side", "sell", "--cluster", "3", "--gpus", "8", "--start", hour(kNow + 2),
                           "--end", hour(kNow + 6), "--limit-usd", "1.50", "--interruptible"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    // A buyer who does not say --interruptible cannot trade the interruptible book.
    r = cli(port, "alice",
            {"place", "--side", "buy", "--cluster", "3", "--gpus", "8", "--start", hour(kNow + 2), "--end",
             hour(kNow + 6), "--limit-usd", "2"});
    QVERIFY2(r.code != 0 && (r.out + r.err).find("capacity_mismatch") != std::string::npos, (r.out + r.err).c_str());
    QVERIFY(ask(port, "alice", "positions")["contracts"].empty());
    // Carol accepts interruptible capacity, by constraints, checkpointing every hour.
    r = cli(port, "carol",
            {"buy", "--accelerator", "H100", "--gpus", "8", "--start", hour(kNow + 2), "--end", hour(kNow + 6),
             "--limit-usd", "2", "--interruptible", "--checkpoint-hours", "1", "--yes"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    json carol = ask(port, "carol", "positions")["contracts"];
    QCOMPARE(carol.size(), std::size_t(1));
    QCOMPARE(carol[0]["cluster"].get<int>(), 3);
    const Money cashBefore = ask(port, "carol", "balance")["cash"].get<Money>();
    // More interruptible supply for the planner's quote, which prices it at the observed rate.
    r = cli(port, "provider",
            {"place", "--side", "sell", "--cluster", "3", "--gpus", "8", "--start", hour(kNow + 6), "--end",
             hour(kNow + 42), "--limit-usd", "1.50", "--interruptible"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const double beforeReclaim = interruptibleEffectivePrice(port);
    QVERIFY(beforeReclaim > 1.5);
    // Inside the notice: refused, nothing changes.
    r = cli(port, "provider", {"reclaim", "1", "--start", hour(kNow + 2), "--end", hour(kNow + 4), "--gpus", "4"});
    QVERIFY2(r.code != 0 && r.err.find("notice_too_short") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(ask(port, "carol", "balance")["cash"].get<Money>(), cashBefore);
    // With the notice: 4 GPUs x 2 hours at $1.50 come back to Carol.
    r = cli(port, "provider", {"reclaim", "1", "--start", hour(kNow + 4), "--end", hour(kNow + 6), "--gpus", "4"});
    QVERIFY2(r.code == 0 && r.out.find("reclaim_ack") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(ask(port, "carol", "balance")["cash"].get<Money>(), cashBefore + 12 * kMicrosPerDollar);
    carol = ask(port, "carol", "positions")["contracts"];
    QCOMPARE(carol[0]["reclaimed"],
             json::parse(R"([{"start":)" + hour(kNow + 4) + R"(,"end":)" + hour(kNow + 6) + R"(,"gpus":4}])"));
    // What tessera-cli shows Carol holding has lost the reclaimed GPUs.
    r = cli(port, "carol", {"contracts"});
    QVERIFY2(
        r.out.find("cluster 3 (test-h100-interruptible): 8 from " + isoHour(kNow + 2) + " to " + isoHour(kNow + 4) +
                   ", 4 from " + isoHour(kNow + 4) + " to " + isoHour(kNow + 6)) != std::string::npos,
        r.out.c_str());
    // The observed reclaim makes interruptible capacity dearer to the planner.
    const double afterReclaim = interruptibleEffectivePrice(port);
    QVERIFY2(afterReclaim > beforeReclaim,
             (std::to_string(beforeReclaim) + " -> " + std::to_string(afterReclaim)).c_str());
  }
};

QTEST_GUILESS_MAIN(TestCliInterruptible)
#include "test_cli_interruptible.moc"
