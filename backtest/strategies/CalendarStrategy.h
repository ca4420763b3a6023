#pragma once
// Buy a block, sell part of it back: buys `gpus` GPUs on a cluster for `hours` hours starting
// `start_in_hours` from now (divisible, at most `max_price`), then offers the hours it will
// not use ([sell_back_from, sell_back_from + sell_back_hours) inside the block) back to the
// market at its purchase price plus a markup, lowering the ask towards a floor as delivery
// approaches.
#include "backtest/Strategy.h"

#include <map>

namespace tessera::backtest {

struct CalendarParams {
  std::string cluster;
  GpuCount gpus = 32;
  Hour startInHours = 24;
  Hour hours = 7 * 24;
  Price maxPrice = 2'500'000;
  Hour sellBackFromHours = 72;  // offset inside the block
  Hour sellBackHours = 24;
  double sellMarkup = 0.05;    // first ask: price paid * (1 + markup)
  double floorMarkup = -0.05;  // lowest ask: price paid * (1 + floor)
  Hour repriceHours = 6;       // lower the ask every this many hours, by 2%
};

class CalendarStrategy final : public Strategy {
 public:
  explicit CalendarStrategy(CalendarParams p) : p_(std::move(p)) {}
  std::string name() const override { return "calendar"; }
  void onStart(StrategyContext& ctx) override;
  void onClock(StrategyContext& ctx, Hour now) override;
  void onOwnFill(StrategyContext& ctx, const Fill& f) override;
  std::int64_t demandGpuHours() const override {
    return static_cast<std::int64_t>(p_.gpus) * (p_.hours - p_.sellBackHours);
  }

 private:
  struct Ask {
    Price limit;
    Price floor;
    Hour placedAt;
    Hour start;
    bool live = true;
  };
  CalendarParams p_;
  std::optional<ClusterId> cluster_;
  Hour blockStart_ = 0;
  std::map<OrderId, Ask> asks_;
};

}  // namespace tessera::backtest
