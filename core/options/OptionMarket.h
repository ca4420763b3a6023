#pragma once
// The market in options on the price index: one price-time order book per series (premium per
// GPU-hour), positions and their money on the exchange's ledger (OptionPositions), the index
// curve and volatility every reference value and scenario margin is computed from, and the
// averages of the delivery periods the positions settle on. Rules: docs/settlement.md, "Options".
//
// Deterministic and clock-free like the forward market: a pure function of submit/cancel/advance
// calls, so the exchange journals the orders and rebuilds this state by replaying them.
//
// Holds on cash while an order rests: a bid holds its premium x GPU-hours; an offer (writing)
// holds the series' scenario margin less the premium it would receive, per GPU-hour, at the time
// it was entered. At the match both holds are released and the position's money is posted.
// Trading in a series stops when its delivery period begins (resting orders are cancelled).
#include "core/options/OptionPositions.h"

#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace tessera::indexoptions {

struct OptionOrder {
  std::uint64_t id = 0;  // unique per market, assigned by the exchange
  AccountId account = 0;
  Side side = Side::Buy;  // buy: long the option; sell: write it
  OptionSeries series;
  std::int64_t gpuHours = 0;  // notional
  Price premium = 0;          // per GPU-hour
  bool operator==(const OptionOrder&) const = default;
};

enum class OptionRejectReason : std::uint8_t {
  InvalidOrder,       // quantity, premium or strike out of range, id reused
  SeriesNotListed,    // the period is not listed now (begun, too far out, or not a period start)
  NoIndex,            // no index of the class yet, so a written option cannot be margined
  InsufficientFunds,  // premium (bid) or margin (offer) beyond the spendable cash
  UnknownOrder,       // cancel of an order that is not working, or not the account's
};
std::string_view toString(OptionRejectReason r);

struct OptionAccepted {
  std::uint64_t order = 0;
  AccountId account = 0;
  Money held = 0;
};
struct OptionRejected {
  std::uint64_t order = 0;
  AccountId account = 0;
  OptionRejectReason reason = OptionRejectReason::InvalidOrder;
  std::string detail;
};
struct OptionTrade {
  std::uint64_t position = 0;
  std::uint64_t buyOrder = 0, sellOrder = 0;
  AccountId buyer = 0, writer = 0;
  bool buyerAggressor = false;
  OptionSeries series;
  std::int64_t gpuHours = 0;
  Price premium = 0;
  std::int64_t buyLeaves = 0, sellLeaves = 0;
};
struct OptionCancelled {
  std::uint64_t order = 0;
  AccountId account = 0;
  std::int64_t cancelledGpuHours = 0;
  std::string reason;  // "user", "period started", "funds", "self trade"
};
struct OptionSettlement {
  Accelerator accelerator = Accelerator::H100;
  DeliveryPeriod period;
  Price average = 0;
};
using OptionMarketEvent =
    std::variant<OptionAccepted, OptionRejected, OptionTrade, OptionCancelled, OptionNotice, OptionSettlement>;

struct OptionLevel {
  Price premium = 0;
  std::int64_t gpuHours = 0;
  int orders = 0;
  bool operator==(const OptionLevel&) const = default;
};

// What the exchange knows of one accelerator class's index at a mark (micro-dollars; 0 = none).
struct ClassIndex {
  Price nextDay = 0, nextWeek = 0, nextMonth = 0;
  std::vector<ForwardMid> forwardMids;
};

class OptionMarket {
 public:
  explicit OptionMarket(SettlementLedger& ledger) : positions_(ledger) {}

  // `spendable`: the account's cash free of every other hold of the exchange; what this
  // account's resting option orders hold is subtracted here.
  void submit(const OptionOrder& o, Hour now, Money spendable, std::vector<OptionMarketEvent>& out);
  void cancel(std::uint64_t order, AccountId account, std::vector<OptionMarketEvent>& out);
  // The clock reached `now` with these index values: records the hour's index (volatility and
  // period averages), cancels the orders of periods that have begun, re-margins the open
  // positions, settles the periods that have ended.
  void advance(Hour now, const std::map<Accelerator, ClassIndex>& index, std::vector<OptionMarketEvent>& out);

  Money held(AccountId a) const;
  std::vector<OptionLevel> depth(const OptionSeries& s, Side side, std::size_t maxLevels) const;
  std::vector<OptionOrder> workingOrders(AccountId a) const;
  std::optional<OptionOrder> working(std::uint64_t id) const;  // gpuHours = what is left
  std::vector<OptionSeries> books() const;                     // series with resting orders
  const OptionPositions& positions() const { return positions_; }
  Hour now() const { return now_; }
  // The curve of a class now (its volatility from the hourly index history), and a series'
  // reference value and writer's margin per GPU-hour; nothing before the class has an index.
  std::optional<IndexCurve> curve(Accelerator a) const;
  std::optional<SeriesValue> reference(const OptionSeries& s) const;
  std::optional<Price> marginPerGpuHour(const OptionSeries& s) const;
  KnownAverage known(const OptionSeries& s) const;
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);
  // Every part of the state written field by field (no struct padding), for the exchange's
  // state digest: equal markets give equal text.
  std::string stateText() const;

  static constexpr std::size_t kVolatilityHours = 720;  // the index history volatility is read from

 private:
  struct Resting {
    OptionOrder order;
    std::int64_t leaves = 0;
    Price holdPerGpuHour = 0;
  };
  struct Book {
    std::map<Price, std::deque<std::uint64_t>, std::greater<>> bids;
    std::map<Price, std::deque<std::uint64_t>> asks;
  };
  struct Average {
    Money indexSum = 0;  // index x hours over the period's hours so far
    std::int64_t hours = 0;
  };
  using PeriodKey = std::pair<Accelerator, DeliveryPeriod>;
  void setLeaves(Resting& r, std::int64_t leaves);
  void removeResting(std::uint64_t id);
  template <typename Levels>
  void matchAgainst(Levels& levels, Resting& in, bool buy, std::vector<OptionMarketEvent>& out);

  OptionPositions positions_;
  std::map<OptionSeries, Book> books_;
  std::unordered_map<std::uint64_t, Resting> resting_;
  std::unordered_map<AccountId, Money> held_;
  std::unordered_set<std::uint64_t> seen_;
  std::map<Accelerator, ClassIndex> index_;
  std::map<Accelerator, std::deque<Price>> history_;  // the next-day index at each mark
  std::map<PeriodKey, Average> averages_;
  Hour now_ = 0;
};

}  // namespace tessera::indexoptions
