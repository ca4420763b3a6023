#pragma once
// Replays a market history through a fresh local matching engine with one strategy trading in
// it. Deterministic: the same history, strategy and settings give the same events.
//
// Latency (Latency.h): an action the strategy takes at time t reaches the engine at t + an
// order-entry latency, after every history input timed at or before that instant (ties go to
// the history), so the strategy never acts on information earlier than it could have. The
// engine's answers about the strategy's own orders (onOrderEvent, onOwnFill) reach it an
// acknowledgement latency after the engine produced them, and the market data (onTrade,
// onBookUpdate, onClock) a market-data latency after. The metrics are the exchange's truth, at
// engine time. A delayed callback's queries (depth, lastTradePrice) see the book at delivery. Queue position: strategy
// orders enter the same engine as the history's, so they wait behind orders resting before
// them, exactly as the engine's price-time priority rules.
#include "backtest/BacktestResult.h"
#include "backtest/Latency.h"
#include "backtest/OptionReplay.h"
#include "backtest/Strategy.h"
#include "core/domain/AccountDirectory.h"
#include "core/settlement/PriceIndex.h"
#include "core/store/HistoryRecord.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <unordered_map>

namespace tessera::backtest {

struct ReplayConfig {
  LatencyModel latency;
  int feePpm = 0;  // the exchange's fee on sales, parts per million (fee_ppm)
  // The strategy's starting cash. Set, its bids (and amends that raise them) are refused with
  // insufficient_cash when limit x GPUs x hours exceeds cash less what its working bids hold,
  // as the exchange's risk check refuses them. Unset: no cash limit.
  std::optional<Money> startingCash;
  std::string accountName;  // default: "strategy:<name>"
  // The dealer the strategy's option orders meet (account "options:dealer", OptionReplay.h).
  OptionDealerSettings optionDealer;
  bool hashEvents = true;                     // compute BacktestResult::outputHash
  const std::atomic<bool>* cancel = nullptr;  // set to stop early; the result says cancelled
  // Sees every input the engine applies and the events it produced (logs, event files).
  std::function<void(std::int64_t timeMicros, const InputEvent&, bool fromStrategy, const std::vector<Event>&)> onApply;
};

// Strategy order ids start here, far above any id a history uses.
inline constexpr OrderId kFirstStrategyOrderId = (OrderId{1} << 62) + 1;

class Replay : private StrategyContext {
 public:
  // `accounts` names the history's accounts; the replay works on its own copy.
  Replay(Strategy& strategy, const AccountDirectory& accounts, ReplayConfig config);
  ~Replay() override;

  // Feeds the next history input (in seq order). Returns false once cancelled.
  bool feed(const store::RecordedInput& in);
  // Applies a provider's outage recorded after the last input fed, as the exchange applies the
  // provider's outage report (core/settlement/OutageRule): the share of the strategy's contracts
  // reaches it through onContractLoss, an acknowledgement latency later.
  void outage(const store::RecordedOutage& o);
  // Applies a provider's reclaim of interruptible capacity recorded after the last input fed
  // (core/settlement/ReclaimRule: the recorded contract when the replay has it, else the
  // provider's contracts on the cluster, lowest id first): the hours leave the buyer's holding
  // (the engine's capacity_reclaim), the strategy's share is refunded at the contract's price
  // and reaches it through onContractReclaim, an acknowledgement latency later. The history's
  // own capacity_reclaim inputs are the recorded market's resolution of these and are not fed.
  void reclaim(const store::RecordedReclaim& r);
  // Delivers the strategy's last actions, calls onFinish and returns the result.
  BacktestResult finish();

  const AccountDirectory& accounts() const { return accounts_; }
  std::int64_t inputsFed() const { return result_.inputs; }
  // The option market the strategy's option orders meet, with its ledger.
  const OptionReplay& options() const { return *options_; }

 private:
  enum class PendingKind { Action, Timer, Callback };
  struct Pending {
    std::int64_t at;
    std::uint64_t order;  // FIFO among equal times
    PendingKind kind;
    int timerId;
    InputEvent action;
    std::function<void()> callback;  // a delayed strategy callback
    bool operator>(const Pending& o) const { return at != o.at ? at > o.at : order > o.order; }
  };

  // StrategyContext
  Hour now() const override;
  std::int64_t timeMicros() const override { return time_; }
  AccountId account() const override { return account_; }
  std::vector<Cluster> clusters() const override;
  std::vector<BookLevel> depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const override;
  std::optional<Price> lastTradePrice(ClusterId cluster) const override;
  OrderId place(OrderRequest order) override;
  void cancel(OrderId id) override;
  void amend(OrderId id, std::optional<Price> limit, std::optional<GpuCount> gpus) override;
  void setTimer(std::int64_t atMicros, int timerId) override;
  std::uint64_t placeOption(OptionOrderRequest order) override;
  void cancelOption(std::uint64_t id) override;
  OptionQuote optionQuote(const indexoptions::OptionSeries& series) const override;

  // Options: the action reaches the option market an order-entry latency later; the answers
  // reach the strategy an acknowledgement latency after the market gave them.
  void sendOption(std::function<void(std::vector<OptionUpdate>&)> action);
  void deliverOptionUpdates(const std::vector<OptionUpdate>& updates);
  void advanceOptions(Hour now);
  void deliverUpTo(std::int64_t t, bool inclusive);
  void send(InputEvent action);
  // Calls the strategy now when `channel`'s latency is zero, else queues the call for when the
  // message arrives (`arrival`, drawn once per engine input and channel).
  void notify(std::optional<std::int64_t>& arrival, LatencyChannel& channel, bool zero, std::function<void()> call);
  void apply(const InputEvent& in, bool fromStrategy);
  void dispatch(const InputEvent& in, bool fromStrategy);
  void sample(Hour hour);
  void hash(const Event& e);
  Price weightedMarketVwap() const;
  Money reservedByWorkingBids() const;
  // The rejection the exchange's risk check would give this strategy action, if any.
  std::optional<OrderRejected> cashCheck(const InputEvent& action) const;

  Strategy& strategy_;
  AccountDirectory accounts_;
  ReplayConfig config_;
  std::unique_ptr<Matcher> engine_;
  AccountId account_ = 0;
  std::int64_t time_ = 0;
  bool started_ = false;
  bool wantsBook_ = true;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> pending_;
  std::uint64_t pendingOrder_ = 0;
  LatencyChannel orderChannel_, ackChannel_, marketDataChannel_;
  OrderId nextOrderId_ = kFirstStrategyOrderId;
  std::vector<Event> out_;
  std::vector<std::uint64_t> accountHash_;  // per account id: hash of its name (0: not yet)
  BacktestResult result_;
  // GPUs of the strategy's bought contracts that outages took, per contract and hour.
  std::unordered_map<ContractId, std::map<Hour, GpuCount>> lost_;
  // GPUs of interruptible contracts their providers reclaimed, per contract and hour (every
  // buyer's: a later reclaim takes only what is left).
  std::unordered_map<ContractId, std::map<Hour, GpuCount>> reclaimed_;

  // Metrics state.
  std::unordered_map<ClusterId, Price> lastPrice_;
  struct Volume {
    Money notional = 0;
    std::int64_t gpuHours = 0;
  };
  std::unordered_map<ClusterId, Volume> marketVolume_;           // whole run
  std::unordered_map<ClusterId, Volume> marketHourVolume_;       // since the last clock tick
  std::unordered_map<ClusterId, std::int64_t> boughtOn_;         // strategy buy GPU-hours per cluster
  std::set<ClusterId> focus_;                                    // clusters the strategy ordered on
  std::map<std::pair<Hour, ClusterId>, std::int64_t> position_;  // net GPUs held per (hour, cluster)
  std::unordered_map<OrderId, std::int64_t> placedGpuHours_;
  struct OrderContext {
    Price limit = 0;
    Price midAtOrder = 0;
  };
  std::unordered_map<OrderId, OrderContext> orderContext_;
  std::unordered_map<OrderId, std::int64_t> workingBuyGpuHours_;  // open buy orders' leaves
  std::unordered_map<AccountId, int> counterparties_;             // numbered as first met
  std::unordered_map<ClusterId, Accelerator> accelerator_;
  PriceIndex index_;
  std::unordered_map<OrderId, std::int64_t> acceptedGpuHours_;
  std::int64_t acceptedTotalGpuHours_ = 0;
  Money cash_ = 0;  // engine trades, fees and the option market's cash flow
  std::unique_ptr<OptionReplay> options_;
  std::uint64_t nextOptionId_ = kFirstStrategyOrderId;
  mutable bool optionsWanted_ = false;  // the strategy asked for an option quote
  Money peakEquity_ = 0;
  bool anyEquity_ = false;
};

}  // namespace tessera::backtest
