// The planning question on a live book (cost::planPlacements): a training run on the default
// simulated market gets a placement priced as the cost model prices that cluster and window,
// and a workload that cannot be served gets a reason per cluster and the earliest start.
#include "CostTestData.h"
#include "backtest/SimulatedMarket.h"
#include "core/cost/MarketOffers.h"
#include "core/cost/PlanSearch.h"
#include "core/cost/WorkloadJson.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::cost;
namespace td = tessera::cost::testdata;

namespace {

// The terminal's market (TerminalOptions: a tick per simulated minute), after its set-up and one
// simulated minute of trading.
std::unique_ptr<Matcher> defaultMarketAfterAMinute() {
  AccountDirectory accounts;
  backtest::SimulatedMarketConfig cfg;
  cfg.ticksPerHour = 60;
  backtest::SimulatedMarket market(cfg, accounts);
  auto engine = makeMatchingEngine();
  std::vector<Event> out;
  for (int tick = 0; tick < 2; ++tick)
    for (const InputEvent& in : market.step()) engine->apply(in, out);
  return engine;
}

WorkloadProfile trainingRun(GpuCount dataParallel) {
  auto loaded = loadWorkloadFile(td::sourcePath("resources/workloads/llm-70b-pretrain.json").toStdString());
  if (auto* err = std::get_if<LoadError>(&loaded)) qFatal("%s", err->message.c_str());
  WorkloadProfile w = std::get<WorkloadProfile>(loaded);
  w.parallelism.data = dataParallel;  // x tensor 8
  w.steps = 190'000;                  // about 14 days on H100
  return w;
}

// The average price of the cheapest `gpus` asks in every hour of [start, end), walked here
// rather than through the search or offerFromBook.
double averageAsk(const Matcher& book, ClusterId cluster, Hour start, Hour end, GpuCount gpus) {
  double micros = 0;
  for (Hour h = start; h < end; ++h) {
    GpuCount left = gpus;
    for (const BookLevel& level : book.depth(cluster, h, Side::Sell, 100000)) {
      const GpuCount take = std::min(left, level.gpus);
      micros += static_cast<double>(take) * static_cast<double>(level.price);
      left -= take;
    }
    if (left > 0) return -1;
  }
  return micros / (static_cast<double>(gpus) * static_cast<double>(end - start)) / 1e6;
}

Cluster makeCluster(ClusterId id, const char* name, int nodes, Accelerator a = Accelerator::H100) {
  Cluster c;
  c.id = id;
  c.name = name;
  c.provider = "p";
  c.region = "us-east";
  c.accelerator = a;
  c.nodeCount = nodes;
  c.fabric = FabricClass::InfiniBand;
  c.fabricGbpsPerNode = 3200;
  return c;
}

struct HandBook {
  std::unique_ptr<Matcher> engine = makeMatchingEngine();
  std::vector<Event> events;
  OrderId nextId = 1;
  AccountId nextSeller = 1;

  HandBook() { engine->apply(ClockAdvance{50}, events); }
  void add(const Cluster& c) { engine->apply(c, events); }
  void list(ClusterId cluster, GpuCount gpus, Hour start, Hour end, double dollars) {
    const AccountId seller = nextSeller++;
    engine->apply(CapacityGrant{seller, cluster, gpus, start, end}, events);
    OrderRequest o;
    o.id = nextId++;
    o.account = seller;
    o.side = Side::Sell;
    o.cluster = cluster;
    o.gpus = gpus;
    o.start = start;
    o.end = end;
    o.limit = static_cast<Price>(dollars * 1e6);
    events.clear();
    engine->apply(o, events);
    QVERIFY(!events.empty() && std::holds_alternative<OrderAccepted>(events.front()));
  }
};

const ClusterUnfit* unfitOf(const PlanResult& r, ClusterId id) {
  for (const auto& u : r.unfit)
    if (u.cluster.id == id) return &u;
  return nullptr;
}

}  // namespace

class TestPlanSearch : public QObject {
  Q_OBJECT

 private slots:
  // Fails without the whole-cluster leases of the simulated market (no cluster lists 512 GPUs
  // for two weeks), and fails if the search's window sums are one hour off (mutation tried:
  // costBefore_[index(end) - 1] in AskScan::costMicros gives a different effective cost).
  void trainingRunOnTheDefaultMarketIsPricedAsTheModelPricesItsWindow() {
    const auto book = defaultMarketAfterAMinute();
    PlanRequest r;
    r.workload = trainingRun(64);
    QCOMPARE(r.workload.gpus(), 512);
    r.earliestStart = book->now() + 24;
    r.latestStart = book->now() + 7 * 24;
    const PlanResult plan = planPlacements(*book, r);
    QVERIFY2(plan.problem.empty(), plan.problem.c_str());
    QVERIFY2(!plan.placements.empty(), "no feasible placement for a 512-GPU run");
    QCOMPARE(plan.placements.size() + plan.unfit.size(), book->clusters().size());

    for (std::size_t i = 0; i < plan.placements.size(); ++i) {
      const PlannedPlacement& p = plan.placements[i];
      if (i > 0) QVERIFY(plan.placements[i - 1].cost.terms.total() <= p.cost.terms.total());
      QCOMPARE(p.gpus, 512);
      QVERIFY(p.start >= r.earliestStart && p.start <= r.latestStart);
      // The window is the wall clock on that cluster, rounded up to whole hours.
      QVERIFY(p.end - p.start >= p.cost.wallClockHours);
      QVERIFY(p.end - p.start < p.cost.wallClockHours + 1);

      // The cost model's figure for this cluster and window, computed here.
      const double ask = averageAsk(*book, p.cluster.id, p.start, p.end, 512);
      QVERIFY(ask > 0);
      Offer o;
      o.label = p.cluster.name;
      o.gpus = 512;
      o.windowHours = static_cast<double>(p.end - p.start);
      o.pricePerGpuHour = ask;
      const CostResult expected = evaluate(r.workload, deriveTopology(p.cluster), o);
      QVERIFY(std::holds_alternative<CostBreakdown>(expected));
      const double total = std::get<CostBreakdown>(expected).terms.total();
      QVERIFY2(qAbs(total - p.cost.terms.total()) <= 1e-9 * total,
               qPrintable(QString("%1: model %2, plan %3")
                              .arg(QString::fromStdString(p.cluster.name))
                              .arg(total, 0, 'f', 2)
                              .arg(p.cost.terms.total(), 0, 'f', 2)));
      // The limit covers the window's average ask and is on the cent, as the ticket shows it.
      QVERIFY(static_cast<double>(p.limit) >= ask * 1e6 - 1e-6);
      QVERIFY(static_cast<double>(p.limit) < ask * 1e6 + 10'000);
      QCOMPARE(p.limit % 10'000, Price{0});
      QCOMPARE(p.costFactor.cluster, p.cluster.id);
      QCOMPARE(p.costFactor.ppm, costFactorPpm(p.cost));
    }

    // The chosen start is the cheapest on its cluster: every other start in [E, L] costs as
    // much or more (or lacks supply).
    const PlannedPlacement& best = plan.placements.front();
    const Hour hours = best.end - best.start;
    const double bestAsk = averageAsk(*book, best.cluster.id, best.start, best.end, 512);
    for (Hour s = r.earliestStart; s <= r.latestStart; ++s) {
      const double ask = averageAsk(*book, best.cluster.id, s, s + hours, 512);
      if (ask > 0)
        QVERIFY2(ask >= bestAsk - 1e-12, qPrintable(QString("start +%1 is cheaper").arg(s - r.earliestStart)));
    }
    QVERIFY(plan.earliestFeasible.has_value());
    QVERIFY(plan.earliestFeasible->start >= r.earliestStart && plan.earliestFeasible->start <= best.start);
  }

  void aRunNoClusterCanHostGetsAReasonPerCluster() {
    const auto book = defaultMarketAfterAMinute();
    PlanRequest r;
    r.workload = trainingRun(512);  // 4096 GPUs: more than the largest cluster
    r.earliestStart = book->now() + 24;
    r.latestStart = book->now() + 7 * 24;
    const PlanResult plan = planPlacements(*book, r);
    QVERIFY(plan.placements.empty());
    QCOMPARE(plan.unfit.size(), book->clusters().size());
    for (const ClusterUnfit& u : plan.unfit) {
      QVERIFY(u.why == Unfit::TooFewGpus);
      QVERIFY2(u.reason.find("too few GPUs: the cluster has " + std::to_string(u.cluster.totalGpus()) +
                             ", the workload needs 4096") == 0,
               u.reason.c_str());
    }
    QVERIFY(!plan.earliestFeasible);
  }

  // Each way a cluster can fail to serve, on a book built by hand so the figures are known.
  void eachReasonWithItsFigures() {
    HandBook b;
    b.add(makeCluster(1, "one-node", 1));
    b.add(makeCluster(2, "thin", 16));
    b.add(makeCluster(3, "dear", 16));
    b.add(makeCluster(4, "late", 16));
    b.add(makeCluster(5, "a100", 16, Accelerator::A100));
    WorkloadProfile w = td::articleTraining();
    w.parallelism.data = 16;
    w.steps = 6000;
    const Topology topo = deriveTopology(makeCluster(2, "thin", 16));
    Offer probe;
    probe.pricePerGpuHour = 10;
    const CostResult atTenResult = evaluate(w, topo, probe);
    QVERIFY(std::holds_alternative<CostBreakdown>(atTenResult));
    const auto& atTen = std::get<CostBreakdown>(atTenResult);
    const Hour window = static_cast<Hour>(std::ceil(atTen.wallClockHours));
    QVERIFY2(window > 20 && window < 150, qPrintable(QString::number(window)));

    b.list(2, 16, 100, 100 + window / 2, 2.0);
    b.list(2, 8, 100 + window / 2, 400, 2.0);
    b.list(3, 16, 100, 400, 50.0);
    b.list(4, 16, 200, 400, 2.0);
    b.list(5, 16, 100, 400, 1.0);

    PlanRequest r;
    r.workload = w;
    r.accelerators = {Accelerator::H100};
    r.earliestStart = 100;
    r.latestStart = 110;
    r.budgetDollars = atTen.terms.total();
    const PlanResult plan = planPlacements(*b.engine, r);
    QVERIFY2(plan.problem.empty(), plan.problem.c_str());
    QVERIFY(plan.placements.empty());
    QCOMPARE(plan.unfit.size(), std::size_t{5});

    QVERIFY(unfitOf(plan, 1)->why == Unfit::TooFewGpus);
    const ClusterUnfit* thin = unfitOf(plan, 2);
    QVERIFY(thin->why == Unfit::ShortOfSupply);
    QCOMPARE(thin->windowHours, window);
    QCOMPARE(thin->hoursShort, window - window / 2);  // at the earliest start, the least short
    QCOMPARE(thin->fewestOffered, GpuCount{8});
    const ClusterUnfit* dear = unfitOf(plan, 3);
    QVERIFY(dear->why == Unfit::OverBudget);
    probe.pricePerGpuHour = 50;
    const double atFifty = std::get<CostBreakdown>(evaluate(w, topo, probe)).terms.total();
    QVERIFY(qAbs(dear->overBudgetBy - (atFifty - *r.budgetDollars)) < 1e-6 * atFifty);
    const ClusterUnfit* late = unfitOf(plan, 4);
    QVERIFY(late->why == Unfit::ShortOfSupply);
    QCOMPARE(late->hoursShort, std::min<Hour>(window, 200 - 110));
    QCOMPARE(late->fewestOffered, GpuCount{0});
    QVERIFY(unfitOf(plan, 5)->why == Unfit::Kind);
    for (const auto& u : plan.unfit) QVERIFY(!u.reason.empty());

    // Nothing serves in [100, 110]; the late cluster can from hour 200 (thin never has 16 GPUs
    // for a whole window again, dear is always over budget).
    QVERIFY(plan.earliestFeasible.has_value());
    QCOMPARE(plan.earliestFeasible->cluster.id, ClusterId{4});
    QCOMPARE(plan.earliestFeasible->start, Hour{200});
  }

  void badRequestsSayWhatIsWrong() {
    HandBook b;
    PlanRequest r;
    r.workload = td::articleTraining();
    r.earliestStart = 100;
    r.latestStart = 90;
    QCOMPARE(planPlacements(*b.engine, r).problem, std::string("the latest start is before the earliest start"));
    r.latestStart = 110;
    r.budgetDollars = 0;
    QCOMPARE(planPlacements(*b.engine, r).problem, std::string("the budget must be a positive number of dollars"));
    r.budgetDollars.reset();
    r.workload.steps = 0;
    QVERIFY(planPlacements(*b.engine, r).problem.find("workload: ") == 0);
  }
};

QTEST_GUILESS_MAIN(TestPlanSearch)
#include "test_plan_search.moc"
