// tessera-cli scale as a user runs it: the tessera-cli program against a tessera-exchange
// program on loopback, both started here, through a scripted sequence of fills, a cancelled
// listing, a hand-made extra purchase and a provider outage; what the account holds is checked
// over the exchange's own protocol after every round.
#include "CliTestSupport.h"
#include "ExchangeProcess.h"
#include "HeldAtExchange.h"
#include "TcpProxy.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

// What the exchange says `account` holds on H100 clusters (1 and 3) in each hour of [from, to).
std::vector<GpuCount> heldAtExchange(std::uint16_t port, const std::string& account, Hour from, Hour to) {
  return tessera::net::testing::heldAtExchange(port, account, from, to, [](ClusterId c) { return c == 1 || c == 3; });
}

std::string orderIdIn(const std::string& out) {
  const auto at = out.find("order_id=");
  return at == std::string::npos ? "" : out.substr(at + 9, out.find(' ', at) - at - 9);
}

}  // namespace

class TestCliScale : public QObject {
  Q_OBJECT
 private slots:
  // Six H100 GPUs in us-east held for every hour of the next day, through: a listing cancelled
  // before the first round, a restart, an extra purchase made by hand (sold back), and an outage
  // of the cluster it bought on first (the provider's replacement counted once).
  // Fails if heldShape counts a replacement on top of the contract it replaces (Procurement.cpp:
  // drop the `add(..., -c.gpus)` of `c.replaces`): the round after the outage reports 12 GPUs
  // held in those hours. Fails if a round plans without the exchange's positions (a restart then
  // buys the day again), or if sell-backs do not name a contract the account holds.
  void holdsTheTargetThroughFillsCancelsAndAnOutage() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfigWithSpareH100());
    const std::uint16_t port = exchange.port();
    const Hour from = kNow + 1, to = kNow + 25;
    const auto sell = [&](int cluster, int gpus, Hour end, double usd, const std::string& terms) {
      return json{{"side", "sell"},
                  {"cluster", cluster},
                  {"gpus", gpus},
                  {"start", kNow},
                  {"end", end},
                  {"limit", std::llround(usd * kDollar)},
                  {"terms", json::parse(terms)}}
          .dump();
    };
    // The cheapest listing is withdrawn before the first round; the next two are bought.
    ProgramResult r = cli(port, "provider", {"place", "--json", sell(1, 8, kNow + 24, 1.5, "{}")});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "provider", {"cancel", orderIdIn(r.out)});
    QVERIFY2(r.code == 0 && r.out.find("cancelled") != std::string::npos, (r.out + r.err).c_str());
    r = cli(
        port, "provider",
        {"place", "--json", sell(1, 8, kNow + 12, 2.0, R"({"remedy":"replacement","replacement_within_hours":2})")});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "provider", {"place", "--json", sell(3, 16, kNow + 48, 2.4, "{}")});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());

    const std::vector<std::string> scale = {
        "scale", "--gpus", "6",  "--accelerator", "H100", "--region",         "us-east", "--horizon",
        "24h",   "--lead", "1h", "--limit-usd",   "2.5",  "--sell-floor-usd", "2.3"};
    r = cli(port, "alice", scale);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("short 144 GPU-hours") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("order: buy 6 GPUs on cluster 1 (test-h100), ") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("order: buy 6 GPUs on cluster 3 (test-h100-b), ") != std::string::npos, r.out.c_str());
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(2));

    // A restart (and a schedule of two rounds a second apart) finds the day held: nothing to do.
    std::vector<std::string> twice = scale;
    twice.insert(twice.end(), {"--every", "1s", "--rounds", "2"});
    r = cli(port, "alice", twice);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("scale: round 2") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("order:") == std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("short 0 GPU-hours, over 0 GPU-hours") != std::string::npos, r.out.c_str());
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(2));

    // Two GPUs more for four hours, bought by hand; bob bids above the floor (and below the
    // provider's ask, so his bid rests): they are sold back.
    r = cli(port, "alice",
            {"buy", "--cluster", "3", "--gpus", "2", "--start", hour(kNow + 14), "--end", hour(kNow + 18),
             "--limit-usd", "2.4", "--yes"});
    QVERIFY2(r.code == 0 && r.out.find("filled") != std::string::npos, (r.out + r.err).c_str());
    r = cli(port, "bob",
            {"place", "--side", "buy", "--cluster", "3", "--gpus", "2", "--start", hour(kNow + 14), "--end",
             hour(kNow + 18), "--limit-usd", "2.35"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    std::vector<std::string> asJson = scale;
    asJson.insert(asJson.begin(), "--json");
    r = cli(port, "alice", asJson);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const json round = json::parse(r.out);
    QCOMPARE(round["over_gpu_hours"].get<int>(), 8);
    QCOMPARE(round["orders"].size(), std::size_t(1));
    QCOMPARE(round["orders"][0]["side"].get<std::string>(), std::string("sell"));
    QCOMPARE(round["orders"][0]["sell_back"].get<int>(), 3);  // the contract bought by hand
    QCOMPARE(round["outcomes"][0]["state"].get<std::string>(), std::string("filled"));
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));

    // The provider loses cluster 1 for three hours; its replacement on cluster 3 keeps the six.
    r = cli(port, "provider", {"outage", "1", "--start", hour(kNow + 3), "--end", hour(kNow + 6), "--lost", "64"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const json contracts = ask(port, "alice", "positions")["contracts"];
    QVERIFY2(std::any_of(contracts.begin(), contracts.end(), [](const json& c) { return c["replaces"] == 1; }),
             contracts.dump().c_str());
    r = cli(port, "alice", asJson);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const json after = json::parse(r.out);
    QCOMPARE(after["held"], json::parse(R"([{"start":)" + hour(from) + R"(,"end":)" + hour(to) + R"(,"gpus":6}])"));
    QCOMPARE(after["orders"].size(), std::size_t(0));
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));

    // `contracts` shows the same holding per cluster, as steps: the outage's hours moved from
    // cluster 1 to cluster 3, the sell-back netted out.
    // Fails if the shape is printed without the sell-backs (printHeldShape skipping sold contracts).
    r = cli(port, "alice", {"contracts"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("  cluster 1 (test-h100): 6 from 2038-06-13T01:00Z to 2038-06-13T03:00Z, 0 from "
                        "2038-06-13T03:00Z to 2038-06-13T06:00Z, 6 from 2038-06-13T06:00Z to 2038-06-13T12:00Z\n") !=
                 std::string::npos,
             r.out.c_str());
    QVERIFY2(r.out.find("  cluster 3 (test-h100-b): 6 from 2038-06-13T03:00Z to 2038-06-13T06:00Z, 0 from "
                        "2038-06-13T06:00Z to 2038-06-13T12:00Z, 6 from 2038-06-13T12:00Z to 2038-06-14T01:00Z\n") !=
                 std::string::npos,
             r.out.c_str());
  }

  // An outage whose contract has no replacement remedy: the exchange's positions say which hours
  // of alice's contract are lost ("lost"), the next round counts them as not held and buys them
  // again on the other cluster. Fails if heldShape ignores HeldContract::lost (the round after
  // the outage reports the day held and orders nothing).
  void buysAgainWhatAnOutageTookWithoutReplacement() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfigWithSpareH100());
    const std::uint16_t port = exchange.port();
    const Hour from = kNow + 1, to = kNow + 25;
    const auto sell = [&](int cluster, int gpus, double usd) {
      return json{{"side", "sell"}, {"cluster", cluster}, {"gpus", gpus},
                  {"start", kNow},  {"end", kNow + 48},   {"limit", std::llround(usd * kDollar)}}
          .dump();
    };
    // Exactly the six GPUs on cluster 1, so that no ask of the downed cluster is left to buy.
    ProgramResult r = cli(port, "provider", {"place", "--json", sell(1, 6, 2.0)});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "provider", {"place", "--json", sell(3, 8, 2.4)});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const std::vector<std::string> scale = {"--json", "scale",    "--gpus",      "6",         "--accelerator",
                                            "H100",   "--region", "us-east",     "--horizon", "24h",
                                            "--lead", "1h",       "--limit-usd", "2.5"};
    r = cli(port, "alice", scale);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    json round = json::parse(r.out);
    QVERIFY2(round["orders"].size() == 1, r.out.c_str());
    QCOMPARE(round["orders"][0]["cluster"].get<int>(), 1);
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));

    // Cluster 1 is down for three hours; its listing had no replacement remedy.
    r = cli(port, "provider", {"outage", "1", "--start", hour(kNow + 3), "--end", hour(kNow + 6), "--lost", "64"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const json contracts = ask(port, "alice", "positions")["contracts"];
    QCOMPARE(contracts.size(), std::size_t(1));
    QCOMPARE(contracts[0]["lost"],
             json::parse(R"([{"start":)" + hour(kNow + 3) + R"(,"end":)" + hour(kNow + 6) + R"(,"gpus":6}])"));
    std::vector<GpuCount> expected(24, 6);
    for (int i = 2; i < 5; ++i) expected[static_cast<std::size_t>(i)] = 0;
    QCOMPARE(heldAtExchange(port, "alice", from, to), expected);

    r = cli(port, "alice", scale);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    round = json::parse(r.out);
    QCOMPARE(round["missing_gpu_hours"].get<int>(), 18);
    QVERIFY2(round["orders"].size() == 1, r.out.c_str());
    QCOMPARE(round["orders"][0]["cluster"].get<int>(), 3);
    QCOMPARE(round["orders"][0]["start"].get<Hour>(), kNow + 3);
    QCOMPARE(round["orders"][0]["end"].get<Hour>(), kNow + 6);
    QCOMPARE(round["orders"][0]["gpus"].get<int>(), 6);
    QCOMPARE(round["outcomes"][0]["state"].get<std::string>(), std::string("filled"));
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));
    // And a restart finds nothing more to do.
    r = cli(port, "alice", scale);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QCOMPARE(json::parse(r.out)["orders"].size(), std::size_t(0));
  }

  // A run that stops between sending its buy and hearing the answer, restarted before the
  // exchange has that buy, decides the same and names the same order: the late copy is refused
  // and the hours are bought once. The proxy holds the first run's new_order back until the
  // second run has bought; the first run ends on its --timeout with its order in flight.
  // Fails with a client order id that is new on every run (a wall-clock or random part in
  // scaleClOrdId): the late order buys six GPUs more.
  void aRestartBeforeTheAckBuysOnce() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfigWithSpareH100());
    const std::uint16_t port = exchange.port();
    const Hour from = kNow + 1, to = kNow + 25;
    ProgramResult r = cli(port, "provider",
                          {"place", "--side", "sell", "--cluster", "1", "--gpus", "16", "--start", hour(kNow), "--end",
                           hour(kNow + 48), "--limit-usd", "2"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const std::vector<std::string> scale = {"--timeout", "2",   "scale",  "--gpus", "6",           "--cluster", "1",
                                            "--horizon", "24h", "--lead", "1h",     "--limit-usd", "2.5"};
    TcpProxy proxy(port);
    proxy.holdUpLinesContaining(R"("type":"new_order")");
    r = cli(proxy.port(), "alice", scale);
    QVERIFY2(r.out.find("order: buy 6 GPUs on cluster 1") != std::string::npos, (r.out + r.err).c_str());
    QVERIFY2(r.err.find("not every order was answered") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(proxy.heldLines(), 1);
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(0));  // not at the exchange yet

    r = cli(port, "alice", scale);  // the restart
    QVERIFY2(r.code == 0 && r.out.find("  filled 6 GPUs on cluster 1") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));

    proxy.releaseHeld();  // the first run's order arrives at last, and is answered
    // Every session of the account hears its executions: the restart's fill, then the answer to
    // the late order (refused, or under the mutation a second fill).
    const auto answered = [&] {
      int fills = 0;
      for (const std::string& line : proxy.unheard()) {
        if (line.find("duplicate_cl_ord_id") != std::string::npos) return true;
        if (line.find(R"("type":"exec")") != std::string::npos && line.find("filled") != std::string::npos) ++fills;
      }
      return fills >= 2;
    };
    QTRY_VERIFY_WITH_TIMEOUT(answered(), 5000);
    const auto unheard = proxy.unheard();
    QVERIFY2(std::any_of(unheard.begin(), unheard.end(),
                         [](const std::string& l) { return l.find("duplicate_cl_ord_id") != std::string::npos; }),
             unheard.empty() ? "" : unheard.back().c_str());
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(1));
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));
  }

  // --lead 0h (the default) counts the hour in progress: the exchange trades it (docs/matching.md:
  // start >= now) and the contract covers the whole hour at the whole hour's price, however much
  // of it has passed. Fails if the horizon started at now + 1 for lead 0.
  void leadZeroBuysTheHourInProgress() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    const std::uint16_t port = exchange.port();
    ProgramResult r = cli(port, "provider",
                          {"place", "--side", "sell", "--cluster", "1", "--gpus", "8", "--start", hour(kNow), "--end",
                           hour(kNow + 4), "--limit-usd", "2"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "alice",
            {"--json", "scale", "--gpus", "4", "--cluster", "1", "--horizon", "2h", "--limit-usd", "2.5"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const json round = json::parse(r.out);
    QCOMPARE(round["from"].get<Hour>(), kNow);
    QCOMPARE(round["orders"][0]["start"].get<Hour>(), kNow);
    QCOMPARE(round["outcomes"][0]["state"].get<std::string>(), std::string("filled"));
    const json c = ask(port, "alice", "positions")["contracts"][0];
    QCOMPARE(c["start"].get<Hour>(), kNow);
    QCOMPARE(c["end"].get<Hour>(), kNow + 2);
    QCOMPARE(c["price"].get<Price>(), Price{2'000'000});
  }

  // Nothing offered at or below the limit: the round says so, orders nothing, and exits 0; bad
  // arguments are refused before connecting.
  void saysWhyItCannotBuy() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    const std::uint16_t port = exchange.port();
    ProgramResult r = cli(port, "provider",
                          {"place", "--side", "sell", "--cluster", "1", "--gpus", "8", "--start", hour(kNow), "--end",
                           hour(kNow + 48), "--limit-usd", "3"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "alice", {"scale", "--gpus", "4", "--cluster", "1", "--horizon", "2h", "--limit-usd", "2.5"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("hold 0; 4 short with nothing more offered at or below $2.50") != std::string::npos,
             r.out.c_str());
    QVERIFY2(r.out.find("nothing to order this round") != std::string::npos, r.out.c_str());
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(0));

    r = cli(port, "alice", {"scale", "--gpus", "4", "--cluster", "1", "--limit-usd", "2.5", "--every", "soon"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("--every") != std::string::npos, r.err.c_str());
    r = cli(port, "alice", {"scale", "--gpus", "4", "--limit-usd", "2.5"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("needs --cluster") != std::string::npos, r.err.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCliScale)
#include "test_cli_scale.moc"
