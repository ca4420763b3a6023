#include "backtest/strategies/JobPlannerStrategy.h"

#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::backtest {

double relativeThroughput(const Cluster& c, GpuCount gpus) {
  double perGpu = 1.0;
  switch (c.accelerator) {
    case Accelerator::A100: perGpu = 0.33; break;
    case Accelerator::H100: perGpu = 1.0; break;
    case Accelerator::H200: perGpu = 1.3; break;
    case Accelerator::B200: perGpu = 2.2; break;
    case Accelerator::GB200: perGpu = 2.5; break;
    case Accelerator::MI300X: perGpu = 0.9; break;
    case Accelerator::L40S: perGpu = 0.35; break;
    case Accelerator::RTX4090: perGpu = 0.2; break;
  }
  // Inside one node the interconnect does not matter; across nodes a slow fabric idles GPUs.
  if (gpus > c.gpusPerNode) {
    switch (c.fabric) {
      case FabricClass::InfiniBand: break;
      case FabricClass::RoCE: perGpu *= 0.9; break;
      case FabricClass::Ethernet: perGpu *= 0.55; break;
    }
  }
  return perGpu;
}

JobPlannerStrategy::JobPlannerStrategy(JobPlannerParams p) : p_(std::move(p)) {
  for (const auto& j : p_.jobs) jobs_.push_back({j, 0, std::nullopt, false});
  std::stable_sort(jobs_.begin(), jobs_.end(), [](const JobState& a, const JobState& b) {
    return static_cast<std::int64_t>(a.job.gpus) * a.job.hours > static_cast<std::int64_t>(b.job.gpus) * b.job.hours;
  });
}

std::int64_t JobPlannerStrategy::demandGpuHours() const {
  std::int64_t d = 0;
  for (const auto& j : jobs_) d += static_cast<std::int64_t>(j.job.gpus) * j.job.hours;
  return d;
}

void JobPlannerStrategy::onStart(StrategyContext& ctx) {
  for (auto& j : jobs_) j.deadline = ctx.now() + j.job.deadlineHours;
  plan(ctx);
}

void JobPlannerStrategy::onClock(StrategyContext& ctx, Hour now) {
  if (now - lastPlan_ >= std::max<Hour>(1, p_.replanHours)) plan(ctx);
}

std::optional<JobPlannerStrategy::Plan> JobPlannerStrategy::cheapest(StrategyContext& ctx,
                                                                     const PlannedJob& job) const {
  const Hour first = ctx.now() + 1;
  Hour deadline = first;
  for (const auto& j : jobs_)
    if (j.job.name == job.name) deadline = j.deadline;
  if (deadline - first < job.hours) return std::nullopt;
  std::optional<Plan> best;
  for (const Cluster& c : ctx.clusters()) {
    if (!job.constraints.matches(c) || c.totalGpus() < job.gpus) continue;
    const double throughput = relativeThroughput(c, job.gpus);
    // Cost of buying job.gpus in each hour from the resting asks; nullopt where too thin.
    std::vector<std::optional<Money>> cell;
    cell.reserve(static_cast<std::size_t>(deadline - first));
    for (Hour h = first; h < deadline; ++h) {
      GpuCount need = job.gpus;
      Money cost = 0;
      for (const BookLevel& l : ctx.depth(c.id, h, Side::Sell, 64)) {
        const GpuCount take = std::min(need, l.gpus);
        cost += take * l.price;
        need -= take;
        if (need == 0) break;
      }
      cell.push_back(need == 0 ? std::optional<Money>(cost) : std::nullopt);
    }
    // Slide a window of job.hours over the cells.
    Money sum = 0;
    std::size_t valid = 0;
    const auto len = static_cast<std::size_t>(job.hours);
    for (std::size_t i = 0; i < cell.size(); ++i) {
      if (cell[i]) {
        sum += *cell[i];
        ++valid;
      }
      if (i >= len) {
        if (cell[i - len]) {
          sum -= *cell[i - len];
          --valid;
        }
      }
      if (i + 1 < len || valid < len) continue;
      const Price average = sum / (static_cast<Money>(job.gpus) * job.hours);
      if (job.maxPrice && average > *job.maxPrice) continue;
      const double effective = static_cast<double>(average) / throughput;
      if (!best || effective < best->effectiveCost) {
        best = Plan{c.id, first + static_cast<Hour>(i + 1 - len), average, effective};
      }
    }
  }
  return best;
}

void JobPlannerStrategy::plan(StrategyContext& ctx) {
  lastPlan_ = ctx.now();
  for (auto& j : jobs_) {
    if (j.covered || j.working) continue;
    const auto best = cheapest(ctx, j.job);
    if (!best) continue;
    OrderRequest o;
    o.side = Side::Buy;
    o.cluster = best->cluster;
    o.gpus = j.job.gpus;
    o.start = best->start;
    o.end = best->start + j.job.hours;
    // Round up to the price grid: the AON limit bounds the average, so a small tolerance
    // absorbs asks that moved while the order travelled.
    Price limit = static_cast<Price>(std::ceil(static_cast<double>(best->averagePrice) * (1.0 + p_.priceTolerance)));
    if (j.job.maxPrice) limit = std::min(limit, *j.job.maxPrice);
    o.limit = limit;
    o.fill = FillStyle::AllOrNone;
    o.tif = TimeInForce::IOC;
    j.working = ctx.place(o);
  }
}

void JobPlannerStrategy::onOwnFill(StrategyContext&, const Fill& f) {
  for (auto& j : jobs_)
    if (j.working && *j.working == f.order && f.leavesGpuHours == 0) {
      j.covered = true;
      j.working.reset();
    }
}

void JobPlannerStrategy::onOrderEvent(StrategyContext&, const Event& e) {
  OrderId id = 0;
  if (const auto* c = std::get_if<OrderCancelled>(&e))
    id = c->order;
  else if (const auto* r = std::get_if<OrderRejected>(&e))
    id = r->order;
  if (id == 0) return;
  for (auto& j : jobs_)
    if (j.working && *j.working == id) j.working.reset();  // try again at the next plan
}

namespace {

MadeStrategy makeJobPlannerStrategy(const nlohmann::json& j) {
  StrategyParams p(j, {"jobs", "replan_hours", "price_tolerance"});
  JobPlannerParams jp;
  jp.replanHours = p.integer("replan_hours", 1, 1, 24 * 31);
  jp.priceTolerance = p.number("price_tolerance", 0.005, 0.0, 0.5);
  const auto it = p.json().find("jobs");
  if (it == p.json().end() || !it->is_array() || it->empty()) {
    p.fail("jobs: required, a non-empty list of {\"name\", \"gpus\", \"hours\", \"deadline_hours\", ...}");
  } else {
    int n = 0;
    for (const auto& job : *it) {
      ++n;
      const std::string where = "jobs[" + std::to_string(n - 1) + "].";
      StrategyParams jpar(job, {"name", "gpus", "hours", "deadline_hours", "accelerators", "regions",
                                "min_gpu_memory_gb", "min_fabric", "max_carbon", "max_price"});
      PlannedJob pj;
      pj.name = jpar.text("name", "job-" + std::to_string(n));
      pj.gpus = static_cast<GpuCount>(jpar.integer("gpus", std::nullopt, 1, 1'000'000));
      pj.hours = jpar.integer("hours", std::nullopt, 1, 24 * 366);
      pj.deadlineHours = jpar.integer("deadline_hours", 72, 1, 24 * 366 * 5);
      pj.constraints = jpar.constraints(jpar.json(), where);
      if (jpar.json().contains("max_price")) pj.maxPrice = jpar.price("max_price", std::nullopt);
      if (pj.deadlineHours <= pj.hours) jpar.fail("deadline_hours: must exceed hours");
      if (!jpar.ok()) p.fail(where + " " + jpar.errors());
      jp.jobs.push_back(pj);
    }
  }
  if (!p.ok()) return p.errors();
  return std::make_unique<JobPlannerStrategy>(jp);
}

}  // namespace

TESSERA_REGISTER_STRATEGY(
    "planner", "buy the capacity for a list of jobs at the least effective cost (price / relative throughput)",
    R"({"jobs": [{"name": "pretrain", "gpus": 64, "hours": 24, "deadline_hours": 120, "min_fabric": "InfiniBand"}, {"name": "finetune", "gpus": 8, "hours": 12, "deadline_hours": 48}, {"name": "eval", "gpus": 4, "hours": 6, "deadline_hours": 36, "accelerators": ["L40S", "A100"]}]})",
    makeJobPlannerStrategy);

}  // namespace tessera::backtest
