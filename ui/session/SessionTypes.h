#pragma once
// Value types the trading session hands to the widgets. They are copied across the
// backend's worker thread and the GUI thread, so they own their data.
#include "core/engine/Events.h"
#include "core/engine/Matcher.h"

#include <QMetaType>
#include <QString>

#include <memory>
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
  Hour firstHour = 0;                 // cells[i] is delivery hour firstHour + i
  std::vector<BookCell> cells;
  std::vector<OrderView> allOrNoneBids;
  Hour now = 0;                       // exchange clock when taken
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
  Hour exchangeTime = 0;   // the exchange clock when it traded
  Side aggressor = Side::Buy;
  bool mine = false;
};

// Best prices of a cluster over the next day, for the cluster list's price column and filter.
struct ClusterQuote {
  ClusterId cluster = 0;
  std::optional<Price> bestAsk;
  std::optional<Price> bestBid;
  std::optional<Price> lastTrade;
};

// A held contract valued at the current book: what the remaining hours would sell for now.
struct ContractMark {
  ContractId contract = 0;
  Money markValue = 0;
  Money remainingCost = 0;   // what the remaining hours cost at the contract price
  Money pnl() const { return markValue - remainingCost; }
};

struct AccountSummary {
  QString name;
  AccountId id = 0;
  Money balance = 0;    // cash after every fill so far
  Money reserved = 0;   // cash committed by working buy orders at their limits
  Money markValue = 0;
  Money remainingCost = 0;
  Money unrealizedPnl() const { return markValue - remainingCost; }
};

enum class ConnectionState { Connecting, Connected, Disconnected };

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
