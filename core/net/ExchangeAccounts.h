#pragma once
// The exchange's accounts and their risk, on the matching thread: each account's record (house
// flag, credit line, open-order count, client order ids, logged-on sessions), the exchange's
// record of every order (client id, side, limit, the cash it reserves), the checks a new order
// or an amend passes before it reaches the engine (unique client id, open-order limit, cash),
// and the bid reservations.
//
// A bid's reservation is limit x the GPU-hours it still works, derived from the engine's view of
// the order after each input (syncReservation), never accumulated from events; an account's
// reserved cash is the sum of its bids' reservations. So whatever order the engine reports an
// input's events in, the hold equals what the bid can still spend (test_exchange_accounts).
#include "core/domain/AccountDirectory.h"
#include "core/engine/Matcher.h"
#include "core/net/ClOrdIdIndex.h"
#include "core/net/ClientMessage.h"
#include "core/net/DenseIdTable.h"
#include "core/net/FinishedOrderArchive.h"
#include "core/net/RetiredClOrdIds.h"
#include "core/net/OptionDesk.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/Outbox.h"
#include "core/net/ServerMessage.h"
#include "core/settlement/SettlementLedger.h"

#include <set>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace tessera {
class SnapshotWriter;
class SnapshotReader;
}  // namespace tessera

namespace tessera::net {

class ForwardDesk;

struct ExchangeAccount {
  AccountId id = 0;
  std::string name;
  Money reserved = 0;  // sum of its open orders' OrderRecord::reserved (held on the ledger's Cash)
  bool house = false;
  Money creditLimit = 0;  // what its bids may commit beyond its cash (AccountConfig::creditLimit)
  bool configured = false;
  int openOrders = 0;
  ClOrdIdIndex byClOrdId;
  std::vector<SessionId> sessions;
};

// The exchange's record of an order the engine was given.
struct OrderRecord {
  AccountId account = 0;
  std::string clOrdId;
  Price limit = 0;
  Side side = Side::Buy;
  Money reserved = 0;  // limit x leaves of a working bid; set only by syncReservation
  bool open = false;
};

// A request refused before it reaches the engine: the wire code and the reason a user reads.
struct Refusal {
  std::string code;
  std::string reason;
};

class ExchangeAccounts {
 public:
  ExchangeAccounts(AccountDirectory& directory, const SettlementLedger& ledger, const ForwardDesk& forwards,
                   const Matcher& engine, const Limits& limits);

  // The account of that name, made on first use (then a house account: only a feeder or the
  // journal knows of it).
  ExchangeAccount& named(const std::string& name);
  // The account of that name if there is one (nothing is made).
  const ExchangeAccount* findNamed(std::string_view name) const;
  ExchangeAccount* find(AccountId id);
  const ExchangeAccount* find(AccountId id) const;
  ExchangeAccount& at(AccountId id) { return accounts_.at(id); }
  const ExchangeAccount& at(AccountId id) const { return accounts_.at(id); }

  Money cash(AccountId a) const { return ledger_.balance({a, Book::Cash}); }
  Money escrow(AccountId a) const { return ledger_.balance({a, Book::Escrow}); }
  Money reserved(AccountId a) const;
  // Cash an account may still commit: not reserved by bids nor held by resting forward orders.
  Money spendable(const ExchangeAccount& a) const;
  // Cash not reserved by bids (the forward desk subtracts its own margin holds itself).
  Money cashFreeOfBids(const ExchangeAccount& a) const;
  // The cash an uptime credit may not take: what working bids reserve beyond the credit line,
  // and forward margin.
  Money heldCash(AccountId a) const;
  // Reserved covers both holds on cash: working bids and the margin of resting forward orders.
  BalanceFigures balanceOf(const ExchangeAccount& a, Money creditsReceived) const;

  // A new order's checks, in this order: its client id unused, the open-order limit, and (with
  // `checkCash`) its reservation within spendable cash. On success the order gets the next
  // exchange id and a record, and its client id names it.
  [[nodiscard]] std::variant<OrderRequest, Refusal> admit(ExchangeAccount& a, const NewOrder& m, bool checkCash);
  // The engine rejected an admitted order: its record and client id are given back.
  void withdraw(ExchangeAccount& a, OrderId id, const std::string& clOrdId);
  // A journaled order on replay: recorded as admit() recorded it; a later order with the same
  // client id takes the id over, as it did when it was written.
  void recordReplayed(const OrderRequest& o, const std::string& clOrdId);
  // An amend of a working bid that would commit more than the account's spendable cash.
  [[nodiscard]] std::optional<Refusal> checkAmend(const ExchangeAccount& a, const OrderRecord& info,
                                                  const OrderView& view, const AmendOrder& m) const;
  // The order a client names (by client id or exchange id); another account's order is
  // reported exactly like a missing one: accounts must not learn about each other's orders.
  // A finished order retired to the archive is found there.
  std::optional<OrderId> resolve(const ExchangeAccount& a, const OrderRef& ref) const;
  // Where finished orders retire to (ExchangeCore's); without one, every order stays in memory.
  void useArchive(FinishedOrderArchive& archive) { archive_ = &archive; }
  // The index options' desk, whose premium and margin holds count like forward margin.
  void useOptions(const OptionDesk& options) { options_ = &options; }
  // The client's id of order `id`, held in memory or in the archive.
  std::string clOrdIdOf(OrderId id) const;
  // Drops the record of a finished order the archive holds (and its client id, if it still names it).
  void retire(OrderId id);
  OrderRecord& order(OrderId id) { return orders_.at(id); }
  const OrderRecord& order(OrderId id) const { return orders_.at(id); }
  const OrderRecord* findOrder(OrderId id) const { return orders_.find(id); }
  OrderId nextOrderId() const { return nextOrderId_; }

  // The engine's events about an order.
  void opened(OrderId id, OrderRecord& info);
  void close(OrderRecord& info);
  // The one place a bid's reservation changes (see the header comment).
  void syncReservation(OrderId id, OrderRecord& info);
  // The same for a bid of a call-mode cluster, which waits for its call outside the engine
  // (CallDesk): `leaves` is what the call market says it still wants, in GPU-hours.
  void syncCallReservation(OrderRecord& info, std::int64_t leaves);

  // Accounts whose balance changed since the last finishBatch.
  void markDirty(AccountId a) { dirty_.insert(a); }
  const std::set<AccountId>& dirty() const { return dirty_; }
  void clearDirty() { dirty_.clear(); }

  // A line to every session logged on as account `a`.
  void toAccount(AccountId a, Outbox& out, const std::string& line) const;

  // The snapshot form: names, account records, order records, the next order id.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  AccountDirectory& directory_;
  const SettlementLedger& ledger_;
  const ForwardDesk& forwards_;
  const Matcher& engine_;
  const Limits& limits_;
  FinishedOrderArchive* archive_ = nullptr;
  RetiredClOrdIds retiredIds_;  // what the archive may hold, so that admit() rarely reads it
  const OptionDesk* options_ = nullptr;
  void reserve(OrderRecord& info, Money target);
  Money optionsHeld(AccountId id) const { return options_ ? options_->held(id) : 0; }
  std::unordered_map<AccountId, ExchangeAccount> accounts_;
  DenseIdTable<OrderRecord> orders_;  // by exchange order id (sequential); finished ones retire
  OrderId nextOrderId_ = 1;
  std::set<AccountId> dirty_;
};

}  // namespace tessera::net
