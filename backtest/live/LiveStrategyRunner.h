#pragma once
// Runs a backtest::Strategy, unchanged, against a live tessera-exchange through core/net's
// ExchangeClient: the same callbacks, the same StrategyContext actions. Library
// `tessera_backtest_live` (built when tessera_net exists).
//
// Threads: the client calls back on its io thread and timers fire on a timer thread; every
// strategy callback runs under one mutex, so a strategy never sees two callbacks at once.
// Ids: the strategy sees its own order ids (as in a replay); the runner maps them to the
// client order ids it sends and the exchange's order ids it gets back, and holds a cancel or
// amend of an order the exchange has not numbered yet until it has.
// Restarts: a client order id is derived from the decision (the account, the strategy, the
// exchange hour, the order, and how many equal orders this run decided in that hour), so a run
// stopped between sending an order and its answer and started again decides the same and names
// the same order, and the exchange trades it once (the copy is refused as
// duplicate_cl_ord_id). The strategy starts once it has the book and the account's contracts
// (onContracts), so it decides from what the account already holds.
#include "backtest/Strategy.h"
#include "core/net/ExchangeClient.h"

#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>

namespace tessera::backtest {

// What the strategy did in this session.
struct LiveSummary {
  std::int64_t ordersPlaced = 0;
  std::int64_t ordersRejected = 0;
  std::int64_t fills = 0;
  std::int64_t boughtGpuHours = 0;
  std::int64_t soldGpuHours = 0;
  Money spent = 0;
  Money received = 0;
};

class LiveStrategyRunner : private StrategyContext {
 public:
  LiveStrategyRunner(Strategy& strategy, net::ClientOptions options);
  ~LiveStrategyRunner() override;  // stops

  // Connects; the strategy's onStart runs once logged on with a book snapshot.
  void start();
  // Calls onFinish, stops the client and the timers; no callback runs after it returns.
  void stop();
  bool strategyStarted() const;
  // Strategy::setupError(), read under the runner's lock (onStart runs on the client's thread).
  std::optional<std::string> setupError() const;
  net::ConnectionState connection() const { return client_->state(); }
  LiveSummary summary() const;

 private:
  struct Local {
    Side side = Side::Buy;
    OrderId exchangeId = 0;
    std::vector<InputEvent> held;  // cancels/amends waiting for the exchange's id
  };

  // StrategyContext
  Hour now() const override;
  std::int64_t timeMicros() const override;
  AccountId account() const override { return 1; }
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

  void onOptionOrders(const std::vector<net::OptionWorkingOrder>& working);
  void onOptionEvent(const net::OptionEventView& e);
  void onBook(const std::vector<net::BookCell>& changed, bool snapshot);
  void onTrade(const net::Trade& t);
  void onOrder(const net::OrderUpdate& u);
  void onClock(Hour now);
  void onContracts(const std::vector<net::ContractStatus>& status);
  void startWhenReady();  // onStart once the book snapshot and the account's contracts are in
  void timerLoop();
  void sendHeld(Local& l);

  Strategy& strategy_;
  std::unique_ptr<net::ExchangeClient> client_;
  mutable std::recursive_mutex mutex_;  // recursive: a strategy's actions may run inside a callback
  bool started_ = false;
  bool haveBook_ = false, haveContracts_ = false, askedContracts_ = false;
  std::vector<Contract> positions_;  // the last positions reply, until its status arrives
  std::string accountName_;
  Hour decidedHour_ = 0;
  std::map<std::string, int> decidedThisHour_;  // orders decided in that hour, counted by decision
  bool stopping_ = false;                       // no strategy callbacks any more
  bool stopped_ = false;                        // stop() ran
  OrderId nextLocal_ = 1;
  std::unordered_map<OrderId, Local> locals_;           // strategy id -> state
  std::unordered_map<std::string, OrderId> byClOrdId_;  // client order id -> strategy id
  std::unordered_map<OrderId, OrderId> byExchangeId_;   // exchange id -> strategy id
  std::map<net::CellKey, std::vector<BookLevel>> book_;
  // Options: strategy ids by client order id, the exchange's ids as its option_orders replies
  // give them, cancels waiting for one, and the last chain of each class asked for.
  std::uint64_t nextOptionLocal_ = 1;
  std::map<std::string, std::uint64_t> optionByClOrdId_;
  std::map<std::uint64_t, std::uint64_t> optionExchangeId_;
  std::set<std::uint64_t> optionCancelsHeld_;
  std::map<std::uint64_t, indexoptions::OptionSeries> optionSeries_;  // strategy id -> its series
  // Positions whose close (settled, closed out, netted) has been told the strategy with the cash
  // it moved: a later notice of the same position moves none (as OptionReplay).
  std::set<std::uint64_t> optionClosedSeen_;
  std::map<indexoptions::OptionSeries, OptionQuote> optionChain_;
  mutable std::set<Accelerator> optionChainsAsked_;
  std::unordered_map<ClusterId, Price> lastPrice_;
  std::multimap<std::int64_t, int> timers_;
  std::condition_variable_any timerWake_;
  std::thread timerThread_;
  LiveSummary summary_;
};

}  // namespace tessera::backtest
