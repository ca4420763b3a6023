// `option-buyer`: buys an option on the price index for a compute budget, e.g. a call that
// caps what the next month's GPU-hours cost: `gpu_hours` of the `kind` struck at `strike` on the
// `period` (`month`, `quarter`, `year`) that is `periods_ahead` listed periods of that kind out
// (0: the first), paying at most `max_premium` per GPU-hour. Each hour until it holds them it
// takes the best ask if it is within the limit; what it pays and what the option pays at
// settlement are the report's option figures (docs/backtest.md, "Results").
#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"

namespace tessera::backtest {
namespace {

using namespace tessera::indexoptions;

struct OptionBuyerParams {
  Accelerator accelerator = Accelerator::H100;
  OptionKind kind = OptionKind::Call;
  PeriodKind period = PeriodKind::Month;
  int periodsAhead = 0;
  Price strike = 0;
  std::int64_t gpuHours = 0;
  Price maxPremium = 0;
};

class OptionBuyerStrategy final : public Strategy {
 public:
  explicit OptionBuyerStrategy(OptionBuyerParams p) : p_(p) {}
  std::string name() const override { return "option-buyer"; }
  bool wantsBookUpdates() const override { return false; }

  void onClock(StrategyContext& ctx, Hour now) override {
    if (working_ || bought_ >= p_.gpuHours) return;
    if (!series_) {
      int seen = 0;
      for (const DeliveryPeriod& d : listedPeriods(now))
        if (d.kind == p_.period && seen++ == p_.periodsAhead)
          series_ = OptionSeries{p_.accelerator, p_.kind, d.kind, d.start, p_.strike};
      if (!series_) return;
    }
    const OptionQuote q = ctx.optionQuote(*series_);
    if (!q.ask || *q.ask > p_.maxPremium) return;
    working_ = ctx.placeOption({Side::Buy, *series_, p_.gpuHours - bought_, *q.ask});
  }
  void onOptionEvent(StrategyContext& ctx, const OptionUpdate& u) override {
    if (u.kind == OptionUpdate::Kind::Filled && u.order == working_) bought_ += u.gpuHours;
    // Whatever did not fill at once is not left resting: the next hour asks again.
    if (u.kind == OptionUpdate::Kind::Accepted && u.order == working_) ctx.cancelOption(working_);
    if ((u.kind == OptionUpdate::Kind::Cancelled || u.kind == OptionUpdate::Kind::Rejected) && u.order == working_)
      working_ = 0;
    if (u.kind == OptionUpdate::Kind::Filled && u.order == working_ && bought_ >= p_.gpuHours) working_ = 0;
  }
  std::vector<std::string> reportLines() const override {
    if (!series_) return {"option-buyer: the period asked for was never listed"};
    return {"option-buyer: bought " + std::to_string(bought_) + " of " + std::to_string(p_.gpuHours) +
            " GPU-hours of " + seriesName(*series_)};
  }

 private:
  OptionBuyerParams p_;
  std::optional<OptionSeries> series_;
  std::uint64_t working_ = 0;
  std::int64_t bought_ = 0;
};

MadeStrategy makeOptionBuyer(const nlohmann::json& j) {
  StrategyParams p(j, {"accelerator", "kind", "period", "periods_ahead", "strike", "gpu_hours", "max_premium"});
  OptionBuyerParams o;
  const std::string acc = p.text("accelerator", std::string("H100"));
  if (auto a = parseAccelerator(acc))
    o.accelerator = *a;
  else
    p.fail("accelerator: unknown accelerator class '" + acc + "'");
  const std::string kind = p.text("kind", std::string("call"));
  if (auto k = parseOptionKind(kind))
    o.kind = *k;
  else
    p.fail("kind: must be call or put");
  const std::string period = p.text("period", std::string("month"));
  if (auto k = parsePeriodKind(period))
    o.period = *k;
  else
    p.fail("period: must be month, quarter or year");
  o.periodsAhead = static_cast<int>(p.integer("periods_ahead", 0, 0, 11));
  o.strike = p.price("strike", std::nullopt) / kStrikeTick * kStrikeTick;
  o.gpuHours = p.integer("gpu_hours", std::nullopt, 1, 1'000'000'000);
  o.maxPremium = p.price("max_premium", std::nullopt);
  if (!p.ok()) return p.errors();
  return std::make_unique<OptionBuyerStrategy>(o);
}

}  // namespace

TESSERA_REGISTER_STRATEGY(
    "option-buyer", "buys an option on the price index (e.g. a call capping next month's price) within a premium limit",
    R"({"accelerator": "H100", "kind": "call", "period": "month", "strike": 2.6, "gpu_hours": 500, "max_premium": 0.5})",
    makeOptionBuyer);

}  // namespace tessera::backtest
