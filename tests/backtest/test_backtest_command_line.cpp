// The tessera-backtest program's command line, run as a user runs it: documented command lines
// work, and a wrong one (unknown option, malformed or negative value, an option that would
// swallow the next) exits 2 with a hint before any work is done. Fails if an unknown option is
// skipped (BacktestCommand.cpp: `c->allow_extras()` on the commands; the hand-written parser's
// `--latncy-us 500` ran with latency 0) or if `--jobs` takes `--out` as its value when a Slurm
// variable is empty.
#include "../ProgramRun.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using tessera::testing::ProgramResult;
using tessera::testing::runProgram;

namespace {

ProgramResult backtest(const std::vector<std::string>& args) {
  return runProgram(QStringLiteral(TESSERA_BACKTEST_BIN), args, {}, {"QT_QPA_PLATFORM=offscreen"}, 120'000);
}

}  // namespace

class TestBacktestCommandLine : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string p(const std::string& name) { return dir_.path().toStdString() + "/" + name; }

 private slots:
  void initTestCase() {
    const ProgramResult g = backtest({"generate", "--out", p("h.db"), "--hours", "12", "--clusters", "8", "--quiet"});
    QVERIFY2(g.code == 0, (g.out + g.err).c_str());
  }

  void wrongCommandLinesExit2() {
    const std::string h = p("h.db");
    const std::vector<std::vector<std::string>> bad = {
        {"run", "--history", h, "--strategy", "noop", "--report", p("r1"), "--latncy-us", "500"},
        {"run", "--history", h, "--strategy", "noop", "--report", p("r2"), "--latency-us", "-500"},
        {"run", "--history", h, "--strategy", "noop", "--report", p("r3"), "--latency-us", "soon"},
        {"run", "--history", h, "--strategy", "noop", "--report", p("r4"), "--latency-us", "1.5"},
        {"run", "--history", h, "--strategy", "noop", "--report", p("r5"), "--latency-us"},
        {"run", "--history", h, "--strategy", "noop", "--report", p("r6"), "stray"},
        {"sweep", "--history", h, "--strategy", "market-maker", "--grid", p("g.json"), "--shard", "0/2", "--jobs",
         "--out", p("shard-0.jsonl")},
        {"generate", "--out", p("x.db"), "--days", "0"},
        {"generate", "--out", p("y.db"), "--activity", "-1"},
        {"generate", "--out", p("z.db"), "--days", "1.5"},
        {"info", "--hstory", h},
        {"strategies", "--all"},
        {"frobnicate"},
        {},
        {"live", "--strategy", "noop", "--acount", "a"},
        {"live", "--strategy", "noop", "--account", "a", "--port", "99999"},
        {"live", "--strategy", "noop", "--account", "a", "--seconds", "-1"},
        {"live", "--strategy", "noop"},
    };
    for (const auto& args : bad) {
      const ProgramResult r = backtest(args);
      std::string line;
      for (const auto& a : args) line += a + " ";
      QVERIFY2(r.code == 2, (line + "-> " + std::to_string(r.code) + " " + r.out + r.err).c_str());
      QVERIFY2(r.err.find("tessera-backtest") != std::string::npos, (line + "-> " + r.err).c_str());
    }
    // Nothing ran: no report, no shard, no history.
    for (const char* f : {"r1", "r2", "r3", "r4", "r5", "r6", "shard-0.jsonl", "x.db", "y.db", "z.db"})
      QVERIFY2(!std::filesystem::exists(p(f)), f);
    const ProgramResult r =
        backtest({"run", "--history", h, "--strategy", "noop", "--report", p("r"), "--latncy-us", "500"});
    QVERIFY2(r.err.find("--latncy-us") != std::string::npos, r.err.c_str());
    QVERIFY2(r.err.find("run --help") != std::string::npos, r.err.c_str());
  }

  void documentedCommandLinesWork() {
    const std::string h = p("h.db");
    ProgramResult r =
        backtest({"run", "--history", h, "--strategy", "noop", "--report", p("ok"), "--latency-us", "200", "--quiet"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY(std::filesystem::exists(p("ok/report.html")));
    QVERIFY2(backtest({"info", "--history", h}).code == 0, "info");
    QVERIFY2(backtest({"strategies"}).out.find("market-maker") != std::string::npos, "strategies");
    // The Slurm line of docs/backtest.md with SLURM_CPUS_PER_TASK unset: --jobs 0, all cores.
    {
      QFile g(QString::fromStdString(p("g.json")));
      QVERIFY(g.open(QIODevice::WriteOnly));
      g.write(R"({"base": {"cluster": "harbor-us-west-h100-b"}, "grid": {"spread": [0.02, 0.06]}})");
    }
    r = backtest({"sweep", "--history", h, "--strategy", "market-maker", "--grid", p("g.json"), "--shard", "0/2",
                  "--jobs", "0", "--out", p("shard-0.jsonl"), "--quiet"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY(std::filesystem::exists(p("shard-0.jsonl")));
  }

  void callCompareRunsBothClearings() {
    const ProgramResult r = backtest({"call-compare", "--hours", "3", "--clusters", "2", "--seconds", "5"});
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("continuous  welfare $") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("call        welfare $") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("calls 3,") != std::string::npos, r.out.c_str());
    QCOMPARE(backtest({"call-compare", "--clusters", "99"}).code, 2);
  }

  void helpForEveryCommand() {
    for (const char* c :
         {"generate", "info", "import", "export", "run", "sweep", "merge", "call-compare", "strategies", "live"}) {
      const ProgramResult r = backtest({c, "--help"});
      QVERIFY2(r.code == 0, c);
      QVERIFY2(r.out.find(std::string("tessera-backtest ") + c) != std::string::npos, r.out.c_str());
    }
    const ProgramResult r = backtest({"--help"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.find("sweep") != std::string::npos && r.out.find("live --strategy") != std::string::npos,
             r.out.c_str());
  }
};

QTEST_GUILESS_MAIN(TestBacktestCommandLine)
#include "test_backtest_command_line.moc"
