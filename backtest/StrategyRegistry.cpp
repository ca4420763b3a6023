#include "backtest/StrategyRegistry.h"

#include "backtest/StrategyParams.h"
#include "backtest/strategies/CalendarStrategy.h"
#include "backtest/strategies/JobPlannerStrategy.h"
#include "backtest/strategies/MarketMakerStrategy.h"
#include "backtest/strategies/NoopStrategy.h"
#include "backtest/strategies/ProcureStrategy.h"
#include "backtest/strategies/StandingBidStrategy.h"

namespace tessera::backtest {
namespace {

using Made = std::variant<std::unique_ptr<Strategy>, std::string>;

Made standingBid(const nlohmann::json& j) {
  StrategyParams p(j, {"cluster", "accelerators", "regions", "min_gpu_memory_gb", "min_fabric", "max_carbon", "gpus",
                       "hours", "max_price", "deadline_hours", "earliest_start_hours"});
  StandingBidParams s;
  s.cluster = p.text("cluster", "");
  s.constraints = p.constraints(p.json(), "");
  s.gpus = static_cast<GpuCount>(p.integer("gpus", std::nullopt, 1, 1'000'000));
  s.hours = p.integer("hours", std::nullopt, 1, 24 * 366);
  s.maxPrice = p.price("max_price", std::nullopt);
  s.deadlineHours = p.integer("deadline_hours", 7 * 24, 1, 24 * 366 * 5);
  s.earliestStartHours = p.integer("earliest_start_hours", 1, 1, 24 * 366);
  if (s.deadlineHours < s.hours + s.earliestStartHours) p.fail("deadline_hours: leaves no room for the run");
  if (!p.ok()) return p.errors();
  return std::make_unique<StandingBidStrategy>(s);
}

Made calendar(const nlohmann::json& j) {
  StrategyParams p(j, {"cluster", "gpus", "start_in_hours", "hours", "max_price", "sell_back_from_hours",
                       "sell_back_hours", "sell_markup", "floor_markup", "reprice_hours"});
  CalendarParams c;
  c.cluster = p.text("cluster", std::nullopt);
  c.gpus = static_cast<GpuCount>(p.integer("gpus", 32, 1, 1'000'000));
  c.startInHours = p.integer("start_in_hours", 24, 1, 24 * 366);
  c.hours = p.integer("hours", 7 * 24, 2, 24 * 366);
  c.maxPrice = p.price("max_price", std::nullopt);
  c.sellBackFromHours = p.integer("sell_back_from_hours", 72, 0, 24 * 366);
  c.sellBackHours = p.integer("sell_back_hours", 24, 1, 24 * 366);
  c.sellMarkup = p.number("sell_markup", 0.05, -0.9, 10);
  c.floorMarkup = p.number("floor_markup", -0.05, -0.9, 10);
  c.repriceHours = p.integer("reprice_hours", 6, 1, 24 * 366);
  if (c.sellBackFromHours + c.sellBackHours > c.hours) p.fail("sell_back window must lie inside the block");
  if (!p.ok()) return p.errors();
  return std::make_unique<CalendarStrategy>(c);
}

Made marketMaker(const nlohmann::json& j) {
  StrategyParams p(j, {"cluster", "gpus", "hours_ahead", "window_hours", "spread", "max_inventory_gpus", "requote_hours"});
  MarketMakerParams m;
  m.cluster = p.text("cluster", std::nullopt);
  m.gpus = static_cast<GpuCount>(p.integer("gpus", 8, 1, 1'000'000));
  m.hoursAhead = p.integer("hours_ahead", 24, 1, 24 * 366);
  m.windowHours = p.integer("window_hours", 4, 1, 24 * 31);
  m.spread = p.number("spread", 0.04, 0.0, 1.0);
  m.maxInventoryGpus = static_cast<GpuCount>(p.integer("max_inventory_gpus", 64, 0, 1'000'000));
  m.requoteHours = p.integer("requote_hours", 1, 1, 24 * 31);
  if (!p.ok()) return p.errors();
  return std::make_unique<MarketMakerStrategy>(m);
}

Made procure(const nlohmann::json& j) {
  StrategyParams p(j, {"cluster", "accelerators", "regions", "min_gpu_memory_gb", "min_fabric", "max_carbon", "gpus",
                       "horizon_hours", "lead_hours", "max_price", "sell_floor", "every_hours"});
  ProcureParams s;
  s.cluster = p.text("cluster", "");
  s.constraints = p.constraints(p.json(), "");
  s.gpus = static_cast<GpuCount>(p.integer("gpus", std::nullopt, 1, 1'000'000));
  s.horizonHours = p.integer("horizon_hours", 7 * 24, 1, 24 * 366);
  s.leadHours = p.integer("lead_hours", 0, 0, 24 * 366);
  s.maxPrice = p.price("max_price", std::nullopt);
  if (p.json().contains("sell_floor")) s.sellFloor = p.price("sell_floor", std::nullopt);
  s.everyHours = p.integer("every_hours", 1, 1, 24 * 31);
  if (!s.cluster.empty() && !(s.constraints == ClusterConstraints{})) p.fail("cluster: give a cluster or constraints, not both");
  if (!p.ok()) return p.errors();
  return std::make_unique<ProcureStrategy>(s);
}

Made planner(const nlohmann::json& j) {
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

const std::vector<StrategyInfo>& builtInStrategies() {
  static const std::vector<StrategyInfo> infos = {
      {"standing-bid", "a standing all-or-none bid for a training run: N GPUs for D hours at average <= P, before a deadline",
       {{"cluster", "aurora-us-east-h100-a"}, {"gpus", 64}, {"hours", 24}, {"max_price", 2.6}, {"deadline_hours", 120}}},
      {"calendar", "buy a block of hours, sell back the part not needed at a markup, lowering towards a floor",
       {{"cluster", "aurora-us-east-h100-a"}, {"gpus", 32}, {"start_in_hours", 24}, {"hours", 96}, {"max_price", 2.6},
        {"sell_back_from_hours", 48}, {"sell_back_hours", 24}, {"sell_markup", 0.05}}},
      {"market-maker", "quote a bid around the book's middle on one cluster, offer back what it holds at a spread",
       {{"cluster", "harbor-us-west-h100-b"}, {"gpus", 8}, {"hours_ahead", 12}, {"window_hours", 4}, {"spread", 0.04},
        {"max_inventory_gpus", 64}}},
      {"planner", "buy the capacity for a list of jobs at the least effective cost (price / relative throughput)",
       {{"jobs",
         {{{"name", "pretrain"}, {"gpus", 64}, {"hours", 24}, {"deadline_hours", 120}, {"min_fabric", "InfiniBand"}},
          {{"name", "finetune"}, {"gpus", 8}, {"hours", 12}, {"deadline_hours", 48}},
          {{"name", "eval"}, {"gpus", 4}, {"hours", 6}, {"deadline_hours", 36}, {"accelerators", {"L40S", "A100"}}}}}}},
      {"procure", "keep N GPUs of a kind held in every hour of a rolling horizon: buy what is missing, sell back what is over",
       {{"accelerators", {"H100"}}, {"regions", {"us-east"}}, {"gpus", 16}, {"horizon_hours", 72}, {"max_price", 2.6},
        {"sell_floor", 2.0}, {"every_hours", 1}}},
      {"noop", "does nothing: the baseline, and the benchmark of the replay itself", nlohmann::json::object()},
  };
  return infos;
}

std::variant<std::unique_ptr<Strategy>, std::string> makeStrategy(const std::string& name, const nlohmann::json& params) {
  if (name == "standing-bid") return standingBid(params);
  if (name == "calendar") return calendar(params);
  if (name == "market-maker") return marketMaker(params);
  if (name == "planner") return planner(params);
  if (name == "procure") return procure(params);
  if (name == "noop") {
    StrategyParams p(params, {});
    if (!p.ok()) return p.errors();
    return std::make_unique<NoopStrategy>();
  }
  std::string known;
  for (const auto& s : builtInStrategies()) known += (known.empty() ? "" : ", ") + s.name;
  return "unknown strategy '" + name + "' (built in: " + known + ")";
}

}  // namespace tessera::backtest
