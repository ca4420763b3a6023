// tessera-cli --connect as a user runs it: the tessera-cli program against a tessera-exchange
// program on loopback, both started here; what reached the exchange is checked over its own
// protocol.
#include "CliTestSupport.h"
#include "ExchangeProcess.h"
#include "TcpProxy.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

// The line of `out` that mentions `needle`.
std::string lineWith(const std::string& out, const std::string& needle) {
  const auto at = out.find(needle);
  if (at == std::string::npos) return {};
  const auto begin = out.rfind('\n', at);
  const auto end = out.find('\n', at);
  return out.substr(begin == std::string::npos ? 0 : begin + 1,
                    end == std::string::npos ? std::string::npos : end - begin - 1);
}

}  // namespace

class TestCliConnect : public QObject {
  Q_OBJECT
 private slots:
  // A buy whose replies are lost (the proxy drops every execution report) times out; the same
  // command run again reports the order the first run placed and buys nothing more.
  // Fails if each run sends a fresh client order id (ClientCommand.cpp: `placedClOrdId =
  // client.placeOrder(order, "")`, the client library's own id): the retry buys a second contract.
  void retryAfterATimeoutBuysOnce() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    ProgramResult r = cli(exchange.port(), "provider",
                          {"place", "--side", "sell", "--cluster", "1", "--gpus", "8", "--start", hour(kNow), "--end",
                           hour(kNow + 4), "--limit-usd", "2.25"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());

    const std::vector<std::string> buy = {"place",   "--side",   "buy",   "--cluster",    "1",           "--gpus", "2",
                                          "--start", hour(kNow), "--end", hour(kNow + 1), "--limit-usd", "3"};
    {
      TcpProxy proxy(exchange.port());
      proxy.dropEveryLineContaining("\"type\":\"exec\"");
      std::vector<std::string> slow = buy;
      slow.insert(slow.end(), {"--timeout", "2"});
      r = cli(proxy.port(), "alice", slow);
      QCOMPARE(r.code, 1);
      QVERIFY2(r.err.find("no answer from the exchange") != std::string::npos, r.err.c_str());
      QVERIFY2(r.err.find("Running the same command again is safe") != std::string::npos, r.err.c_str());
      QVERIFY(proxy.dropped() >= 1);
    }
    QCOMPARE(ask(exchange.port(), "alice", "positions")["contracts"].size(), std::size_t(1));  // it did buy

    r = cli(exchange.port(), "alice", buy);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("already_placed order_id=2") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("status=filled") != std::string::npos, r.out.c_str());
    QCOMPARE(ask(exchange.port(), "alice", "positions")["contracts"].size(), std::size_t(1));
    QCOMPARE(ask(exchange.port(), "alice", "balance")["cash"].get<Money>(), 10'000 * kDollar - 2 * 225 * kDollar / 100);

    // Another request is another order (the id is not one constant), and an explicit
    // --cl-ord-id places a copy deliberately.
    std::vector<std::string> three = buy;
    three[6] = "3";
    r = cli(exchange.port(), "alice", three);
    QVERIFY2(r.code == 0 && r.out.find("filled") != std::string::npos, (r.out + r.err).c_str());
    std::vector<std::string> again = buy;
    again.insert(again.end(), {"--cl-ord-id", "deliberate-copy"});
    r = cli(exchange.port(), "alice", again);
    QVERIFY2(r.code == 0 && r.out.find("filled order_id=") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(ask(exchange.port(), "alice", "positions")["contracts"].size(), std::size_t(3));
    r = cli(exchange.port(), "alice", again);  // and that id, too, only once
    QVERIFY2(r.code == 0 && r.out.find("already_placed") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(ask(exchange.port(), "alice", "positions")["contracts"].size(), std::size_t(3));
  }

  // A replacement contract (the remedy of a failed one) is the buyer's: `positions` says
  // "bought", with its state, escrow, delivered GPU-hours and the contract it replaces.
  // Fails if bought/sold is decided from buy_order (printContracts: `c.buyOrder != 0`), which is 0
  // on a replacement.
  void positionsShowAReplacementAsBought() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfigWithSpareH100());
    const std::uint16_t port = exchange.port();
    const auto sell = [&](int gpus, Hour end, int limit, const std::string& terms) {
      return json{{"side", "sell"},
                  {"cluster", 1},
                  {"gpus", gpus},
                  {"start", kNow},
                  {"end", end},
                  {"limit", limit},
                  {"terms", json::parse(terms)}}
          .dump();
    };
    ProgramResult r = cli(
        port, "provider",
        {"place", "--json", sell(8, kNow + 6, kDollar, R"({"remedy":"replacement","replacement_within_hours":2})")});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "provider", {"place", "--json", sell(56, kNow + 48, 9 * kDollar, "{}")});  // no spare on cluster 1
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "alice",
            {"place", "--side", "buy", "--cluster", "1", "--gpus", "8", "--start", hour(kNow), "--end", hour(kNow + 6),
             "--limit-usd", "1"});
    QVERIFY2(r.code == 0 && r.out.find("filled") != std::string::npos, (r.out + r.err).c_str());
    r = cli(port, "provider", {"report-delivery", "1", "--start", "+2h", "--end", "in 5 hours", "--usable", "4"});
    QVERIFY2(r.code == 0 && r.out.find("delivery_report_ack") != std::string::npos, (r.out + r.err).c_str());
    const json atExchange = ask(port, "alice", "positions")["contracts"];
    QCOMPARE(atExchange.size(), std::size_t(2));
    QCOMPARE(atExchange[1]["replaces"].get<int>(), 1);
    QCOMPARE(atExchange[1]["buy_order"].get<int>(), 0);

    r = cli(port, "alice", {"positions"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const std::string original = lineWith(r.out, "contract=1 ");
    const std::string replacement = lineWith(r.out, "replaces=1");
    QVERIFY2(original.find("contract=1 bought cluster=1 gpus=8") != std::string::npos, r.out.c_str());
    QVERIFY2(original.find("state=delivering delivered_gpu_hours=0/48") != std::string::npos, original.c_str());
    QVERIFY2(original.find("escrow=$36.0000") != std::string::npos, original.c_str());  // $48 less the $12 moved
    QVERIFY2(replacement.find(" bought cluster=3 gpus=4 hours=[" + hour(kNow + 2) + "," + hour(kNow + 5) + ")") !=
                 std::string::npos,
             r.out.c_str());
    QVERIFY2(replacement.find("escrow=$12.0000") != std::string::npos, replacement.c_str());  // 4 x 3 h x $1
    r = cli(port, "provider", {"positions"});
    QVERIFY2(lineWith(r.out, "contract=1 ").find("contract=1 sold") != std::string::npos, r.out.c_str());
    QVERIFY2(lineWith(r.out, "replaces=1").find(" sold cluster=3") != std::string::npos, r.out.c_str());

    r = cli(port, "alice", {"--json", "positions"});
    const json rows = json::parse(r.out);
    QCOMPARE(rows.size(), std::size_t(2));
    QCOMPARE(rows[1]["side"].get<std::string>(), std::string("bought"));
    QCOMPARE(rows[1]["replaces"].get<int>(), 1);
    QCOMPARE(rows[1]["escrow_usd"].get<double>(), 12.0);
  }

  // Fails if the book filter prints nothing for an empty cluster (printBook: `if (false) out <<
  // "nothing rests..."`), or accepts a cluster the exchange does not have; and if balance leaves
  // its line open.
  void balanceAndBookSayWhatTheyFound() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    ProgramResult r = cli(exchange.port(), "alice", {"balance"});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out,
             std::string("cash=$10000.0000 reserved=$0.0000 available=$10000.0000 escrow=$0.0000 credits=$0.0000\n"));
    r = cli(exchange.port(), "alice", {"balance", "--json"});
    QCOMPARE(json::parse(r.out)["available_usd"].get<double>(), 10'000.0);

    r = cli(exchange.port(), "provider",
            {"place", "--side", "sell", "--cluster", "1", "--gpus", "8", "--start", hour(kNow), "--end", hour(kNow + 1),
             "--limit-usd", "2.25"});
    QCOMPARE(r.code, 0);
    r = cli(exchange.port(), "alice", {"book", "--cluster", "2"});
    QCOMPARE(r.code, 0);
    QCOMPARE(r.out, std::string("nothing rests on cluster 2: no bids, no asks\n"));
    r = cli(exchange.port(), "alice", {"book", "--cluster", "1"});
    QCOMPARE(r.out, "cluster=1 hour=" + hour(kNow) + " asks: 8@$2.2500\n");
    r = cli(exchange.port(), "alice", {"book", "--cluster", "9"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("the exchange has no cluster 9 (it has: 1 test-h100 2 test-h200)") != std::string::npos,
             r.err.c_str());
    r = cli(exchange.port(), "alice",
            {"place", "--side", "buy", "--cluster", "9", "--gpus", "1", "--start", hour(kNow), "--end", hour(kNow + 1),
             "--limit-usd", "2"});
    QCOMPARE(r.code, 2);
    QCOMPARE(ask(exchange.port(), "alice", "orders")["orders"].size(), std::size_t(0));
  }

  // quote, buy (asked, declined, unanswered, --yes), contracts and a sell-back, with times
  // written as people write them. Fails if a phrase resolves to another hour than documented
  // (the quote's echoed window and the contract's hours at the exchange), if buy places
  // anything without a yes (a closed input taken as yes: `if (!std::getline(in, answer) && false)`),
  // or if the quote's sums are wrong.
  void quoteBuySellWithPhrases() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());  // now: 2038-06-13T00:00Z
    const std::uint16_t port = exchange.port();
    ProgramResult r = cli(port, "provider",
                          {"place", "--side", "sell", "--cluster", "1", "--gpus", "8", "--start", "now", "--end", "+2d",
                           "--limit-usd", "2"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    r = cli(port, "provider",
            {"place", "--side", "sell", "--cluster", "1", "--gpus", "8", "--start", "tomorrow", "--end",
             "2038-06-15T00:00Z", "--limit-usd", "3"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("order: sell 8 GPUs, 2038-06-14T00:00Z to 2038-06-15T00:00Z UTC, limit $3.0000/GPU-h") !=
                 std::string::npos,
             r.out.c_str());
    QCOMPARE(ask(port, "provider", "orders")["orders"][1]["order"]["start"].get<Hour>(), kNow + 24);

    const std::vector<std::string> rectangle = {"--cluster",    "1",     "--gpus", "12", "--start",
                                                "tomorrow 9am", "--for", "3h"};
    std::vector<std::string> quote = {"quote"};
    quote.insert(quote.end(), rectangle.begin(), rectangle.end());
    r = cli(port, "alice", quote);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    // Each hour: 8 GPUs at $2 and 4 at $3 = $28; three hours.
    QVERIFY2(
        r.out.find("quote: buy 12 GPUs on cluster 1 (test-h100), 2038-06-14T09:00Z to 2038-06-14T12:00Z UTC (3 h)\n"
                   "  the book offers 36 of 36 GPU-hours now: $84.00 in all, average $2.3333/GPU-h, worst "
                   "$3.0000/GPU-h\n  all-or-none: fills now\n") != std::string::npos,
        r.out.c_str());
    quote[4] = "20";
    quote.push_back("--json");
    r = cli(port, "alice", quote);
    const json q = json::parse(r.out);
    QCOMPARE(q["available_gpu_hours"].get<int>(), 48);
    QCOMPARE(q["wanted_gpu_hours"].get<int>(), 60);
    QCOMPARE(q["all_or_none_now"].get<bool>(), false);
    QCOMPARE(q["start"].get<Hour>(), kNow + 33);

    std::vector<std::string> buy = {"buy"};
    buy.insert(buy.end(), rectangle.begin(), rectangle.end());
    r = cli(port, "alice", buy, "n\n");
    QVERIFY2(r.code == 0 && r.out.find("nothing placed") != std::string::npos, (r.out + r.err).c_str());
    QVERIFY2(r.err.find("Place this order? [y/N]") != std::string::npos, r.err.c_str());
    r = cli(port, "alice", buy);  // no answer at all: a script that forgot --yes
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.find("give --yes") != std::string::npos, r.err.c_str());
    QCOMPARE(ask(port, "alice", "orders")["orders"].size(), std::size_t(0));
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(0));

    r = cli(port, "alice", buy, "y\n");
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("limit $3.0000/GPU-h, divisible, GTC") != std::string::npos, r.out.c_str());
    const json held = ask(port, "alice", "positions")["contracts"];
    std::int64_t gpuHours = 0;
    for (const json& c : held) {
      QCOMPARE(c["start"].get<Hour>(), kNow + 33);
      QCOMPARE(c["end"].get<Hour>(), kNow + 36);
      gpuHours += c["gpus"].get<std::int64_t>() * 3;
    }
    QCOMPARE(gpuHours, std::int64_t(36));
    QCOMPARE(ask(port, "alice", "balance")["cash"].get<Money>(), (10'000 - 84) * kDollar);
    r = cli(port, "alice", buy, "y\n");  // the same request again: the same order, not a second one
    QVERIFY2(r.code == 0 && r.out.find("already_placed") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), held.size());

    r = cli(port, "alice", {"contracts"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.rfind("contract  side   cluster", 0) == 0, r.out.c_str());
    QVERIFY2(r.out.find("bought 1") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("2038-06-14T09:00Z  2038-06-14T12:00Z") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("pending_start") != std::string::npos, r.out.c_str());

    // carol bids $1.50 for 4 GPUs of those hours; alice sells 4 of her first contract back to her.
    r = cli(port, "carol",
            {"place", "--side", "buy", "--cluster", "1", "--gpus", "4", "--start", "2038-06-14T09:00Z", "--end",
             "2038-06-14T12:00Z", "--limit-usd", "1.5"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    const auto first = held[0]["contract"].get<ContractId>();
    r = cli(port, "alice", {"sell", "--contract", std::to_string(first), "--gpus", "4", "--yes"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("sell-back of contract " + std::to_string(first)) != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("the book bids for 12 of 12 GPU-hours now: $18.00 in all") != std::string::npos, r.out.c_str());
    const json carol = ask(port, "carol", "positions")["contracts"];
    QCOMPARE(carol.size(), std::size_t(1));
    QCOMPARE(carol[0]["gpus"].get<int>(), 4);
    r = cli(port, "alice", {"sell", "--contract", "999", "--yes"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("you hold no contract 999") != std::string::npos, r.err.c_str());
    r = cli(port, "alice", {"quote", "--cluster", "1", "--gpus", "1", "--start", "tomorrow 9:30", "--for", "3h"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("not on the hour") != std::string::npos, r.err.c_str());
  }

  // A buy by constraints goes to the cluster where the whole rectangle is cheapest now.
  // Fails if the first matching cluster is taken instead of the best (ClientCommand.cpp:
  // `better = !best`), or if constraints that match nothing are let through.
  void constraintsPickTheBestCluster() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    const std::uint16_t port = exchange.port();
    for (const auto& [cluster, price] : {std::pair<const char*, const char*>{"1", "3"}, {"2", "2.5"}}) {
      const ProgramResult r = cli(port, "provider",
                                  {"place", "--side", "sell", "--cluster", cluster, "--gpus", "8", "--start",
                                   "tomorrow", "--end", "+2d", "--limit-usd", price});
      QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    }
    const std::vector<std::string> rectangle = {"--gpus", "8", "--start", "tomorrow", "--for", "3h"};
    auto with = [&](std::vector<std::string> head) {
      head.insert(head.end(), rectangle.begin(), rectangle.end());
      return head;
    };
    ProgramResult r = cli(port, "alice", with({"quote", "--accelerator", "H100,H200", "--region", "us-east"}));
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("matching clusters: 1 test-h100 2 test-h200; the best now is 2") != std::string::npos,
             r.out.c_str());
    QVERIFY2(r.out.find("$60.00 in all, average $2.5000/GPU-h") != std::string::npos, r.out.c_str());
    r = cli(port, "alice", with({"quote", "--accelerator", "H100"}));
    QVERIFY2(r.out.find("the best now is 1") != std::string::npos, r.out.c_str());
    // Fabric and carbon: both clusters are InfiniBand at 400 gCO2/kWh.
    r = cli(port, "alice",
            with({"quote", "--accelerator", "H100,H200", "--min-fabric", "InfiniBand", "--max-carbon", "450"}));
    QVERIFY2(r.out.find("matching clusters: 1 test-h100 2 test-h200; the best now is 2") != std::string::npos,
             r.out.c_str());

    r = cli(port, "alice", with({"buy", "--accelerator", "H100,H200", "--yes"}));
    QVERIFY2(r.code == 0 && r.out.find("filled") != std::string::npos, (r.out + r.err).c_str());
    const json held = ask(port, "alice", "positions")["contracts"];
    QCOMPARE(held.size(), std::size_t(1));
    QCOMPARE(held[0]["cluster"].get<int>(), 2);
    QCOMPARE(held[0]["gpus"].get<int>(), 8);
    QCOMPARE(ask(port, "alice", "balance")["cash"].get<Money>(), (10'000 - 60) * kDollar);

    for (const auto& bad : {with({"buy", "--accelerator", "Z80", "--yes"}), with({"buy", "--region", "mars", "--yes"}),
                            with({"buy", "--accelerator", "H100", "--max-carbon", "300", "--yes"}),
                            with({"buy", "--cluster", "1", "--accelerator", "H100", "--yes"}),
                            with({"buy", "--accelerator", "H100", "--fill", "divisible", "--yes"})}) {
      r = cli(port, "alice", bad);
      QVERIFY2(r.code == 2, (r.out + r.err).c_str());
    }
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(1));
  }

  // Unknown options and malformed values are refused before anything is sent (exit 2, a hint).
  // Fails if an unknown option is skipped (Parser: `app_.allow_extras()`, as the hand-written
  // parser did) or a value is read leniently.
  void badCommandLinesExit2() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    const std::string h = hour(kNow), h1 = hour(kNow + 1);
    const std::vector<std::vector<std::string>> bad = {
        {"balance", "--bogus"},
        {"--verbose", "orders"},
        {"frobnicate"},
        {},
        {"place", "--side", "buy", "--cluster", "1", "--gpu", "2", "--start", h, "--end", h1, "--limit-usd", "3"},
        {"place", "--side", "buy", "--cluster", "1", "--gpus", "-2", "--start", h, "--end", h1, "--limit-usd", "3"},
        {"place", "--side", "buy", "--cluster", "1", "--gpus", "2", "--start", h, "--end", h1, "--limit-usd", "-3"},
        {"place", "--side", "buy", "--cluster", "1", "--gpus", "two", "--start", h, "--end", h1, "--limit-usd", "3"},
        {"place", "--side", "bid", "--cluster", "1", "--gpus", "2", "--start", h, "--end", h1, "--limit-usd", "3"},
        {"place", "--side", "buy", "--cluster", "1", "--gpus", "2", "--start", h, "--limit-usd", "3"},
        {"cancel", "many"},
        {"cancel"},
        {"amend", "3"},
        {"--timeout", "0", "balance"},
        {"--timeout", "-5", "balance"},
        {"outage", "1", "--start", h, "--end", h1, "--lost", "-4"},
        {"forward", "--side", "buy", "--accelerator", "Z80", "--week-start", h, "--gpu-hours", "1", "--price-usd", "2"},
    };
    for (const auto& args : bad) {
      const ProgramResult r = cli(exchange.port(), "alice", args);
      std::string line;
      for (const auto& a : args) line += a + " ";
      QVERIFY2(r.code == 2, (line + "-> " + std::to_string(r.code) + " " + r.out + r.err).c_str());
      QVERIFY2(r.err.find("tessera-cli: ") != std::string::npos, (line + "-> " + r.err).c_str());
    }
    QCOMPARE(ask(exchange.port(), "alice", "orders")["orders"].size(), std::size_t(0));
    const ProgramResult noAccount = runProgram(
        QStringLiteral(TESSERA_CLI_BIN), {"--connect", "127.0.0.1:" + std::to_string(exchange.port()), "balance"});
    QCOMPARE(noAccount.code, 2);
    QVERIFY2(noAccount.err.find("--account is required") != std::string::npos, noAccount.err.c_str());
    QCOMPARE(runProgram(QStringLiteral(TESSERA_CLI_BIN), {"--no-such-command"}).code, 2);
  }

  // Every subcommand explains itself; nothing is sent.
  void helpForEverySubcommand() {
    for (const char* sub : {"place", "quote", "buy", "sell", "contracts", "cancel", "amend", "mass-cancel", "orders",
                            "balance", "positions", "clusters", "book", "report-delivery", "outage", "forward",
                            "forward-cancel", "forward-orders", "forward-positions"}) {
      const ProgramResult r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"--connect", "127.0.0.1:1", sub, "--help"});
      QVERIFY2(r.code == 0, (std::string(sub) + ": " + r.err).c_str());
      QVERIFY2(r.out.find(std::string("tessera-cli ") + sub) != std::string::npos, r.out.c_str());
    }
    const ProgramResult r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"--connect", "127.0.0.1:1", "--help"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.find("report-delivery") != std::string::npos, r.out.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCliConnect)
#include "test_cli_connect.moc"
