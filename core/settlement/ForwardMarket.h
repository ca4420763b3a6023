#pragma once
// The market in cash-settled forwards on the next-day price index: one price-time order book per
// (accelerator class, delivery week). A match opens a CashForwardBook position between the two
// accounts; every exchange hour marks the open positions to the index (margin calls, close-outs);
// when a week has been delivered the positions settle against the mean of the hourly index over
// that week. Rules: docs/settlement.md, "Forward market".
//
// Deterministic and clock-free like the matching engine: a pure function of submit/cancel/advance
// calls, so the exchange journals the orders and rebuilds this state by replaying them.
#include "core/domain/Cluster.h"
#include "core/settlement/CashForward.h"
#include "core/settlement/PriceIndex.h"

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>
#include <vector>

namespace tessera {

class SnapshotWriter;
class SnapshotReader;

// Weeks run Monday 00:00 UTC to the next Monday; hour 96 is 1970-01-05T00:00Z, a Monday.
inline constexpr Hour kHoursPerWeek = 168;
inline constexpr Hour kFirstMonday = 96;
inline bool isWeekStart(Hour h) { return (h - kFirstMonday) % kHoursPerWeek == 0; }
Hour nextWeekStart(Hour now);  // the first week start strictly after `now`

struct ForwardOrder {
  std::uint64_t id = 0;  // unique per market, assigned by the exchange
  AccountId account = 0;
  Side side = Side::Buy;  // buy: long the index
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  std::int64_t gpuHours = 0;  // notional quantity
  Price price = 0;            // index level per GPU-hour
  bool operator==(const ForwardOrder&) const = default;
};

enum class ForwardRejectReason : std::uint8_t {
  InvalidOrder,        // quantity or price out of range, id reused
  WeekNotTradable,     // not a week start, or the week has begun, or more than a year ahead
  InsufficientMargin,  // the initial margin of the order is more than the spendable cash
  UnknownOrder,        // cancel of an order that is not working, or not the account's
};
std::string_view toString(ForwardRejectReason r);

struct ForwardAccepted {
  std::uint64_t order = 0;
  AccountId account = 0;
  Money marginHeld = 0;
};
struct ForwardRejected {
  std::uint64_t order = 0;
  AccountId account = 0;
  ForwardRejectReason reason = ForwardRejectReason::InvalidOrder;
  std::string detail;
};
// Both sides of a match; `position` is the CashForwardBook position it opened.
struct ForwardTrade {
  std::uint64_t position = 0;
  std::uint64_t buyOrder = 0, sellOrder = 0;
  AccountId buyer = 0, seller = 0;
  bool buyerAggressor = false;
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  std::int64_t gpuHours = 0;
  Price price = 0;
  std::int64_t buyLeaves = 0, sellLeaves = 0;  // what is still working on each order
};
struct ForwardCancelled {
  std::uint64_t order = 0;
  AccountId account = 0;
  std::int64_t cancelledGpuHours = 0;
  std::string reason;  // "user", "week started", "margin" (a resting order its owner can no longer margin)
};
// A margin call, close-out or settlement of a position, for both of its accounts.
struct ForwardNotice {
  std::uint64_t position = 0;
  AccountId buyer = 0, seller = 0;
  std::string what;
};
// The level the forwards of one week are marked and settled at.
struct ForwardMark {
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  Price index = 0;
  bool final = false;  // the settlement price (mean of the week's hourly index)
};

using ForwardMarketEvent =
    std::variant<ForwardAccepted, ForwardRejected, ForwardTrade, ForwardCancelled, ForwardNotice, ForwardMark>;

// One price level of a forward book, best first.
struct ForwardLevel {
  Price price = 0;
  std::int64_t gpuHours = 0;
  int orders = 0;
  bool operator==(const ForwardLevel&) const = default;
};

class ForwardMarket {
 public:
  explicit ForwardMarket(SettlementLedger& ledger, int initialMarginPpm = kDefaultInitialMarginPpm);

  // `spendable` is the account's cash that is free of every other hold (the exchange's bid
  // reservations); margin held by this account's resting forward orders is subtracted here.
  void submit(const ForwardOrder& o, Hour now, Money spendable, std::vector<ForwardMarketEvent>& out);
  void cancel(std::uint64_t order, AccountId account, std::vector<ForwardMarketEvent>& out);
  // The clock reached `now`; `nextDay` holds the current next-day index per accelerator class.
  // Cancels the resting orders of weeks that have begun, marks open positions, settles weeks
  // that have ended.
  void advance(Hour now, const std::map<Accelerator, Price>& nextDay, std::vector<ForwardMarketEvent>& out);

  Money marginHeld(AccountId a) const;  // by resting orders, not yet in the Margin book
  std::vector<ForwardLevel> depth(Accelerator a, Hour weekStart, Side side, std::size_t maxLevels) const;
  std::vector<ForwardOrder> workingOrders(AccountId a) const;
  // A working order with what is left of it in gpuHours, or nothing.
  std::optional<ForwardOrder> working(std::uint64_t id) const;
  // The (accelerator, week) books that have resting orders, ascending.
  std::vector<std::pair<Accelerator, Hour>> books() const;
  std::vector<ForwardPosition> positionsOf(AccountId a) const;
  const CashForwardBook& positions() const { return positions_; }
  // The snapshot form (core/engine/SnapshotCodec.h); load() into a fresh one.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  struct Resting {
    ForwardOrder order;
    std::int64_t leaves = 0;
  };
  struct Key {
    Accelerator accelerator;
    Hour weekStart;
    auto operator<=>(const Key&) const = default;
  };
  struct Book {
    // Best first: bids by price descending, asks ascending; each level in time order.
    std::map<Price, std::deque<std::uint64_t>, std::greater<>> bids;
    std::map<Price, std::deque<std::uint64_t>> asks;
  };
  struct Week {
    Money indexSum = 0;  // over the delivery week's hours so far
    std::int64_t hours = 0;
    Price last = 0;
  };
  Money marginFor(const ForwardOrder& o, std::int64_t gpuHours) const;
  void setLeaves(Resting& r, std::int64_t leaves);
  void removeResting(std::uint64_t id);
  template <typename Levels>
  void matchAgainst(Levels& levels, Resting& in, bool buy, std::vector<ForwardMarketEvent>& out);

  CashForwardBook positions_;
  std::map<Key, Book> books_;
  std::unordered_map<std::uint64_t, Resting> resting_;
  std::unordered_map<AccountId, Money> held_;
  std::unordered_set<std::uint64_t> seen_;  // every order id ever submitted
  std::map<Accelerator, Price> lastIndex_;
  std::map<Key, Week> weeks_;
  Hour now_ = 0;
};

}  // namespace tessera
