// `tessera-cli cost`: table and JSON from the shipped files, and clear failures.
#include "CostTestData.h"
#include "core/cost/CostCommand.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

namespace td = tessera::cost::testdata;

namespace {

struct Run {
  int rc = 0;
  std::string out;
  std::string err;
};

Run run(std::vector<std::string> args) {
  args.insert(args.begin(), "cost");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::ostringstream out, err;
  const int rc = tessera::runCostCommand(static_cast<int>(argv.size()), argv.data(), out, err);
  return {rc, out.str(), err.str()};
}

std::string res(const char* relative) { return td::sourcePath(relative).toStdString(); }

}  // namespace

class TestCostCommand : public QObject {
  Q_OBJECT

 private slots:
  void workedExampleAsJson() {
    const Run r = run({"--workload", res("resources/workloads/worked-example-training.json"), "--cluster",
                       res("resources/topologies/worked-example-fragmented.json"), "--price", "1.50", "--cluster",
                       res("resources/topologies/worked-example-contiguous.json"), "--price", "3.00", "--json"});
    QCOMPARE(r.rc, 0);
    const auto j = nlohmann::json::parse(r.out);
    QCOMPARE(j["offers"].size(), std::size_t{2});
    // Ranked: the contiguous cluster at twice the rate is the cheaper one.
    QCOMPARE(j["offers"][0]["cluster"].get<std::string>(), std::string("worked-example-contiguous"));
    const auto& fast = j["offers"][0]["breakdown"];
    const auto& slow = j["offers"][1]["breakdown"];
    QVERIFY(qAbs(fast["terms"]["instance_cost"].get<double>() - 2.16e6) < 1e3);
    QVERIFY(qAbs(slow["terms"]["instance_cost"].get<double>() - 4.86e6) < 5e3);
    QVERIFY(qAbs(slow["wall_clock_days"].get<double>() - 135.0) < 0.1);
    QCOMPARE(slow["placement"]["bottleneck"].get<std::string>(), std::string("node fabric"));
  }

  void tableByDefault() {
    const Run r = run({"--price", "2.0", "--workload", res("resources/workloads/finetune-8b-single-node.json"),
                       "--cluster", res("resources/topologies/tier3-ethernet-l40s.json"), "--table"});
    QCOMPARE(r.rc, 0);
    QVERIFY(r.out.find("EFFECTIVE COST") != std::string::npos);
    QVERIFY(r.out.find("tier3-ethernet-l40s") != std::string::npos);
    QVERIFY(r.out.find("\"offers\"") == std::string::npos);
  }

  void badInputs() {
    Run r = run({"--workload", res("resources/workloads/nope.json"), "--cluster",
                 res("resources/topologies/hgx-h100-ndr-ib.json"), "--price", "2"});
    QCOMPARE(r.rc, 2);  // refused as an argument: the file does not exist
    QVERIFY(r.err.find("nope.json") != std::string::npos);
    r = run({"--workload", res("resources/workloads/llm-70b-pretrain.json")});
    QCOMPARE(r.rc, 2);
    r = run({"--workload", res("resources/workloads/llm-70b-pretrain.json"), "--cluster",
             res("resources/topologies/hgx-h100-ndr-ib.json"), "--price", "-1"});
    QCOMPARE(r.rc, 2);
    r = run({"--workload", res("resources/workloads/llm-70b-pretrain.json"), "--cluster",
             res("resources/topologies/hgx-h100-ndr-ib.json")});
    QCOMPARE(r.rc, 2);
    QVERIFY(r.err.find("no --price") != std::string::npos);
    // A cluster too small for the job is reported, not a crash.
    r = run({"--workload", res("resources/workloads/llm-70b-pretrain.json"), "--cluster",
             res("resources/topologies/tier3-ethernet-l40s.json"), "--price", "1", "--table"});
    QCOMPARE(r.rc, 1);
    QVERIFY(r.out.find("cannot serve the workload") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(TestCostCommand)
#include "test_cost_command.moc"
