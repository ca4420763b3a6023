#include "backtest/strategies/StandingBidStrategy.h"

#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"

namespace tessera::backtest {

void StandingBidStrategy::onStart(StrategyContext& ctx) {
  deadline_ = ctx.now() + p_.deadlineHours;
  if (!p_.cluster.empty()) {
    auto c = requireCluster(ctx.clusters(), p_.cluster);
    if (auto* why = std::get_if<std::string>(&c)) return failSetup(*why);
    cluster_ = std::get<Cluster>(c).id;
  }
  enter(ctx);
}

void StandingBidStrategy::enter(StrategyContext& ctx) {
  if (filled_ || working_ || setupError()) return;
  const Hour start = ctx.now() + std::max<Hour>(1, p_.earliestStartHours);
  const Hour latestStart = deadline_ - p_.hours;
  if (start > latestStart) return;  // too late: the run no longer fits before the deadline
  OrderRequest o;
  o.side = Side::Buy;
  if (cluster_)
    o.cluster = *cluster_;
  else
    o.constraints = p_.constraints;
  o.gpus = p_.gpus;
  o.start = start;
  o.end = deadline_;
  if (deadline_ - start > p_.hours) o.duration = p_.hours;
  o.limit = p_.maxPrice;
  o.fill = FillStyle::AllOrNone;
  // Stop bidding once the latest start has passed.
  o.tif = TimeInForce::GTD;
  o.expireAt = latestStart + 1;
  working_ = ctx.place(o);
}

void StandingBidStrategy::onClock(StrategyContext& ctx, Hour) { enter(ctx); }

void StandingBidStrategy::onOwnFill(StrategyContext&, const Fill& f) {
  if (f.side == Side::Buy && f.leavesGpuHours == 0) {
    filled_ = true;
    working_.reset();
  }
}

void StandingBidStrategy::onOrderEvent(StrategyContext&, const Event& e) {
  // A rejected or cancelled bid is entered again at the next clock tick.
  if (const auto* r = std::get_if<OrderRejected>(&e); r && working_ && r->order == *working_) working_.reset();
  if (const auto* c = std::get_if<OrderCancelled>(&e); c && working_ && c->order == *working_ && c->leavesGpuHours == 0)
    working_.reset();
}

namespace {

MadeStrategy makeStandingBidStrategy(const nlohmann::json& j) {
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

}  // namespace

TESSERA_REGISTER_STRATEGY(
    "standing-bid",
    "a standing all-or-none bid for a training run: N GPUs for D hours at average <= P, before a deadline",
    R"({"cluster": "aurora-us-east-h100-a", "gpus": 64, "hours": 24, "max_price": 2.6, "deadline_hours": 120})",
    makeStandingBidStrategy);

}  // namespace tessera::backtest
