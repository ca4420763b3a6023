#pragma once
// The strategy API. A Strategy reacts to market callbacks and acts through a StrategyContext;
// it never sees where the market comes from, so the same class runs in a replay
// (ReplayContext, backtest/Replay.h) and against the live exchange (an adapter over
// core/net's ExchangeClient implements StrategyContext the same way).
#include "core/engine/Events.h"
#include "core/engine/Matcher.h"
#include "core/options/OptionSeries.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::backtest {

// Divisible orders changed in the cells [start, end) of one side of one cluster's book.
struct BookChange {
  ClusterId cluster = 0;
  Side side = Side::Buy;
  Hour start = 0;
  Hour end = 0;
};

// Hours of a contract the strategy bought that a provider's outage took and nothing replaced
// (the exchange's positions call them "lost"), or that the provider of interruptible capacity
// reclaimed ("reclaimed"): `gpus` missing in every hour of [start, end).
struct LostHours {
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  bool operator==(const LostHours&) const = default;
};

// One of the strategy's account's contracts as the exchange lists it (live: its positions).
struct OwnContract {
  Contract contract;            // the account is its buyer or seller (StrategyContext::account()), the other party 0
  bool bought = true;           // false: the account sold it (a sell-back)
  std::vector<LostHours> lost;  // bought: hours an outage took and nothing replaced
  std::vector<LostHours> reclaimed;  // interruptible: hours its provider took back (refunded)
};

// An order on an option on the price index (core/options, docs/settlement.md "Options"): buy
// (long) or sell (write) `gpuHours` of notional of one series at a premium limit per GPU-hour.
struct OptionOrderRequest {
  Side side = Side::Buy;
  indexoptions::OptionSeries series;
  std::int64_t gpuHours = 0;
  Price premium = 0;
};

// The market of one option series as the strategy sees it: best bid and ask premiums and the
// exchange's reference value, per GPU-hour (none: no order on that side, no index yet).
struct OptionQuote {
  std::optional<Price> bid, ask, value;
};

// What the exchange said about one of the strategy's option orders or positions.
struct OptionUpdate {
  enum class Kind : std::uint8_t {
    Accepted,
    Rejected,   // text: why
    Filled,     // a trade opened a position: gpuHours at premium
    Cancelled,  // gpuHours cancelled; text: "user", "period started", "funds", "self trade"
    Notice,     // a position was margin-called, closed out or settled; amount: the cash it moved
                // for this account (positive: received), text: the exchange's line
  };
  Kind kind = Kind::Accepted;
  std::uint64_t order = 0;     // the id placeOption returned (0 for a notice)
  std::uint64_t position = 0;  // Filled, Notice
  bool isLong = true;          // Filled, Notice: the account bought (not wrote) the option
  indexoptions::OptionSeries series;
  std::int64_t gpuHours = 0;
  Price premium = 0;
  Money amount = 0;
  std::string text;
};

class StrategyContext {
 public:
  virtual ~StrategyContext() = default;

  virtual Hour now() const = 0;                 // the exchange clock
  virtual std::int64_t timeMicros() const = 0;  // the current time, microseconds since the epoch
  virtual AccountId account() const = 0;        // the account the strategy trades as
  virtual std::vector<Cluster> clusters() const = 0;
  virtual std::vector<BookLevel> depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const = 0;
  virtual std::optional<Price> lastTradePrice(ClusterId cluster) const = 0;

  // Sends an order; the context fills in the id (unless set) and the account, and returns the
  // id. The answer (accepted, rejected, fills) arrives later through the callbacks.
  virtual OrderId place(OrderRequest order) = 0;
  virtual void cancel(OrderId id) = 0;
  virtual void amend(OrderId id, std::optional<Price> limit, std::optional<GpuCount> gpus) = 0;
  // Options on the price index: the context sets the id (unless set) and returns it; the
  // answers arrive through Strategy::onOptionEvent.
  virtual std::uint64_t placeOption(OptionOrderRequest order) = 0;
  virtual void cancelOption(std::uint64_t id) = 0;
  virtual OptionQuote optionQuote(const indexoptions::OptionSeries& series) const = 0;
  // onTimer(timerId) is called once the time reaches `atMicros`.
  virtual void setTimer(std::int64_t atMicros, int timerId) = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;

  virtual void onStart(StrategyContext&) {}
  virtual void onClock(StrategyContext&, Hour /*now*/) {}
  virtual void onBookUpdate(StrategyContext&, const BookChange&) {}
  // Every trade in the market, as the public tape gives it: trade id, cluster, GPUs, window and
  // price; no parties, orders or contract id (live and in replay alike).
  virtual void onTrade(StrategyContext&, const Contract&) {}
  virtual void onOwnFill(StrategyContext&, const Fill&) {}  // this strategy's side of a trade
  // This strategy's OrderAccepted, OrderRejected, OrderCancelled and OrderAmended.
  virtual void onOrderEvent(StrategyContext&, const Event&) {}
  virtual void onTimer(StrategyContext&, int /*timerId*/) {}
  // This strategy's option orders and positions (StrategyContext::placeOption).
  virtual void onOptionEvent(StrategyContext&, const OptionUpdate&) {}
  // A provider's outage took GPUs of `contract`, which this strategy bought: `lost` is all of
  // that contract's lost hours so far (it replaces what an earlier call said).
  virtual void onContractLoss(StrategyContext&, ContractId /*contract*/, const std::vector<LostHours>& /*lost*/) {}
  // The provider of interruptible capacity took back GPUs of `contract`, which this strategy
  // bought, with the cluster's notice, and refunded them at the contract's price: `reclaimed`
  // is all of that contract's reclaimed hours so far (it replaces what an earlier call said).
  // The work a job loses to it (since its last checkpoint) is the strategy's to count. Live, the
  // same hours arrive in onContracts (OwnContract::reclaimed) after the settlement notice.
  virtual void onContractReclaim(StrategyContext&, ContractId /*contract*/,
                                 const std::vector<LostHours>& /*reclaimed*/) {}
  // Live only: every contract the account holds at the exchange, from this session and earlier
  // ones, once after logon (before onStart) and again after each settlement notice (an outage,
  // a delivery report, a replacement). A strategy that keeps a holding takes it from here, so a
  // run started again decides from what the account holds, not from nothing. A replay starts
  // with an empty account and never calls it.
  virtual void onContracts(StrategyContext&, const std::vector<OwnContract>& /*contracts*/) {}
  virtual void onFinish(StrategyContext&) {}

  // False: the strategy ignores onBookUpdate, and the replay skips working out which cells
  // each input touched (a measurable share of a fast replay).
  virtual bool wantsBookUpdates() const { return true; }

  // GPU-hours the strategy set out to buy for jobs; 0 for pure traders. Results report the
  // part of it that was not bought as unfilled demand.
  virtual std::int64_t demandGpuHours() const { return 0; }

  // Lines of its own for the report (after onFinish): what only this strategy can say about
  // its run, e.g. procure's cost against buying its horizon upfront.
  virtual std::vector<std::string> reportLines() const { return {}; }

  // Why the strategy cannot run on this market (its parameters name a cluster the market does
  // not have, ...), found in onStart; the replay and the live runner stop and report it
  // instead of a result.
  const std::optional<std::string>& setupError() const { return setupError_; }

 protected:
  void failSetup(std::string why) { setupError_ = std::move(why); }

 private:
  std::optional<std::string> setupError_;
};

}  // namespace tessera::backtest
