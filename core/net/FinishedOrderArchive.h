#pragma once
// Finished orders (filled, cancelled, expired) retire from the exchange's memory to the
// journal's archive table (Journal::archive), written in the same transaction as the entry that
// finished them; order_status, cancels and amends that name one, and the paged order_history
// query, answer from there. With retirement on (ExchangeConfig::retireFinishedOrders) the
// engine forgets them too (Matcher::forget), so memory follows the working orders, not every
// order ever placed; with it off the archive is written all the same (order_history reads
// only the archive) and memory keeps every order.
#include "core/engine/Matcher.h"
#include "core/net/Journal.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::net {

std::string_view orderStatusName(OrderStatus s);

class FinishedOrderArchive {
 public:
  FinishedOrderArchive(Journal& journal, bool retire) : journal_(journal), retire_(retire) {}

  bool retiring() const { return retire_; }
  // Orders that stopped working in one input's events (the last fill, or a cancel or expiry
  // that left nothing), for archive() once the input is accounted.
  static void finishedIn(const std::vector<Event>& events, std::vector<OrderId>& out);
  // Archives order `id` (finished, as the engine holds it) and, when retiring, makes the engine
  // forget it. True when the caller is to drop its own record of the order too.
  bool archive(Matcher& engine, OrderId id, AccountId account, std::string_view clOrdId);
  // Archives an order that finished outside the engine (a call order, CallDesk) as `v` describes
  // it, by the same rule. True when the caller is to drop its own record of the order too.
  bool archive(const OrderView& v, std::string_view clOrdId);

  // An order as order_status shows it: from the engine (working or not yet retired) ...
  static ArchivedOrder describe(const OrderView& v, std::string_view clOrdId);
  // ... or from the archive.
  std::optional<ArchivedOrder> find(OrderId id) { return journal_.archived(id); }
  std::optional<ArchivedOrder> find(AccountId account, std::string_view clOrdId) {
    return journal_.archived(account, clOrdId);
  }

  // The fields of an order_status reply or of an entry of the orders/order_history lists
  // (`"order_id":...,"order":{...}`, no braces around), one writer for both.
  static void appendFields(std::string& out, const ArchivedOrder& o);
  // One order_history reply: `account`'s finished orders with ids after `after`, at most
  // `limit`, and next_after when more follow.
  void appendHistory(std::string& out, AccountId account, OrderId after, std::uint32_t limit);

 private:
  Journal& journal_;
  bool retire_;
};

}  // namespace tessera::net
