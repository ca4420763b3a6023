// `tessera-backtest live --strategy procure` run, stopped and run again against a
// tessera-exchange program on loopback, as a user restarts it: every program is a process
// started here, and what the account holds is checked over the exchange's own protocol.
#include "CliTestSupport.h"
#include "ExchangeProcess.h"
#include "HeldAtExchange.h"
#include "TcpProxy.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

// What the exchange says `account` holds on cluster 1 in each hour of [from, to).
std::vector<GpuCount> heldAtExchange(std::uint16_t port, const std::string& account, Hour from, Hour to) {
  return tessera::net::testing::heldAtExchange(port, account, from, to, [](ClusterId c) { return c == 1; });
}

// tessera-backtest live: procure on cluster 1, `gpus` GPUs for the next day, as alice, for 3 s.
ProgramResult procure(std::uint16_t port, const QTemporaryDir& dir, int gpus) {
  const std::string params = dir.path().toStdString() + "/procure-" + std::to_string(gpus) + ".json";
  std::ofstream(params) << json{{"cluster", "test-h100"}, {"gpus", gpus},     {"horizon_hours", 24},
                                {"lead_hours", 1},        {"max_price", 2.5}, {"every_hours", 1}}
                               .dump();
  return runProgram(QStringLiteral(TESSERA_BACKTEST_BIN),
                    {"live", "--strategy", "procure", "--params", params, "--account", "alice", "--key", "alice-key",
                     "--host", "127.0.0.1", "--port", std::to_string(port), "--seconds", "3"});
}

}  // namespace

class TestLiveRestart : public QObject {
  Q_OBJECT
 private slots:
  // A run that stops between sending its buy and hearing the answer, run again before the
  // exchange has that buy: the second run decides the same and names the same order, so the late
  // copy is refused and the day is bought once. A third run with a higher target starts from
  // what the account holds and buys only the difference; a fourth finds nothing to do.
  // Fails with a client order id that is new on every run (a random or wall-clock part in
  // LiveStrategyRunner::place): the late copy buys six GPUs more. Fails with ids that only count
  // orders (the same "s1" in every run): the third run's buy is refused as a duplicate. Fails if
  // the strategy starts without the account's contracts (no onContracts before onStart): the
  // third run buys all eight again.
  void aRestartDoesNotBuyTwice() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfigWithSpareH100());
    const std::uint16_t port = exchange.port();
    const Hour from = kNow + 1, to = kNow + 25;
    ProgramResult r = cli(port, "provider",
                          {"place", "--side", "sell", "--cluster", "1", "--gpus", "16", "--start", hour(kNow), "--end",
                           hour(kNow + 48), "--limit-usd", "2"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QTemporaryDir dir;

    TcpProxy proxy(port);
    proxy.holdUpLinesContaining(R"("type":"new_order")");
    r = procure(proxy.port(), dir, 6);
    QVERIFY2(r.code == 0 && r.out.find("live: ran; 1 orders") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(proxy.heldLines(), 1);
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(0));  // not at the exchange yet

    r = procure(port, dir, 6);  // the restart
    QVERIFY2(r.code == 0 && r.out.find("1 fills, bought 144 ") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));

    proxy.releaseHeld();  // the first run's order arrives at last
    const auto refused = [&] {
      for (const std::string& line : proxy.unheard())
        if (line.find("duplicate_cl_ord_id") != std::string::npos) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(refused(), 5000);
    QCOMPARE(ask(port, "alice", "positions")["contracts"].size(), std::size_t(1));
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 6));

    r = procure(port, dir, 8);  // a higher target: two GPUs more
    QVERIFY2(r.code == 0 && r.out.find("1 fills, bought 48 ") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 8));
    r = procure(port, dir, 8);  // and again: nothing to do
    QVERIFY2(r.code == 0 && r.out.find("live: ran; 0 orders") != std::string::npos, (r.out + r.err).c_str());
    QCOMPARE(heldAtExchange(port, "alice", from, to), std::vector<GpuCount>(24, 8));
  }
};

QTEST_GUILESS_MAIN(TestLiveRestart)
#include "test_live_restart.moc"
