#include "backtest/strategies/ProcureStrategy.h"

#include "backtest/StrategyParams.h"
#include "backtest/StrategyRegistry.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <algorithm>

namespace tessera::backtest {

void ProcureStrategy::onStart(StrategyContext& ctx) {
  const std::vector<Cluster> clusters = ctx.clusters();
  target_.gpus = p_.gpus;
  target_.horizonHours = p_.horizonHours;
  target_.leadHours = p_.leadHours;
  target_.constraints = p_.constraints;
  target_.limit = p_.maxPrice;
  target_.sellFloor = p_.sellFloor;
  if (!p_.cluster.empty()) {
    auto c = requireCluster(clusters, p_.cluster);
    if (auto* why = std::get_if<std::string>(&c)) return failSetup(*why);
    target_.cluster = std::get<Cluster>(c).id;
  }
  if (std::none_of(clusters.begin(), clusters.end(), [&](const Cluster& c) { return target_.counts(c); }))
    return failSetup("no cluster of the market matches the procurement's cluster or constraints");

  // The first round a second after the start: the inputs that arrive with the start (a market's
  // opening listings) are in the book by then. The others follow the exchange clock.
  ctx.setTimer(ctx.timeMicros() + 1'000'000, 0);
}

void ProcureStrategy::onTimer(StrategyContext& ctx, int) {
  if (lastRound_) return;
  // The alternative: the whole first horizon bought now, cheapest asks first in every hour.
  const std::vector<Cluster> clusters = ctx.clusters();
  firstFrom_ = ctx.now() + p_.leadHours;
  firstTo_ = firstFrom_ + p_.horizonHours;
  for (Hour h = firstFrom_; h < firstTo_; ++h) {
    std::vector<BookLevel> asks;
    for (const Cluster& c : clusters)
      if (target_.counts(c))
        for (const BookLevel& l : ctx.depth(c.id, h, Side::Sell, 64)) asks.push_back(l);
    std::sort(asks.begin(), asks.end(), [](const BookLevel& a, const BookLevel& b) { return a.price < b.price; });
    GpuCount need = p_.gpus;
    for (const BookLevel& l : asks) {
      const GpuCount take = std::min(need, l.gpus);
      upfrontCost_ += take * l.price;
      upfrontGpuHours += take;
      need -= take;
      if (need == 0) break;
    }
  }
  round(ctx);
}

void ProcureStrategy::onClock(StrategyContext& ctx, Hour now) {
  if (setupError() || !lastRound_) return;  // before the first round (or before the start)
  // The hour just over: was the target held in it?
  if (now - 1 >= firstFrom_) {
    const std::vector<Cluster> clusters = ctx.clusters();
    const auto shape = heldShape(
        held_,
        [&](ClusterId id) {
          for (const Cluster& c : clusters)
            if (c.id == id) return target_.counts(c);
          return false;
        },
        now - 1, now);
    ++hoursChecked_;
    if (shape[0] < p_.gpus) ++hoursShort_;
  }
  if (now - *lastRound_ >= p_.everyHours) round(ctx);
}

void ProcureStrategy::round(StrategyContext& ctx) {
  // A round decides from the holding, so it waits for the last round's answers.
  if (!inFlight_.empty()) return;
  lastRound_ = ctx.now();
  const ProcurementRound r =
      planProcurement(target_, ctx.now(), ctx.clusters(), held_,
                      [&ctx](ClusterId c, Hour h, Side side) { return ctx.depth(c, h, side, 64); });
  for (const ProcurementOrder& o : r.orders) {
    OrderRequest req = o.request();
    if (req.sellBack && *req.sellBack >= (ContractId{1} << 62)) req.sellBack.reset();  // a fill without its id
    inFlight_.insert(ctx.place(req));
  }
}

void ProcureStrategy::onOwnFill(StrategyContext&, const Fill& f) {
  const ContractId id = f.contract != 0 ? f.contract : nextLocalId_++;
  held_.push_back({id, f.cluster, f.gpus, f.start, f.end, f.side == Side::Buy, 0});
  const Hour from = std::max(f.start, firstFrom_), to = std::min(f.end, firstTo_);
  if (from < to) paidFirst_ += (f.side == Side::Buy ? 1 : -1) * f.price * f.gpus * (to - from);
  if (f.leavesGpuHours == 0) inFlight_.erase(f.order);
}

void ProcureStrategy::onOrderEvent(StrategyContext&, const Event& e) {
  if (const auto* r = std::get_if<OrderRejected>(&e)) inFlight_.erase(r->order);
  if (const auto* c = std::get_if<OrderCancelled>(&e)) inFlight_.erase(c->order);
}

void ProcureStrategy::onContractLoss(StrategyContext&, ContractId contract, const std::vector<LostHours>& lost) {
  // Not held: the next round counts those hours as missing (heldShape) and buys them again.
  for (HeldContract& c : held_) {
    if (c.id != contract || !c.bought) continue;
    c.lost.clear();
    for (const LostHours& l : lost) c.lost.push_back({l.start, l.end, l.gpus});
  }
}

void ProcureStrategy::onContracts(StrategyContext&, const std::vector<OwnContract>& contracts) {
  // The exchange's list is the whole holding: it replaces what the fills made of it.
  held_.clear();
  for (const OwnContract& c : contracts) {
    const Contract& k = c.contract;
    held_.push_back({k.id, k.cluster, k.gpus, k.start, k.end, c.bought, k.replaces, {}});
    for (const LostHours& l : c.lost) held_.back().lost.push_back({l.start, l.end, l.gpus});
  }
}

void ProcureStrategy::onFinish(StrategyContext&) {
  if (setupError()) return;
  demand_ = static_cast<std::int64_t>(p_.gpus) * hoursChecked_;
  report_.push_back("procure: held " + withThousands(p_.gpus) + " GPUs in " +
                    withThousands(hoursChecked_ - hoursShort_) + " of " + withThousands(hoursChecked_) +
                    " delivery hours");
  const std::int64_t wanted = static_cast<std::int64_t>(p_.gpus) * p_.horizonHours;
  std::string line = "procure: the first " + withThousands(p_.horizonHours) + " h cost " + toDollars(paidFirst_) +
                     " net of sell-backs; buying all " + withThousands(wanted) +
                     " GPU-hours upfront at the opening book ";
  if (upfrontGpuHours < wanted)
    line += "was not possible (it offered " + withThousands(upfrontGpuHours) + " of them, for " +
            toDollars(upfrontCost_) + ")";
  else
    line += "would have cost " + toDollars(upfrontCost_) + " (" + (paidFirst_ <= upfrontCost_ ? "saved " : "paid ") +
            toDollars(paidFirst_ <= upfrontCost_ ? upfrontCost_ - paidFirst_ : paidFirst_ - upfrontCost_) +
            (paidFirst_ <= upfrontCost_ ? ")" : " more)");
  report_.push_back(line);
}

namespace {

MadeStrategy makeProcureStrategy(const nlohmann::json& j) {
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
  if (!s.cluster.empty() && !(s.constraints == ClusterConstraints{}))
    p.fail("cluster: give a cluster or constraints, not both");
  if (!p.ok()) return p.errors();
  return std::make_unique<ProcureStrategy>(s);
}

}  // namespace

TESSERA_REGISTER_STRATEGY(
    "procure",
    "keep N GPUs of a kind held in every hour of a rolling horizon: buy what is missing, sell back what is over",
    R"({"accelerators": ["H100"], "regions": ["us-east"], "gpus": 16, "horizon_hours": 72, "max_price": 2.6, "sell_floor": 2.0, "every_hours": 1})",
    makeProcureStrategy);

}  // namespace tessera::backtest
