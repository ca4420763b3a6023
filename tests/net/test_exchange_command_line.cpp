// The tessera-exchange program's command line: a wrong one exits 2 with a hint and starts
// nothing; --help lists the options and the accounts commands. Fails if an option is skipped
// (main.cpp: `app.allow_extras()`: the exchange then starts) or a value out of its range is taken
// (a port of 70000, a log level nobody knows).
#include "../ProgramRun.h"

#include <QtTest>

using tessera::testing::ProgramResult;
using tessera::testing::runProgram;

class TestExchangeCommandLine : public QObject {
  Q_OBJECT
 private slots:
  void wrongCommandLinesExit2() {
    const std::vector<std::vector<std::string>> bad = {
        {"--bogus"},
        {"--port", "70000"},
        {"--port", "-1"},
        {"--port", "many"},
        {"--port"},
        {"--db", ":memory:", "--sync-full", "--sync-normal"},
        {"--log-level", "loud"},
        {"--prefault-mb", "-5"},
        {"--accounts", "/no/such/accounts.json"},
        {"--db", ":memory:", "stray"},
    };
    for (const auto& args : bad) {
      const ProgramResult r = runProgram(QStringLiteral(TESSERA_EXCHANGE_BIN), args, {}, {}, 10'000);
      std::string line;
      for (const auto& a : args) line += a + " ";
      QVERIFY2(r.code == 2, (line + "-> " + std::to_string(r.code) + " " + r.out + r.err).c_str());
      QVERIFY2(r.err.find("tessera-exchange: ") != std::string::npos, (line + "-> " + r.err).c_str());
      QVERIFY2(r.out.find("listening") == std::string::npos, (line + "-> " + r.out).c_str());
    }
  }
  void helpListsEverything() {
    const ProgramResult r = runProgram(QStringLiteral(TESSERA_EXCHANGE_BIN), {"--help"});
    QCOMPARE(r.code, 0);
    for (const char* o : {"--config", "--listen", "--tls-cert", "--port", "--db", "--accounts", "--record",
                          "--sync-normal", "--prefault-mb", "--no-wall-clock", "accounts add", "accounts rotate-key"})
      QVERIFY2(r.out.find(o) != std::string::npos, o);
  }
};

QTEST_GUILESS_MAIN(TestExchangeCommandLine)
#include "test_exchange_command_line.moc"
