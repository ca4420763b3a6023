#include "backtest/strategies/CalendarStrategy.h"

#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"

#include <algorithm>
#include <cmath>

namespace tessera::backtest {
namespace {
Price scaled(Price p, double f) {
  return std::max<Price>(1000, static_cast<Price>(std::llround(static_cast<double>(p) * f / 1000.0)) * 1000);
}
}  // namespace

void CalendarStrategy::onStart(StrategyContext& ctx) {
  auto c = requireCluster(ctx.clusters(), p_.cluster);
  if (auto* why = std::get_if<std::string>(&c)) return failSetup(*why);
  cluster_ = std::get<Cluster>(c).id;
  blockStart_ = ctx.now() + std::max<Hour>(1, p_.startInHours);
  OrderRequest o;
  o.side = Side::Buy;
  o.cluster = *cluster_;
  o.gpus = p_.gpus;
  o.start = blockStart_;
  o.end = blockStart_ + p_.hours;
  o.limit = p_.maxPrice;
  o.fill = FillStyle::Divisible;
  // Only worth buying until the block starts.
  o.tif = TimeInForce::GTD;
  o.expireAt = blockStart_;
  ctx.place(o);
}

void CalendarStrategy::onOwnFill(StrategyContext& ctx, const Fill& f) {
  if (f.side == Side::Sell) {
    if (auto it = asks_.find(f.order); it != asks_.end() && f.leavesGpuHours == 0) it->second.live = false;
    return;
  }
  // Offer back the part of this purchase that falls in the sell-back window.
  const Hour from = std::max({f.start, blockStart_ + p_.sellBackFromHours, ctx.now() + 1});
  const Hour to = std::min(f.end, blockStart_ + p_.sellBackFromHours + p_.sellBackHours);
  if (from >= to) return;
  OrderRequest s;
  s.side = Side::Sell;
  s.cluster = f.cluster;
  s.gpus = f.gpus;
  s.start = from;
  s.end = to;
  s.limit = scaled(f.price, 1.0 + p_.sellMarkup);
  s.fill = FillStyle::Divisible;
  if (f.contract != 0) s.sellBack = f.contract;  // live fills do not carry the contract id
  const OrderId id = ctx.place(s);
  asks_[id] = Ask{s.limit, scaled(f.price, 1.0 + p_.floorMarkup), ctx.now(), from};
}

void CalendarStrategy::onClock(StrategyContext& ctx, Hour now) {
  for (auto& [id, ask] : asks_) {
    if (!ask.live || ask.start <= now) continue;
    if (now - ask.placedAt < p_.repriceHours || ask.limit <= ask.floor) continue;
    ask.limit = std::max(ask.floor, scaled(ask.limit, 0.98));
    ask.placedAt = now;
    ctx.amend(id, ask.limit, std::nullopt);
  }
}

namespace {

MadeStrategy makeCalendarStrategy(const nlohmann::json& j) {
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

}  // namespace

TESSERA_REGISTER_STRATEGY(
    "calendar", "buy a block of hours, sell back the part not needed at a markup, lowering towards a floor",
    R"({"cluster": "aurora-us-east-h100-a", "gpus": 32, "start_in_hours": 24, "hours": 96, "max_price": 2.6, "sell_back_from_hours": 48, "sell_back_hours": 24, "sell_markup": 0.05})",
    makeCalendarStrategy);

}  // namespace tessera::backtest
