#pragma once
// A standing limit bid for a training run: buy `gpus` GPUs for `hours` contiguous hours, on
// one cluster or any cluster meeting constraints, as long as the average price is at most
// `max_price`, finishing before a deadline. It keeps one all-or-none, flexible-window bid
// resting until it fills or can no longer fit before the deadline, re-entering it if the
// exchange rejects or cancels it.
#include "backtest/Strategy.h"

#include <optional>

namespace tessera::backtest {

struct StandingBidParams {
  std::string cluster;  // a cluster name; empty: use `constraints`
  ClusterConstraints constraints;
  GpuCount gpus = 64;
  Hour hours = 24;
  Price maxPrice = 2'500'000;
  Hour deadlineHours = 7 * 24;  // the run must end this many hours after the start
  Hour earliestStartHours = 1;
};

class StandingBidStrategy final : public Strategy {
 public:
  explicit StandingBidStrategy(StandingBidParams p) : p_(std::move(p)) {}
  std::string name() const override { return "standing-bid"; }
  void onStart(StrategyContext& ctx) override;
  void onClock(StrategyContext& ctx, Hour now) override;
  void onOwnFill(StrategyContext& ctx, const Fill& f) override;
  void onOrderEvent(StrategyContext& ctx, const Event& e) override;
  std::int64_t demandGpuHours() const override { return static_cast<std::int64_t>(p_.gpus) * p_.hours; }

  bool filled() const { return filled_; }

 private:
  void enter(StrategyContext& ctx);

  StandingBidParams p_;
  std::optional<ClusterId> cluster_;
  Hour deadline_ = 0;
  std::optional<OrderId> working_;
  bool filled_ = false;
};

}  // namespace tessera::backtest
