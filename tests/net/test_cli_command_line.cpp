// tessera-cli's script commands (match, index, cost, plan) as a user types them: each has its
// own --help (what the man page and the bash completion read), an unknown option or a value
// that is malformed or names nothing real is refused with exit code 2, the message and a hint
// to that command's --help, and nothing is read or written.
// Fails if a command reads a value without its check (IndexCommand's --window without
// `WholeNumber & Positive`: `index --window 0` runs and exits 0), or takes an option it does not
// define.
#include "../ProgramRun.h"

#include <QtTest>

using tessera::testing::ProgramResult;
using tessera::testing::runProgram;

namespace {

ProgramResult cli(const std::vector<std::string>& args, const std::string& input = {}) {
  return runProgram(QStringLiteral(TESSERA_CLI_BIN), args, input);
}

std::string source(const char* relative) { return std::string(TESSERA_SOURCE_DIR) + "/" + relative; }

const std::string kScript =
    R"({"type":"cluster","id":1,"name":"c1","provider":"p","accelerator":"H100","node_count":4})"
    "\n";

}  // namespace

class TestCliCommandLine : public QObject {
  Q_OBJECT
 private slots:
  void everyScriptCommandHasItsOwnHelp() {
    const std::vector<std::pair<std::string, std::string>> commands = {
        {"match", "--reference"}, {"index", "--window"}, {"cost", "--egress-per-gb"}, {"plan", "--latest-start-in"}};
    for (const auto& [command, option] : commands) {
      const ProgramResult r = cli({command, "--help"});
      QVERIFY2(r.code == 0, (command + ": " + r.err).c_str());
      QVERIFY2(r.out.find("tessera-cli " + command) != std::string::npos, r.out.c_str());
      QVERIFY2(r.out.find(option) != std::string::npos, r.out.c_str());
      QVERIFY2(r.out.find("--help") != std::string::npos, r.out.c_str());
    }
  }

  void unknownOptionsExitTwoWithAHint() {
    const std::string workload = source("resources/workloads/llm-70b-pretrain.json");
    const std::string topology = source("resources/topologies/hgx-h100-ndr-ib.json");
    const std::vector<std::vector<std::string>> lines = {
        {"match", "--referense"},
        {"index", "--windw", "24"},
        {"cost", "--workload", workload, "--cluster", topology, "--price", "2", "--prise", "3"},
        {"plan", "--workload", workload, "--kind", "H100"},
    };
    for (const auto& args : lines) {
      const ProgramResult r = cli(args, kScript);
      QVERIFY2(r.code == 2, (args[0] + ": exit " + std::to_string(r.code) + " " + r.err).c_str());
      QVERIFY2(r.err.find("Run 'tessera-cli " + args[0] + " --help' for the options.") != std::string::npos,
               r.err.c_str());
      QVERIFY2(r.out.empty(), r.out.c_str());
    }
  }

  void malformedValuesAreRefused() {
    const std::string workload = source("resources/workloads/llm-70b-pretrain.json");
    const std::string topology = source("resources/topologies/hgx-h100-ndr-ib.json");
    struct Case {
      std::vector<std::string> args;
      std::string says;  // in the message
    };
    const std::vector<Case> cases = {
        {{"match", "extra"}, "extra"},
        {{"index", "--window", "0"}, "--window"},
        {{"index", "--window", "-24"}, "--window"},
        {{"index", "--window", "1.5"}, "whole number"},
        {{"index", "--window"}, "--window"},
        {{"cost", "--workload", workload, "--cluster", topology, "--price", "two"}, "--price"},
        {{"cost", "--workload", workload, "--cluster", topology, "--price", "-1"}, "0 or more"},
        {{"cost", "--workload", workload, "--cluster", source("resources/topologies/nope.json"), "--price", "2"},
         "nope.json"},
        {{"cost", "--workload", workload, "--price", "2"}, "--cluster is required"},
        {{"cost", "--workload", workload, "--cluster", topology, "--price", "2", "--json", "--table"}, "excludes"},
        {{"plan", "--workload", workload, "--kinds", "H100,Z9"}, "unknown GPU kind 'Z9'"},
        {{"plan", "--workload", workload, "--budget", "0"}, "must be more than 0"},
        {{"plan", "--workload", workload, "--start-in", "-1"}, "0 or more"},
        {{"plan", "--workload", workload, "--latest-start-in", "soon"}, "--latest-start-in"},
        {{"plan", "--workload", source("resources/workloads/nope.json")}, "nope.json"},
        {{"plan"}, "--workload is required"},
    };
    for (const Case& c : cases) {
      const ProgramResult r = cli(c.args, kScript);
      QVERIFY2(r.code == 2, (c.args[0] + " " + c.says + ": exit " + std::to_string(r.code) + " " + r.err).c_str());
      QVERIFY2(r.err.find(c.says) != std::string::npos, (c.says + " not in: " + r.err).c_str());
      QVERIFY2(r.err.find("--help' for the options") != std::string::npos, r.err.c_str());
      QVERIFY2(r.out.empty(), r.out.c_str());
    }
  }

  // And a good command line still runs: the script is read and matched.
  void aGoodLineRuns() {
    const ProgramResult r = cli({"match", "--reference"}, kScript);
    QVERIFY2(r.code == 0, r.err.c_str());
    QVERIFY2(r.out.find("cluster_added") != std::string::npos, r.out.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCliCommandLine)
#include "test_cli_command_line.moc"
