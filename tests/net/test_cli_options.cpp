// tessera-cli's option verbs against an exchange on loopback: the chain in dollars, writing and
// buying an option (checked at the exchange: the buyer's position), working orders, a refused
// strike with the exchange's reason, and --help for each verb.
#include "CliTestSupport.h"
#include "core/net/ExchangeServer.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

class TestCliOptions : public QObject {
  Q_OBJECT

 private slots:
  void tradeOptionsFromTheShell() {
    ExchangeServer server(marketConfig());
    server.start();
    {
      LineClient provider(server.port()), carol(server.port());
      QVERIFY(provider.logon("provider") && carol.logon("carol"));
      provider.send(order("ask", "sell", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
      carol.send(order("lift", "buy", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
      QVERIFY(carol.exec("lift"));
    }
    server.inject(ClockAdvance{kNow + 1}, "");  // the H100 index is $3.00 from here
    const ProgramResult chain = cli(server.port(), "alice", {"option-chain", "--accelerator", "H100"});
    QVERIFY2(chain.code == 0, chain.err.c_str());
    QVERIFY2(chain.out.find("H100 2038-07 call $3.00 bid=- ask=- value=$0.") != std::string::npos, chain.out.c_str());
    QVERIFY2(chain.out.find("H100 2040 put $") != std::string::npos, chain.out.c_str());  // years out to 2040

    const std::vector<std::string> call = {"--accelerator", "H100",       "--kind",       "call",
                                           "--start",       "2038-07-01", "--strike-usd", "3"};
    auto with = [&](std::vector<std::string> head, std::vector<std::string> tail) {
      head.insert(head.end(), call.begin(), call.end());
      head.insert(head.end(), tail.begin(), tail.end());
      return head;
    };
    ProgramResult r = cli(server.port(), "alice",
                          with({"option", "--side", "sell"}, {"--gpu-hours", "100", "--premium-usd", "0.25"}));
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("accepted") != std::string::npos, r.out.c_str());
    r = cli(server.port(), "carol", with({"option", "--side", "buy"}, {"--gpu-hours", "40", "--premium-usd", "0.25"}));
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    // What reached the exchange: Carol holds 40 GPU-hours of the call, bought at $0.25.
    const auto positions = ask(server.port(), "carol", "option_positions")["positions"];
    QCOMPARE(positions.size(), std::size_t(1));
    QCOMPARE(positions[0]["side"].get<std::string>(), std::string("long"));
    QCOMPARE(positions[0]["gpu_hours"].get<int>(), 40);
    QCOMPARE(positions[0]["premium"].get<Price>(), Price(250'000));
    r = cli(server.port(), "alice", {"option-orders"});
    QVERIFY2(r.out.find("sell H100 2038-07 call $3.00 leaves_gpu_hours=60 premium=$0.25") != std::string::npos,
             r.out.c_str());
    r = cli(server.port(), "alice", {"option-positions"});
    QVERIFY2(r.out.find("short H100 2038-07 call $3.00 gpu_hours=40") != std::string::npos, r.out.c_str());
    // A strike between cents is refused with the exchange's reason, and nothing rests.
    r = cli(server.port(), "alice",
            {"option", "--side", "sell", "--accelerator", "H100", "--kind", "put", "--start", "2038-07-01",
             "--strike-usd", "2.995", "--gpu-hours", "10", "--premium-usd", "0.1"});
    QCOMPARE(r.code, 1);
    QVERIFY2((r.out + r.err).find("invalid_order") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(ask(server.port(), "alice", "option_orders")["orders"].size(), std::size_t(1));
    server.stop();
  }

  void helpForEveryOptionVerb() {
    for (const char* sub : {"option", "option-cancel", "option-chain", "option-orders", "option-positions"}) {
      const ProgramResult r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"--connect", "127.0.0.1:1", sub, "--help"});
      QVERIFY2(r.code == 0, (std::string(sub) + ": " + r.err).c_str());
      QVERIFY2(r.out.find(std::string("tessera-cli ") + sub) != std::string::npos, r.out.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(TestCliOptions)
#include "test_cli_options.moc"
