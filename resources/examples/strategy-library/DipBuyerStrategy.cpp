// dip-buyer: a strategy in a shared library of its own, loaded by
// `tessera-backtest --strategy-lib libdip_buyer.so`. Every hour it looks `hours_ahead` ahead on
// one cluster and takes (immediate-or-cancel) up to `gpus` GPUs for one hour when the best ask
// is at most `max_price`, until it holds `budget_gpu_hours`.
#include "backtest/Strategy.h"
#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"

namespace {

using namespace tessera;
using namespace tessera::backtest;

struct DipBuyerParams {
  std::string cluster;
  GpuCount gpus = 8;
  Hour hoursAhead = 6;
  Price maxPrice = 0;
  std::int64_t budgetGpuHours = 0;
};

class DipBuyer final : public Strategy {
 public:
  explicit DipBuyer(DipBuyerParams p) : p_(std::move(p)) {}
  std::string name() const override { return "dip-buyer"; }
  bool wantsBookUpdates() const override { return false; }
  std::int64_t demandGpuHours() const override { return p_.budgetGpuHours; }

  void onStart(StrategyContext& ctx) override {
    auto c = requireCluster(ctx.clusters(), p_.cluster);
    if (auto* why = std::get_if<std::string>(&c)) return failSetup(*why);
    cluster_ = std::get<Cluster>(c).id;
  }

  void onClock(StrategyContext& ctx, Hour now) override {
    if (bought_ >= p_.budgetGpuHours) return;
    const Hour h = now + p_.hoursAhead;
    const auto asks = ctx.depth(cluster_, h, Side::Sell, 1);
    if (asks.empty() || asks.front().price > p_.maxPrice) return;
    OrderRequest o;
    o.side = Side::Buy;
    o.cluster = cluster_;
    o.gpus = std::min<GpuCount>(p_.gpus, asks.front().gpus);
    o.start = h;
    o.end = h + 1;
    o.limit = asks.front().price;
    o.tif = TimeInForce::IOC;
    ctx.place(o);
  }

  void onOwnFill(StrategyContext&, const Fill& f) override {
    bought_ += static_cast<std::int64_t>(f.gpus) * (f.end - f.start);
  }

 private:
  DipBuyerParams p_;
  ClusterId cluster_ = 0;
  std::int64_t bought_ = 0;
};

MadeStrategy makeDipBuyer(const nlohmann::json& j) {
  StrategyParams p(j, {"cluster", "gpus", "hours_ahead", "max_price", "budget_gpu_hours"});
  DipBuyerParams d;
  d.cluster = p.text("cluster", std::nullopt);
  d.gpus = static_cast<GpuCount>(p.integer("gpus", 8, 1, 1'000'000));
  d.hoursAhead = p.integer("hours_ahead", 6, 1, 24 * 31);
  d.maxPrice = p.price("max_price", std::nullopt);
  d.budgetGpuHours = p.integer("budget_gpu_hours", 512, 1, 1'000'000'000);
  if (!p.ok()) return p.errors();
  return std::make_unique<DipBuyer>(d);
}

}  // namespace

TESSERA_REGISTER_STRATEGY("dip-buyer", "take one hour of GPUs ahead whenever the best ask is at most max_price",
                          R"({"cluster": "harbor-us-west-h100-b", "gpus": 8, "hours_ahead": 6, "max_price": 2.3})",
                          makeDipBuyer);
