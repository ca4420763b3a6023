#include "core/net/ExchangeAccounts.h"

#include "core/engine/CashReservation.h"
#include "core/engine/MarketLimits.h"
#include "core/engine/SnapshotCodec.h"
#include "core/net/ForwardDesk.h"
#include "core/settlement/ContractSettlement.h"

#include <algorithm>

namespace tessera::net {

ExchangeAccounts::ExchangeAccounts(AccountDirectory& directory, const SettlementLedger& ledger,
                                   const ForwardDesk& forwards, const Matcher& engine, const Limits& limits)
    : directory_(directory), ledger_(ledger), forwards_(forwards), engine_(engine), limits_(limits) {}

ExchangeAccount& ExchangeAccounts::named(const std::string& name) {
  const AccountId id = directory_.intern(name);
  auto [it, inserted] = accounts_.try_emplace(id);
  if (inserted) {
    it->second.id = id;
    it->second.name = name;
    it->second.house = true;  // an account only a feeder or the journal knows of
  }
  return it->second;
}

const ExchangeAccount* ExchangeAccounts::findNamed(std::string_view name) const {
  const auto id = directory_.find(name);
  return id ? find(*id) : nullptr;
}

ExchangeAccount* ExchangeAccounts::find(AccountId id) {
  auto it = accounts_.find(id);
  return it == accounts_.end() ? nullptr : &it->second;
}

const ExchangeAccount* ExchangeAccounts::find(AccountId id) const {
  return const_cast<ExchangeAccounts*>(this)->find(id);
}

Money ExchangeAccounts::reserved(AccountId a) const {
  const ExchangeAccount* acc = find(a);
  return acc ? acc->reserved : 0;
}

Money ExchangeAccounts::spendable(const ExchangeAccount& a) const {
  return cashFreeOfBids(a) - forwards_.marginHeld(a.id) - optionsHeld(a.id);
}

Money ExchangeAccounts::cashFreeOfBids(const ExchangeAccount& a) const {
  return cash(a.id) + a.creditLimit - a.reserved;
}

Money ExchangeAccounts::heldCash(AccountId id) const {
  // A house account's bids backed by its credit line hold none of its cash.
  const ExchangeAccount* a = find(id);
  const Money creditLine = a ? a->creditLimit : 0;
  return std::max<Money>(0, reserved(id) - creditLine) + forwards_.marginHeld(id) + optionsHeld(id);
}

BalanceFigures ExchangeAccounts::balanceOf(const ExchangeAccount& a, Money creditsReceived) const {
  return BalanceFigures{cash(a.id), a.reserved + forwards_.marginHeld(a.id) + optionsHeld(a.id), escrow(a.id),
                        creditsReceived};
}

std::variant<OrderRequest, Refusal> ExchangeAccounts::admit(ExchangeAccount& a, const NewOrder& m, bool checkCash) {
  // One lookup claims the client order id for the id the order will get; every refusal below
  // gives it back.
  if (!a.byClOrdId.claim(m.clOrdId, nextOrderId_))
    return Refusal{"duplicate_cl_ord_id", "cl_ord_id '" + m.clOrdId + "' was already used by this account"};
  if (archive_ && retiredIds_.mayContain(a.id, m.clOrdId) &&
      archive_->find(a.id, m.clOrdId)) {  // named a finished order, retired since
    a.byClOrdId.erase(m.clOrdId);
    return Refusal{"duplicate_cl_ord_id", "cl_ord_id '" + m.clOrdId + "' was already used by this account"};
  }
  if (a.openOrders >= limits_.maxOpenOrdersPerAccount) {
    a.byClOrdId.erase(m.clOrdId);
    return Refusal{"too_many_open_orders",
                   "at most " + std::to_string(limits_.maxOpenOrdersPerAccount) + " open orders"};
  }
  const Money reservation = reservationFor(m.order);
  const Money available = spendable(a);
  if (checkCash && reservation > available) {
    a.byClOrdId.erase(m.clOrdId);
    return Refusal{"insufficient_cash", "the bid needs " + toDollars(reservation) + ", " +
                                            toDollars(std::max<Money>(available, 0)) + " is available"};
  }
  OrderRequest o = m.order;
  o.id = nextOrderId_++;
  o.account = a.id;
  OrderRecord info;
  info.account = a.id;
  info.clOrdId = m.clOrdId;
  info.limit = o.limit;
  info.side = o.side;
  orders_.put(o.id, std::move(info));
  return o;
}

void ExchangeAccounts::withdraw(ExchangeAccount& a, OrderId id, const std::string& clOrdId) {
  orders_.erase(id);
  a.byClOrdId.erase(clOrdId);
}

void ExchangeAccounts::recordReplayed(const OrderRequest& o, const std::string& clOrdId) {
  ExchangeAccount& a = named(directory_.name(o.account));
  OrderRecord info;
  info.account = a.id;
  info.clOrdId = clOrdId;
  info.limit = o.limit;
  info.side = o.side;
  orders_.put(o.id, std::move(info));
  if (!a.byClOrdId.claim(clOrdId, o.id)) {
    a.byClOrdId.erase(clOrdId);  // the later entry names it, as it did when it was written
    a.byClOrdId.claim(clOrdId, o.id);
  }
  nextOrderId_ = std::max(nextOrderId_, o.id + 1);
}

std::optional<Refusal> ExchangeAccounts::checkAmend(const ExchangeAccount& a, const OrderRecord& info,
                                                    const OrderView& view, const AmendOrder& m) const {
  if (info.side != Side::Buy || view.request.sellBack) return std::nullopt;
  const Price limit = m.limit.value_or(view.request.limit);
  const GpuCount gpus = m.gpus.value_or(view.request.gpus);
  // Out of the engine's bounds: the engine rejects the amend with its own reason.
  if (limit > limits::kMaxPrice || gpus > limits::kMaxClusterGpus || view.request.gpus <= 0) return std::nullopt;
  // What the bid may still buy after the amend, never less than the engine will rest: a
  // divisible order adds the new GPUs to every remaining hour, filled ones included
  // (docs/matching.md, "Cancel and amend"); an all-or-none one wants gpus x its hours.
  const OrderRequest& r = view.request;
  const Hour hours = r.fill == FillStyle::Divisible ? r.end - std::max(r.start, engine_.now()) : r.hours();
  const std::int64_t leaves = view.leavesGpuHours + std::max<std::int64_t>(0, gpus - r.gpus) * std::max<Hour>(0, hours);
  const Money needed = limit * leaves;
  if (needed - info.reserved <= spendable(a)) return std::nullopt;
  return Refusal{"insufficient_cash", "the amended bid needs " + toDollars(needed) + ", " +
                                          toDollars(std::max<Money>(info.reserved + spendable(a), 0)) +
                                          " is available"};
}

std::optional<OrderId> ExchangeAccounts::resolve(const ExchangeAccount& a, const OrderRef& ref) const {
  if (ref.clOrdId) {
    if (auto id = a.byClOrdId.find(*ref.clOrdId)) return id;
    if (archive_)
      if (auto o = archive_->find(a.id, *ref.clOrdId)) return o->orderId;
    return std::nullopt;
  }
  const OrderRecord* info = orders_.find(*ref.orderId);
  if (!info) {
    if (archive_)
      if (auto o = archive_->find(*ref.orderId); o && o->account == a.id) return *ref.orderId;
    return std::nullopt;
  }
  if (info->account != a.id) return std::nullopt;
  return *ref.orderId;
}

std::string ExchangeAccounts::clOrdIdOf(OrderId id) const {
  if (const OrderRecord* info = orders_.find(id)) return info->clOrdId;
  if (archive_)
    if (auto o = archive_->find(id)) return o->clOrdId;
  return {};
}

void ExchangeAccounts::retire(OrderId id) {
  const OrderRecord* info = orders_.find(id);
  if (!info) return;
  ClOrdIdIndex& named = accounts_.at(info->account).byClOrdId;
  if (named.find(info->clOrdId) == id) named.erase(info->clOrdId);
  retiredIds_.add(info->account, info->clOrdId);
  orders_.erase(id);
}

void ExchangeAccounts::opened(OrderId id, OrderRecord& info) {
  info.open = true;
  ++accounts_.at(info.account).openOrders;
  syncReservation(id, info);
}

void ExchangeAccounts::close(OrderRecord& info) {
  if (!info.open) return;
  ExchangeAccount& a = accounts_.at(info.account);
  info.open = false;
  --a.openOrders;
  dirty_.insert(a.id);
}

void ExchangeAccounts::syncReservation(OrderId id, OrderRecord& info) {
  Money target = 0;
  if (info.open && info.side == Side::Buy) {
    if (auto v = engine_.order(id); v && v->status == OrderStatus::Working && !v->request.sellBack)
      target = v->request.limit * v->leavesGpuHours;
  }
  reserve(info, target);
}

void ExchangeAccounts::syncCallReservation(OrderRecord& info, std::int64_t leaves) {
  reserve(info, info.open && info.side == Side::Buy ? info.limit * leaves : 0);
}

void ExchangeAccounts::reserve(OrderRecord& info, Money target) {
  if (target == info.reserved) return;
  ExchangeAccount& a = accounts_.at(info.account);
  a.reserved += target - info.reserved;
  info.reserved = target;
  dirty_.insert(a.id);
}

void ExchangeAccounts::toAccount(AccountId a, Outbox& out, const std::string& line) const {
  for (SessionId s : accounts_.at(a).sessions) out.toSession[s] += line;
}

void ExchangeAccounts::save(SnapshotWriter& w) const {
  w.pod<std::uint64_t>(directory_.size());
  for (AccountId a = 1; a <= directory_.size(); ++a) {
    w.str(directory_.name(a));
    const auto it = accounts_.find(a);
    w.pod(it != accounts_.end());
    if (it == accounts_.end()) continue;
    const ExchangeAccount& acc = it->second;
    w.pod(acc.reserved);
    w.pod(acc.house);
    w.pod(acc.creditLimit);
    w.pod(acc.configured);
    w.pod(acc.openOrders);
  }
  std::vector<OrderId> ids;
  for (OrderId id = 1; id < nextOrderId_; ++id)
    if (orders_.find(id)) ids.push_back(id);
  w.pod<std::uint64_t>(ids.size());
  for (OrderId id : ids) {
    const OrderRecord& o = orders_.at(id);
    w.pod(id);
    w.pod(o.account);
    w.str(o.clOrdId);
    w.pod(o.limit);
    w.pod(o.side);
    w.pod(o.reserved);
    w.pod(o.open);
  }
  w.pod(nextOrderId_);
  retiredIds_.save(w);
}

void ExchangeAccounts::load(SnapshotReader& r) {
  const std::size_t names = r.count(8);
  for (AccountId a = 1; a <= names; ++a) {
    const std::string name = r.str();
    if (directory_.intern(name) != a) throw SnapshotCorrupt("account names out of order");
    if (!r.pod<bool>()) continue;
    ExchangeAccount& acc = accounts_[a];
    acc.id = a;
    acc.name = name;
    acc.reserved = r.pod<Money>();
    acc.house = r.pod<bool>();
    acc.creditLimit = r.pod<Money>();
    acc.configured = r.pod<bool>();
    acc.openOrders = r.pod<int>();
  }
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto id = r.pod<OrderId>();
    OrderRecord o;
    o.account = r.pod<AccountId>();
    o.clOrdId = r.str();
    o.limit = r.pod<Price>();
    o.side = r.pod<Side>();
    o.reserved = r.pod<Money>();
    o.open = r.pod<bool>();
    auto acc = accounts_.find(o.account);
    if (acc == accounts_.end()) throw SnapshotCorrupt("an order of an unknown account");
    // As a replay names them: a later order with the same client id takes it over.
    if (!acc->second.byClOrdId.claim(o.clOrdId, id)) {
      acc->second.byClOrdId.erase(o.clOrdId);
      acc->second.byClOrdId.claim(o.clOrdId, id);
    }
    orders_.put(id, std::move(o));
  }
  nextOrderId_ = r.pod<OrderId>();
  retiredIds_.load(r);
}

}  // namespace tessera::net
