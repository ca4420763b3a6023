// tessera-cli plan: engine inputs on stdin, the planning question on the book they leave, and
// for each placement the order that buys it.
#include "CostTestData.h"
#include "core/cost/PlanCommand.h"
#include "core/cost/PlanSearch.h"
#include "core/cost/WorkloadJson.h"
#include "core/engine/EventJson.h"
#include "core/engine/Matcher.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sstream>

using namespace tessera;
using namespace tessera::cost;
namespace td = tessera::cost::testdata;

namespace {

struct Run {
  int status = 0;
  std::string out, err;
};

Run plan(std::vector<std::string> args, const std::string& input) {
  args.insert(args.begin(), "plan");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::istringstream in(input);
  std::ostringstream out, err;
  Run r;
  r.status = runPlanCommand(static_cast<int>(argv.size()), argv.data(), in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// A market with one 32-node H100 cluster whose provider lists 128 GPUs for hours 100-400,
// dearer before hour 105, so the cheapest start is hour 105, not the earliest allowed.
std::string market(AccountDirectory& accounts, std::vector<InputEvent>& inputs) {
  Cluster c;
  c.id = 1;
  c.name = "ib-a";
  c.provider = "p";
  c.region = "us-east";
  c.nodeCount = 32;
  c.fabric = FabricClass::InfiniBand;
  c.fabricGbpsPerNode = 3200;
  const AccountId seller = accounts.intern("p");
  inputs = {c, ClockAdvance{50}, CapacityGrant{seller, 1, 128, 100, 400}};
  OrderRequest ask;
  ask.id = 1;
  ask.account = seller;
  ask.side = Side::Sell;
  ask.cluster = 1;
  ask.gpus = 128;
  ask.start = 100;
  ask.end = 105;
  ask.limit = 2'500'000;
  inputs.push_back(ask);
  ask.id = 2;
  ask.start = 105;
  ask.end = 400;
  ask.limit = 2'200'000;
  inputs.push_back(ask);
  std::string text;
  for (const auto& e : inputs) text += toJson(e, accounts).dump() + "\n";
  return text;
}

}  // namespace

class TestPlanCommand : public QObject {
  Q_OBJECT

 private slots:
  // The JSON answer's order is the search's placement, field by field (the search run here on
  // the same inputs). Fails if the command builds the order from the request rather than the
  // placement (mutation tried: "start" from request.earliestStart).
  void printsTheOrderThatBuysEachPlacement() {
    QTemporaryDir dir;
    WorkloadProfile w = td::articleTraining();
    w.parallelism.data = 16;
    w.steps = 4000;
    const std::string file = dir.filePath("w.json").toStdString();
    std::ofstream(file) << nlohmann::json{{"name", "small"},
                                          {"kind", "training"},
                                          {"parallelism", {{"data", 16}}},
                                          {"steps", 4000},
                                          {"peak_compute_seconds_per_step", w.peakComputeSecondsPerStep},
                                          {"kernel_efficiency", w.kernelEfficiency},
                                          {"gradient_bytes_per_step", *w.gradientBytesPerStep}}
                               .dump();
    AccountDirectory accounts;
    std::vector<InputEvent> inputs;
    const std::string text = market(accounts, inputs);
    const Run r = plan({"--workload", file, "--start-in", "50", "--latest-start-in", "60", "--json"}, text);
    QVERIFY2(r.status == 0, r.err.c_str());
    const auto j = nlohmann::json::parse(r.out);
    QCOMPARE(j["placements"].size(), std::size_t{1});

    auto engine = makeMatchingEngine();
    std::vector<Event> events;
    for (const auto& e : inputs) engine->apply(e, events);
    PlanRequest request;
    auto loaded = loadWorkloadFile(file);
    QVERIFY(std::holds_alternative<WorkloadProfile>(loaded));
    request.workload = std::get<WorkloadProfile>(loaded);
    request.earliestStart = 100;
    request.latestStart = 110;
    const PlanResult expected = planPlacements(*engine, request);
    QCOMPARE(expected.placements.size(), std::size_t{1});
    const PlannedPlacement& p = expected.placements.front();
    const auto& order = j["placements"][0]["order"];
    QCOMPARE(order["cluster"].get<ClusterId>(), ClusterId{1});
    QCOMPARE(order["gpus"].get<GpuCount>(), GpuCount{16});
    QCOMPARE(order["start"].get<Hour>(), p.start);
    QCOMPARE(order["end"].get<Hour>(), p.end);
    QCOMPARE(p.start, Hour{105});
    QCOMPARE(order["limit"].get<Price>(), p.limit);
    QCOMPARE(p.limit, Price{2'200'000});
    QCOMPARE(order["fill"].get<std::string>(), std::string("all_or_none"));
    QCOMPARE(order["effective_cost_factors"][0]["factor_ppm"].get<std::int64_t>(), p.costFactor.ppm);
    // The order is one the engine reads as it is.
    nlohmann::json withId = order;
    withId["id"] = 1;
    QVERIFY(std::holds_alternative<OrderRequest>(orderFromJson(withId, 7)));

    // The table names the cluster and the order too.
    const Run table = plan({"--workload", file, "--start-in", "50", "--latest-start-in", "60"}, text);
    QCOMPARE(table.status, 0);
    QVERIFY(table.out.find("1. ib-a: 16 x H100") != std::string::npos);
    QVERIFY(table.out.find("order: {") != std::string::npos);
  }

  void saysWhyAndFailsWhenNothingServes() {
    AccountDirectory accounts;
    std::vector<InputEvent> inputs;
    const std::string text = market(accounts, inputs);
    const std::string file = td::sourcePath("resources/workloads/llm-70b-pretrain.json").toStdString();
    const Run r = plan({"--workload", file}, text);  // 512 GPUs on a 256-GPU cluster
    QCOMPARE(r.status, 1);
    QVERIFY2(r.out.find("ib-a: too few GPUs: the cluster has 256, the workload needs 512") != std::string::npos,
             r.out.c_str());
    QVERIFY(r.out.find("earliest feasible start: none") != std::string::npos);
  }

  void badArgumentsAndInputAreRefused() {
    AccountDirectory accounts;
    std::vector<InputEvent> inputs;
    const std::string text = market(accounts, inputs);
    const std::string file = td::sourcePath("resources/workloads/llm-70b-pretrain.json").toStdString();
    Run r = plan({}, text);
    QCOMPARE(r.status, 2);
    QVERIFY(r.err.find("--workload is required") != std::string::npos);
    r = plan({"--workload", file, "--kinds", "H100,Z9"}, text);
    QCOMPARE(r.status, 2);
    QVERIFY(r.err.find("unknown GPU kind 'Z9'") != std::string::npos);
    r = plan({"--workload", file, "--budget", "0"}, text);
    QCOMPARE(r.status, 2);
    QVERIFY(r.err.find("--budget: must be more than 0, got 0") != std::string::npos);
    r = plan({"--workload", file}, text + "{not json\n");
    QCOMPARE(r.status, 2);
    QVERIFY(r.err.find("could not be read; nothing planned") != std::string::npos);
    QVERIFY(r.out.empty());
  }
};

QTEST_GUILESS_MAIN(TestPlanCommand)
#include "test_plan_command.moc"
