#include "backtest/strategies/StandingBidStrategy.h"

#include "backtest/StrategyParams.h"

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
  if (cluster_) o.cluster = *cluster_;
  else o.constraints = p_.constraints;
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

}  // namespace tessera::backtest
