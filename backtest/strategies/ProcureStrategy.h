#pragma once
// Procurement as a strategy: every `every_hours` keeps `gpus` GPUs of a kind (a cluster, or
// accelerators, regions, minimum fabric) held in every hour of the next `horizon_hours`,
// buying what is missing at up to `max_price` and selling back what is over at no less than
// `sell_floor` (core/procure/Procurement, the same rounds as `tessera-cli scale`). Its holding
// is its own fills, less the hours providers' outages took (onContractLoss), which the next
// round buys again; live, it is the exchange's positions (onContracts), so a restarted run
// decides from what the account holds. At the end it reports how many hours it held the target and what its
// first horizon cost against buying that whole horizon upfront from the opening book.
#include "backtest/Strategy.h"
#include "core/procure/Procurement.h"

#include <set>

namespace tessera::backtest {

struct ProcureParams {
  std::string cluster;  // or constraints
  ClusterConstraints constraints;
  GpuCount gpus = 8;
  Hour horizonHours = 7 * 24;
  Hour leadHours = 0;
  Price maxPrice = 3'000'000;
  std::optional<Price> sellFloor;
  Hour everyHours = 1;
};

class ProcureStrategy final : public Strategy {
 public:
  explicit ProcureStrategy(ProcureParams p) : p_(std::move(p)) {}
  std::string name() const override { return "procure"; }
  void onStart(StrategyContext& ctx) override;
  void onClock(StrategyContext& ctx, Hour now) override;
  void onTimer(StrategyContext& ctx, int timerId) override;
  void onOwnFill(StrategyContext& ctx, const Fill& f) override;
  void onOrderEvent(StrategyContext& ctx, const Event& e) override;
  void onContractLoss(StrategyContext& ctx, ContractId contract, const std::vector<LostHours>& lost) override;
  void onContracts(StrategyContext& ctx, const std::vector<OwnContract>& contracts) override;
  void onFinish(StrategyContext& ctx) override;
  bool wantsBookUpdates() const override { return false; }
  std::int64_t demandGpuHours() const override { return demand_; }
  std::vector<std::string> reportLines() const override { return report_; }

 private:
  void round(StrategyContext& ctx);

  ProcureParams p_;
  ProcurementTarget target_;
  std::vector<HeldContract> held_;
  std::set<OrderId> inFlight_;  // this round's orders not answered yet
  std::optional<Hour> lastRound_;
  ContractId nextLocalId_ = ContractId{1} << 62;  // fills without a contract id (live)
  // The first horizon, its upfront price and what procurement paid for it.
  Hour firstFrom_ = 0, firstTo_ = 0;
  Money upfrontCost_ = 0;
  std::int64_t upfrontGpuHours = 0;
  Money paidFirst_ = 0;                             // buys minus sell-backs in the first horizon's hours
  std::int64_t hoursChecked_ = 0, hoursShort_ = 0;  // delivery hours seen, and those below target
  std::int64_t demand_ = 0;
  std::vector<std::string> report_;
};

}  // namespace tessera::backtest
