// tessera-backtest end to end: generate a history, run a strategy into a report, export and
// re-import, sweep in shards and merge; bad input gives a message and an exit code.
#include "backtest/BacktestCommand.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tessera::backtest;

namespace {

struct Cli {
  int code = 0;
  std::string out, err;
};

Cli cli(std::vector<std::string> args) {
  args.insert(args.begin(), "tessera-backtest");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  Cli r;
  r.code = runBacktestCommand(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

}  // namespace

class TestBacktestCommand : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string p(const std::string& name) { return (dir_.path().toStdString() + "/" + name); }

 private slots:
  void generateRunReport() {
    auto g = cli({"generate", "--out", p("h.db"), "--days", "2", "--seed", "3", "--quiet"});
    QVERIFY2(g.code == 0, g.err.c_str());
    QVERIFY(g.out.find("trades") != std::string::npos);
    // Histories are append-only: generating over one is refused.
    QCOMPARE(cli({"generate", "--out", p("h.db"), "--quiet"}).code, 2);

    std::ofstream(p("mm.json")) << R"({"cluster": "harbor-us-west-h100-b", "hours_ahead": 6})";
    auto r = cli({"run", "--history", p("h.db"), "--strategy", "market-maker", "--params", p("mm.json"), "--report",
                  p("out"), "--latency-us", "500", "--quiet"});
    QVERIFY2(r.code == 0, r.err.c_str());
    for (const char* f : {"summary.json", "fills.csv", "contracts.csv", "series.csv", "report.html"})
      QVERIFY2(std::filesystem::exists(p("out/") + f), f);
    const auto summary = nlohmann::json::parse(slurp(p("out/summary.json")));
    QCOMPARE(summary["latency"]["order_entry"].get<std::string>(), std::string("fixed:500"));
    QVERIFY(summary["summary"]["fills"].get<int>() > 0);
    QVERIFY(summary["inputs"].get<int>() > 1000);
    const std::string html = slurp(p("out/report.html"));
    QVERIFY(html.find("<img src='price.svg'") != std::string::npos);
    for (const char* f : {"equity.svg", "price.svg", "drawdown.svg"}) {
      const std::string svg = slurp(p(std::string("out/") + f));
      QVERIFY2(svg.find("<svg xmlns=") != std::string::npos && svg.find("</svg>") != std::string::npos, f);
    }
    QVERIFY(slurp(p("out/price.svg")).find("$ per GPU-hour") != std::string::npos);
    QVERIFY(html.find("Equity curve") != std::string::npos);
    QVERIFY(html.find("Drawdown") != std::string::npos);
    // Counts and money read as a person writes them: thousands separators, "-$1,234.56".
    // Mutation seen failing: the report's counts written with std::to_string.
    const std::string inputs = tessera::withThousands(summary["inputs"].get<std::int64_t>());
    QVERIFY(inputs.find(',') != std::string::npos);
    QVERIFY2(html.find("<td>" + inputs + "</td>") != std::string::npos, inputs.c_str());
    QVERIFY2(r.out.find(inputs + " inputs in ") != std::string::npos, r.out.c_str());
    const std::string pnl = tessera::toDollars(summary["summary"]["pnl"].get<tessera::Money>());
    QVERIFY2(r.out.find("P&L " + pnl + ",") != std::string::npos, (r.out + " / " + pnl).c_str());
    QVERIFY(html.find(tessera::toDollars(summary["summary"]["final_cash"].get<tessera::Money>())) != std::string::npos);
    // One header line plus one line per fill.
    const std::string fills = slurp(p("out/fills.csv"));
    QCOMPARE(static_cast<int>(std::count(fills.begin(), fills.end(), '\n')),
             1 + summary["summary"]["fills"].get<int>());

    // --cash and --fee-ppm reach the replay: $1 buys nothing, every bid is refused.
    auto poor = cli({"run", "--history", p("h.db"), "--strategy", "market-maker", "--params", p("mm.json"), "--report",
                     p("poor"), "--cash", "1", "--fee-ppm", "2500", "--quiet"});
    QVERIFY2(poor.code == 0, poor.err.c_str());
    const auto ps = nlohmann::json::parse(slurp(p("poor/summary.json")));
    QCOMPARE(ps["fee_ppm"].get<int>(), 2500);
    QCOMPARE(ps["summary"]["fills"].get<int>(), 0);
    QVERIFY(ps["summary"]["orders_rejected"].get<int>() > 0);
    QCOMPARE(
        cli({"run", "--history", p("h.db"), "--strategy", "noop", "--report", p("x"), "--fee-ppm", "1000001"}).code, 2);

    // The same run again: the same output hash.
    auto again = cli({"run", "--history", p("h.db"), "--strategy", "market-maker", "--params", p("mm.json"), "--report",
                      p("out2"), "--latency-us", "500", "--quiet"});
    QCOMPARE(again.code, 0);
    QCOMPARE(nlohmann::json::parse(slurp(p("out2/summary.json")))["output_hash"], summary["output_hash"]);
  }

  void exportImportKeepsTheReplay() {
    QCOMPARE(cli({"generate", "--out", p("e.db"), "--days", "1", "--quiet"}).code, 0);
    QCOMPARE(cli({"export", "--history", p("e.db"), "--to", p("e.jsonl")}).code, 0);
    auto imp = cli({"import", "--history", p("i.db"), "--from", p("e.jsonl")});
    QVERIFY2(imp.code == 0, imp.err.c_str());
    for (const char* db : {"e.db", "i.db"})
      QCOMPARE(
          cli({"run", "--history", p(db), "--strategy", "noop", "--report", p(std::string("r-") + db), "--quiet"}).code,
          0);
    QCOMPARE(nlohmann::json::parse(slurp(p("r-e.db/summary.json")))["output_hash"],
             nlohmann::json::parse(slurp(p("r-i.db/summary.json")))["output_hash"]);
    QCOMPARE(cli({"export", "--history", p("e.db"), "--to", p("ev.csv"), "--events", "--cluster", "2"}).code, 0);
    QVERIFY(slurp(p("ev.csv")).find(",fill,2,") != std::string::npos);
  }

  void sweepShardsAndMerge() {
    QCOMPARE(cli({"generate", "--out", p("s.db"), "--hours", "24", "--clusters", "8", "--quiet"}).code, 0);
    std::ofstream(p("grid.json")) << R"({"base": {"cluster": "harbor-us-west-h100-b"},
                                         "grid": {"spread": [0.02, 0.06], "hours_ahead": [4, 8, 12]}})";
    for (const char* s : {"0/2", "1/2"}) {
      auto r = cli({"sweep", "--history", p("s.db"), "--strategy", "market-maker", "--grid", p("grid.json"), "--out",
                    p(std::string("shard-") + s[0] + ".jsonl"), "--shard", s, "--jobs", "2", "--quiet"});
      QVERIFY2(r.code == 0, r.err.c_str());
    }
    auto m = cli({"merge", "--out", p("merged"), p("shard-0.jsonl"), p("shard-1.jsonl")});
    QVERIFY2(m.code == 0, m.err.c_str());
    const auto merged = nlohmann::json::parse(slurp(p("merged.json")));
    QCOMPARE(merged["results"].size(), std::size_t{6});
    QVERIFY(std::filesystem::exists(p("merged.csv")));
    QCOMPARE(cli({"merge", "--out", p("bad"), p("shard-0.jsonl")}).code, 1);
    // The merged result says what it ran on; a shard run with another latency model or on
    // another history is refused, naming what differs.
    QCOMPARE(merged["latency"]["order_entry"].get<std::string>(), std::string("fixed:0"));
    QVERIFY(merged["history"].get<std::string>().rfind("inputs=", 0) == 0);
    auto slow = cli({"sweep", "--history", p("s.db"), "--strategy", "market-maker", "--grid", p("grid.json"), "--out",
                     p("slow-1.jsonl"), "--shard", "1/2", "--quiet", "--md-latency", "exp:300", "--latency-seed", "9"});
    QVERIFY2(slow.code == 0, slow.err.c_str());
    auto mixed = cli({"merge", "--out", p("mixed"), p("shard-0.jsonl"), p("slow-1.jsonl")});
    QCOMPARE(mixed.code, 1);
    QVERIFY2(mixed.err.find("(latency differ") != std::string::npos, mixed.err.c_str());
    QCOMPARE(cli({"generate", "--out", p("s2.db"), "--hours", "24", "--clusters", "8", "--seed", "2", "--quiet"}).code,
             0);
    QCOMPARE(cli({"sweep", "--history", p("s2.db"), "--strategy", "market-maker", "--grid", p("grid.json"), "--out",
                  p("other-1.jsonl"), "--shard", "1/2", "--quiet"})
                 .code,
             0);
    auto other = cli({"merge", "--out", p("other"), p("shard-0.jsonl"), p("other-1.jsonl")});
    QCOMPARE(other.code, 1);
    QVERIFY2(other.err.find("(history differ") != std::string::npos, other.err.c_str());
  }

  void latencyOptionsAreCheckedAndRecorded() {
    QCOMPARE(
        cli({"generate", "--out", p("lat.db"), "--hours", "12", "--burst", "16", "--burst-gap-us", "300", "--quiet"})
            .code,
        0);
    QVERIFY(cli({"info", "--history", p("lat.db")}).out.find("16 arrivals 300 us apart") != std::string::npos);
    for (const std::vector<std::string>& bad :
         std::vector<std::vector<std::string>>{{"--order-latency", "-5"},
                                               {"--ack-latency", "gamma:3"},
                                               {"--md-latency", "lognormal:10"},
                                               {"--md-latency", "file:" + p("no-such-file")},
                                               {"--latency-us", "100", "--order-latency", "exp:5"},
                                               {"--latency-seed", "-1"}}) {
      std::vector<std::string> args{"run",  "--history", p("lat.db"), "--strategy",
                                    "noop", "--report",  p("lat-x"),  "--quiet"};
      args.insert(args.end(), bad.begin(), bad.end());
      const Cli r = cli(args);
      QVERIFY2(r.code == 2, (bad.front() + " " + bad.back() + ": " + r.err).c_str());
      QVERIFY2(!r.err.empty(), bad.back().c_str());
    }
    std::ofstream(p("measured.txt")) << "150\n90\n400\n";
    auto r = cli({"run", "--history", p("lat.db"), "--strategy", "noop", "--report", p("lat-out"), "--quiet",
                  "--order-latency", "lognormal:200,0.5", "--ack-latency", "file:" + p("measured.txt"), "--md-latency",
                  "exp:80", "--latency-seed", "7"});
    QVERIFY2(r.code == 0, r.err.c_str());
    const auto summary = nlohmann::json::parse(slurp(p("lat-out/summary.json")));
    QCOMPARE(summary["latency"]["order_entry"].get<std::string>(), std::string("lognormal:200,0.5"));
    QVERIFY(summary["latency"]["ack"].get<std::string>().rfind("file:measured.txt#n=3,fnv=", 0) == 0);
    QCOMPARE(summary["latency"]["market_data"].get<std::string>(), std::string("exp:80"));
    QCOMPARE(summary["latency"]["seed"].get<int>(), 7);
    QCOMPARE(cli({"generate", "--out", p("lat2.db"), "--hours", "1", "--burst", "2000", "--burst-gap-us", "2000000",
                  "--quiet"})
                 .code,
             2);
  }

  void sampleDataWorks() {
    const std::string src = qEnvironmentVariable("TESSERA_SOURCE_DIR").toStdString();
    if (src.empty()) QSKIP("TESSERA_SOURCE_DIR is not set (run through ctest)");
    const std::string data = src + "/resources/sample-data/";
    auto imp = cli({"import", "--history", p("sample.db"), "--from", data + "sample-history-1day.jsonl"});
    QVERIFY2(imp.code == 0, imp.err.c_str());
    for (const char* s : {"standing-bid", "calendar", "market-maker", "planner"}) {
      auto r = cli({"run", "--history", p("sample.db"), "--strategy", s, "--params", data + "params-" + s + ".json",
                    "--report", p(std::string("sample-") + s), "--quiet"});
      QVERIFY2(r.code == 0, (std::string(s) + ": " + r.err).c_str());
    }
    auto sw = cli({"sweep", "--history", p("sample.db"), "--strategy", "market-maker", "--grid",
                   data + "sweep-market-maker.json", "--out", p("sample-sweep.jsonl"), "--quiet"});
    QVERIFY2(sw.code == 0, sw.err.c_str());
    QVERIFY(sw.err.find("invalid parameters") == std::string::npos);
  }

  void historiesThatCannotBeUsedSaySoWithTheirOwnExitCode() {
    // Cut short, not a history, empty: each its own message and exit code (docs/backtest.md).
    // Fails when: open() skips the header's page count check (a third of a file then reads as
    // "no schema_version"), or loadHistory accepts a history without inputs (exit 0).
    QVERIFY(cli({"generate", "--out", p("whole.db"), "--days", "1", "--seed", "5", "--quiet"}).code == 0);
    const std::string bytes = slurp(p("whole.db"));
    std::ofstream(p("cut.db"), std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    auto cut = cli({"run", "--history", p("cut.db"), "--strategy", "noop", "--report", p("cut-out"), "--quiet"});
    QCOMPARE(cut.code, 4);
    QVERIFY2(cut.err.find("is corrupt: cut short") != std::string::npos, cut.err.c_str());

    std::ofstream(p("nothing.jsonl")) << "";
    QCOMPARE(cli({"import", "--history", p("empty.db"), "--from", p("nothing.jsonl")}).code, 0);
    auto empty = cli({"run", "--history", p("empty.db"), "--strategy", "noop", "--report", p("empty-out"), "--quiet"});
    QCOMPARE(empty.code, 5);
    QVERIFY2(empty.err.find("holds no market inputs") != std::string::npos, empty.err.c_str());
  }

  void aHistoryInAFolderNobodyMayWriteIsRead() {
    // A shared data folder or a read-only mount: SQLite cannot make the -shm file a WAL history
    // needs beside it. The reader runs as an unprivileged user (root writes everywhere).
    // Fails when: open() does not read such a file as immutable ("unable to open database file").
    const std::string folder = p("shared");
    std::filesystem::create_directory(folder);
    QVERIFY(cli({"generate", "--out", folder + "/h.db", "--days", "1", "--seed", "4", "--quiet"}).code == 0);
    QVERIFY(!std::filesystem::exists(folder + "/h.db-shm"));
    ::chmod(dir_.path().toStdString().c_str(), 0755);
    ::chmod(folder.c_str(), 0555);
    ::chmod((folder + "/h.db").c_str(), 0444);
    const pid_t child = ::fork();
    if (child == 0) {
      if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(90);
      if (::access(folder.c_str(), W_OK) == 0) ::_exit(91);  // the folder must not be writable
      const Cli r = cli({"info", "--history", folder + "/h.db"});
      if (r.code == 0 && r.out.find("\"inputs\"") == std::string::npos) ::_exit(92);
      ::_exit(r.code);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ::chmod(folder.c_str(), 0755);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
    QVERIFY(!std::filesystem::exists(folder + "/h.db-shm"));
  }

  void aTypoInAClusterNameIsAnError() {
    // A mistyped cluster gave a clean report with exit 0 ("unfilled demand 1536/1536"), and a
    // sweep of it all-zero rows with exit 0.
    // Fails when: the strategies go back to findCluster and stay idle on a miss, or `sweep`
    // exits 0 with invalid points.
    QVERIFY(cli({"generate", "--out", p("typo.db"), "--days", "1", "--seed", "6", "--quiet"}).code == 0);
    const std::vector<std::pair<std::string, std::string>> runs{
        {"market-maker", R"({"cluster": "harbr-us-west-h100-b"})"},
        {"standing-bid",
         R"({"cluster": "harbr-us-west-h100-b", "gpus": 8, "hours": 4, "max_price": 2.6, "deadline_hours": 48})"},
        {"calendar",
         R"({"cluster": "harbr-us-west-h100-b", "gpus": 8, "hours": 24, "max_price": 2.6, "sell_back_from_hours": 12, "sell_back_hours": 6})"}};
    for (const auto& [s, params] : runs) {
      auto r = cli({"run", "--history", p("typo.db"), "--strategy", s, "--params-json", params, "--report",
                    p("typo-" + s), "--quiet"});
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.find("unknown cluster 'harbr-us-west-h100-b'") != std::string::npos, r.err.c_str());
      QVERIFY2(r.err.find("harbor-us-west-h100-b") != std::string::npos, r.err.c_str());
      QVERIFY(!std::filesystem::exists(p("typo-" + s + "/report.html")));
    }
    std::ofstream(p("typo-grid.json"))
        << R"({"base": {"cluster": "harbr-us-west-h100-b"}, "grid": {"spread": [0.02, 0.06]}})";
    auto sw = cli({"sweep", "--history", p("typo.db"), "--strategy", "market-maker", "--grid", p("typo-grid.json"),
                   "--out", p("typo-sweep.jsonl"), "--quiet"});
    QCOMPARE(sw.code, 2);
    QVERIFY2(sw.err.find("2 of 2 points had invalid parameters") != std::string::npos, sw.err.c_str());
    QVERIFY(slurp(p("typo-sweep.jsonl")).find("unknown cluster") != std::string::npos);
  }

  void badInputIsExplained() {
    auto missing = cli({"run", "--history", p("nope.db"), "--strategy", "noop", "--report", p("x")});
    QCOMPARE(missing.code, 1);
    QVERIFY(missing.err.find("does not exist") != std::string::npos);
    std::ofstream(p("junk.db")) << "not sqlite at all, not at all, not at all, not at all, not at all";
    auto junk = cli({"info", "--history", p("junk.db")});
    QCOMPARE(junk.code, 4);
    QVERIFY2(junk.err.find("not an SQLite database") != std::string::npos, junk.err.c_str());
    auto strategy = cli({"run", "--history", p("junk.db"), "--strategy", "moon", "--report", p("x")});
    QCOMPARE(strategy.code, 2);
    QVERIFY(strategy.err.find("unknown strategy") != std::string::npos);
    QCOMPARE(
        cli({"run", "--history", p("junk.db"), "--strategy", "noop", "--report", p("x"), "--latency-us", "soon"}).code,
        2);
    QCOMPARE(cli({"frobnicate"}).code, 2);
    QCOMPARE(cli({}).code, 2);
    std::ofstream(p("bad.jsonl")) << "{\"type\":\"clock\",\"now\":490992}\nnonsense\n";
    auto imp = cli({"import", "--history", p("bad-import.db"), "--from", p("bad.jsonl")});
    QCOMPARE(imp.code, 3);
    QVERIFY(imp.err.find("line 2") != std::string::npos);
    QVERIFY(imp.out.find("imported 1 of 2") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestBacktestCommand)
#include "test_backtest_command.moc"
