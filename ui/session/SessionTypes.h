#pragma once
// Value types the trading session hands to the widgets. They are copied across the
// backend's worker thread and the GUI thread, so they own their data.
#include "core/engine/Events.h"
#include "core/engine/Matcher.h"
#include "core/net/CallReport.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/PriceIndex.h"
#include "ui/session/HeldPositions.h"

#include <QMetaType>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

namespace tessera::ui {

// One delivery hour of the watched book: best levels first (cheapest ask, dearest bid).
struct BookCell {
  std::vector<BookLevel> asks;
  std::vector<BookLevel> bids;
};

// The book of the watched cluster (or cluster group, levels merged by price) over an hour range.
struct BookSnapshot {
  std::vector<ClusterId> clusters;
  Hour firstHour = 0;  // cells[i] is delivery hour firstHour + i
  std::vector<BookCell> cells;
  std::vector<OrderView> allOrNoneBids;
  Hour now = 0;  // exchange clock when taken
  // steady_clock time (ns) of the oldest book change this snapshot is the first to show:
  // what update-to-screen latency is measured from.
  std::int64_t changedAtNs = 0;

  const BookCell* cell(Hour h) const {
    if (h < firstHour || h >= firstHour + static_cast<Hour>(cells.size())) return nullptr;
    return &cells[static_cast<std::size_t>(h - firstHour)];
  }
};
using BookSnapshotPtr = std::shared_ptr<const BookSnapshot>;

struct TradePrint {
  TradeId trade = 0;
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  Price price = 0;
  Hour exchangeTime = 0;  // the exchange clock when it traded
  // The incoming order's side; none in a call's trade, where every order waited for the call.
  std::optional<Side> aggressor = Side::Buy;
  bool mine = false;
  std::uint64_t call = 0;  // the call that made it (0: continuous trading)
};

// Best prices of a cluster over the next day, for the cluster list's price column and filter.
struct ClusterQuote {
  ClusterId cluster = 0;
  std::optional<Price> bestAsk;
  std::optional<Price> bestBid;
  std::optional<Price> lastTrade;
};

// A bought contract as held after what was sold of it (its shape), and valued at the current
// book: what the remaining held hours would sell for now (HeldPositions.h).
using ContractMark = HeldContract;

struct AccountSummary {
  QString name;
  AccountId id = 0;
  Money balance = 0;   // cash after every fill so far
  Money reserved = 0;  // cash committed by working buy orders at their limits
  // Only a backend that settles contracts knows these (settlementKnown).
  bool settlementKnown = false;
  Money escrow = 0;   // paid for contracted GPU-hours not yet delivered
  Money credits = 0;  // uptime credits received, cumulative
  // What buyers of contracts this account sold still hold in escrow for it: paid to the account
  // hour by hour as the hours are delivered (settlementKnown only).
  Money proceedsDue = 0;
  // Held contracts after their sales (HeldPositions): remaining held hours at the marks and at
  // cost, the P&L realised by every sale, and what the escrow still pays for hours sold on.
  Money markValue = 0;
  Money remainingCost = 0;
  Money realisedPnl = 0;
  Money soldOnCost = 0;
  Money unrealizedPnl() const { return markValue - remainingCost; }
};

enum class ConnectionState { Connecting, Connected, Disconnected };

// One step of a contract's settlement as the exchange reported it (to buyer and seller).
struct SettlementNote {
  ContractId contract = 0;
  std::optional<ContractState> state;  // none: a state name this terminal does not know
  QString stateName;                   // as sent, e.g. "partly_delivered"
  QString what;                        // what happened, for a person
  Hour exchangeHour = 0;
};

// Where one of the account's contracts stands in settlement.
struct ContractSettlementStatus {
  ContractId contract = 0;
  std::optional<ContractState> state;
  QString stateName;
  std::int64_t deliveredGpuHours = 0;
  Money escrow = 0;
  ContractId replaces = 0;  // a replacement contract: the failed contract it makes good
};

// An order of the account that no longer works, for the blotter's order history.
enum class FinishedState { Filled, Cancelled, Expired, Rejected };
struct FinishedOrder {
  OrderId order = 0;     // the exchange's number (what the blotter shows); 0 if rejected
  OrderRequest request;  // as sent (the last amend is known only while it worked)
  FinishedState state = FinishedState::Filled;
  QString why;             // the exchange's reason code (cancel, reject), may be empty
  std::optional<Hour> at;  // exchange hour it finished; none: before this terminal started
  std::int64_t filledGpuHours = 0;
};

// Received index values, one per (class, tenor, hour).
using IndexKey = std::tuple<Accelerator, Tenor, Hour>;
using IndexHistory = std::map<IndexKey, IndexPoint>;  // IndexPoint: core/settlement/PriceIndex.h

// Where the index a session shows comes from.
enum class IndexSource { None, Exchange, ComputedLocally };

// The market's call mode (docs/protocol.md, "Call mode"): which clusters trade in periodic
// calls and when the next is, what the next call would clear now (indicative), and the last
// call. A continuous market has no cluster in the schedule.
struct CallAuctionView {
  net::CallSchedule schedule;
  std::optional<net::CallReport> indicative;
  std::optional<net::CallReport> last;
  bool callMode(ClusterId c) const { return schedule.callMode(c); }
  bool any() const { return schedule.allClusters || !schedule.clusters.empty(); }
};

}  // namespace tessera::ui

Q_DECLARE_METATYPE(tessera::ui::BookSnapshotPtr)
Q_DECLARE_METATYPE(tessera::ui::TradePrint)
Q_DECLARE_METATYPE(tessera::ui::AccountSummary)
Q_DECLARE_METATYPE(tessera::ui::ConnectionState)
Q_DECLARE_METATYPE(tessera::OrderRequest)
Q_DECLARE_METATYPE(std::vector<tessera::Cluster>)
Q_DECLARE_METATYPE(std::vector<tessera::OrderView>)
Q_DECLARE_METATYPE(std::vector<tessera::Contract>)
Q_DECLARE_METATYPE(std::vector<tessera::Fill>)
Q_DECLARE_METATYPE(std::vector<tessera::ui::TradePrint>)
Q_DECLARE_METATYPE(std::vector<tessera::ui::ClusterQuote>)
Q_DECLARE_METATYPE(std::vector<tessera::ui::ContractMark>)
Q_DECLARE_METATYPE(std::vector<tessera::ClusterId>)
Q_DECLARE_METATYPE(std::vector<tessera::ui::SettlementNote>)
Q_DECLARE_METATYPE(std::vector<tessera::ui::ContractSettlementStatus>)
Q_DECLARE_METATYPE(std::vector<tessera::IndexPoint>)
Q_DECLARE_METATYPE(std::vector<tessera::ui::FinishedOrder>)
Q_DECLARE_METATYPE(tessera::ui::CallAuctionView)
