#pragma once
// Buys the capacity for a list of jobs at the least effective cost. Every `replan_hours` it
// prices, for each job not yet covered, every contiguous window before the job's deadline on
// every cluster that meets the job's constraints, from the asks resting in the book; divides
// the price by the cluster's relative training throughput (effective cost per useful GPU-hour)
// and takes the cheapest with an all-or-none immediate-or-cancel order. Jobs are planned
// largest first, so big runs are not crowded out by small ones.
#include "backtest/Strategy.h"

#include <optional>
#include <vector>

namespace tessera::backtest {

struct PlannedJob {
  std::string name;
  GpuCount gpus = 8;
  Hour hours = 8;
  Hour deadlineHours = 72;  // must finish this many hours after the strategy starts
  ClusterConstraints constraints;
  std::optional<Price> maxPrice;  // bound on the average price per GPU-hour
};

struct JobPlannerParams {
  std::vector<PlannedJob> jobs;
  Hour replanHours = 1;
  double priceTolerance = 0.005;  // limit = estimated average * (1 + tolerance)
};

// Useful work per GPU-hour relative to an H100 on InfiniBand, for multi-node training: the
// accelerator's throughput times the interconnect's scaling efficiency.
double relativeThroughput(const Cluster& c, GpuCount gpus);

class JobPlannerStrategy final : public Strategy {
 public:
  explicit JobPlannerStrategy(JobPlannerParams p);
  std::string name() const override { return "planner"; }
  void onStart(StrategyContext& ctx) override;
  void onClock(StrategyContext& ctx, Hour now) override;
  void onOwnFill(StrategyContext& ctx, const Fill& f) override;
  void onOrderEvent(StrategyContext& ctx, const Event& e) override;
  std::int64_t demandGpuHours() const override;

  struct Plan {
    ClusterId cluster = 0;
    Hour start = 0;
    Price averagePrice = 0;
    double effectiveCost = 0;  // micro-dollars per H100-equivalent GPU-hour
  };
  // The cheapest window for `job` in the current book, if any.
  std::optional<Plan> cheapest(StrategyContext& ctx, const PlannedJob& job) const;
  bool covered(std::size_t job) const { return jobs_[job].covered; }

 private:
  struct JobState {
    PlannedJob job;
    Hour deadline = 0;
    std::optional<OrderId> working;
    bool covered = false;
  };
  void plan(StrategyContext& ctx);

  JobPlannerParams p_;
  std::vector<JobState> jobs_;
  Hour lastPlan_ = 0;
};

}  // namespace tessera::backtest
