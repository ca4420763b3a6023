#include "backtest/strategies/MarketMakerStrategy.h"

#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::backtest {
namespace {
Price onTick(double micros) { return std::max<Price>(1000, static_cast<Price>(std::llround(micros / 1000.0)) * 1000); }
}  // namespace

void MarketMakerStrategy::onStart(StrategyContext& ctx) {
  auto c = requireCluster(ctx.clusters(), p_.cluster);
  if (auto* why = std::get_if<std::string>(&c)) return failSetup(*why);
  cluster_ = std::get<Cluster>(c).id;
  requote(ctx);
}

void MarketMakerStrategy::onClock(StrategyContext& ctx, Hour now) {
  // Delivered hours are gone from the inventory.
  while (!position_.empty() && position_.begin()->first < now) position_.erase(position_.begin());
  std::erase_if(cost_, [&](const auto& kv) { return kv.first.second <= now + 1; });
  if (!quotedAt_ || now - *quotedAt_ >= std::max<Hour>(1, p_.requoteHours)) requote(ctx);
}

void MarketMakerStrategy::onBookUpdate(StrategyContext& ctx, const BookChange& c) {
  if (!quotedAt_ && cluster_ && c.cluster == *cluster_) requote(ctx);
}

std::optional<Price> MarketMakerStrategy::middle(StrategyContext& ctx, Hour hour) const {
  const auto bids = ctx.depth(*cluster_, hour, Side::Buy, 1);
  const auto asks = ctx.depth(*cluster_, hour, Side::Sell, 1);
  if (!bids.empty() && !asks.empty()) return (bids.front().price + asks.front().price) / 2;
  if (auto last = ctx.lastTradePrice(*cluster_)) return *last;
  if (!asks.empty()) return asks.front().price;
  return std::nullopt;
}

void MarketMakerStrategy::requote(StrategyContext& ctx) {
  if (!cluster_) return;
  const Hour from = ctx.now() + std::max<Hour>(1, p_.hoursAhead);
  const auto mid = middle(ctx, from);
  if (!mid) return;
  quotedAt_ = ctx.now();
  for (OrderId id : working_) ctx.cancel(id);
  working_.clear();
  const double half = p_.spread / 2.0;

  GpuCount held = 0;
  for (Hour h = from; h < from + p_.windowHours; ++h)
    if (auto it = position_.find(h); it != position_.end()) held = std::max(held, it->second);
  if (held + p_.gpus <= p_.maxInventoryGpus) {
    OrderRequest bid;
    bid.side = Side::Buy;
    bid.cluster = *cluster_;
    bid.gpus = p_.gpus;
    bid.start = from;
    bid.end = from + p_.windowHours;
    bid.limit = onTick(static_cast<double>(*mid) * (1.0 - half));
    bid.fill = FillStyle::Divisible;
    working_.insert(ctx.place(bid));
  }
  // Offer what is held, block by block, at the ask (cancels above go first, freeing it).
  for (const auto& [window, paid] : cost_) {
    const Hour a = std::max(window.first, ctx.now() + 1);
    const Hour b = window.second;
    if (a >= b) continue;
    GpuCount g = std::numeric_limits<GpuCount>::max();
    for (Hour h = a; h < b; ++h) {
      auto it = position_.find(h);
      g = std::min(g, it == position_.end() ? 0 : it->second);
    }
    if (g <= 0) continue;
    const auto m = middle(ctx, a).value_or(*mid);
    OrderRequest ask;
    ask.side = Side::Sell;
    ask.cluster = *cluster_;
    ask.gpus = g;
    ask.start = a;
    ask.end = b;
    ask.limit = std::max(onTick(static_cast<double>(m) * (1.0 + half)), paid);
    ask.fill = FillStyle::Divisible;
    working_.insert(ctx.place(ask));
  }
}

void MarketMakerStrategy::onOwnFill(StrategyContext&, const Fill& f) {
  const GpuCount sign = f.side == Side::Buy ? 1 : -1;
  for (Hour h = f.start; h < f.end; ++h) position_[h] += sign * f.gpus;
  if (f.side == Side::Buy) {
    Price& paid = cost_[{f.start, f.end}];
    paid = std::max(paid, f.price);
  }
  if (f.leavesGpuHours == 0) working_.erase(f.order);
}

void MarketMakerStrategy::onOrderEvent(StrategyContext&, const Event& e) {
  if (const auto* c = std::get_if<OrderCancelled>(&e); c && c->leavesGpuHours == 0) working_.erase(c->order);
  if (const auto* r = std::get_if<OrderRejected>(&e)) working_.erase(r->order);
}

namespace {

MadeStrategy makeMarketMakerStrategy(const nlohmann::json& j) {
  StrategyParams p(j,
                   {"cluster", "gpus", "hours_ahead", "window_hours", "spread", "max_inventory_gpus", "requote_hours"});
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

}  // namespace

TESSERA_REGISTER_STRATEGY(
    "market-maker", "quote a bid around the book's middle on one cluster, offer back what it holds at a spread",
    R"({"cluster": "harbor-us-west-h100-b", "gpus": 8, "hours_ahead": 12, "window_hours": 4, "spread": 0.04, "max_inventory_gpus": 64})",
    makeMarketMakerStrategy);

}  // namespace tessera::backtest
