#include "core/net/FinishedOrderArchive.h"

#include "core/engine/EventJson.h"
#include "core/net/ServerMessage.h"

#include <nlohmann/json.hpp>

#include <stdexcept>
#include <type_traits>

namespace tessera::net {

std::string_view orderStatusName(OrderStatus s) {
  switch (s) {
    case OrderStatus::Working: return "working";
    case OrderStatus::Filled: return "filled";
    case OrderStatus::Cancelled: return "cancelled";
  }
  return "unknown";
}

void FinishedOrderArchive::finishedIn(const std::vector<Event>& events, std::vector<OrderId>& out) {
  out.clear();
  for (const Event& e : events) {
    if (const auto* f = std::get_if<Fill>(&e); f && f->leavesGpuHours == 0)
      out.push_back(f->order);
    else if (const auto* c = std::get_if<OrderCancelled>(&e); c && c->leavesGpuHours == 0)
      out.push_back(c->order);
  }
}

bool FinishedOrderArchive::archive(Matcher& engine, OrderId id, AccountId account, std::string_view clOrdId) {
  const auto v = engine.order(id);
  if (!v || v->status == OrderStatus::Working) return false;  // already archived, or still working
  OrderView finished = *v;
  finished.request.account = account;
  if (!archive(finished, clOrdId)) return false;
  engine.forget(id);
  return true;
}

bool FinishedOrderArchive::archive(const OrderView& v, std::string_view clOrdId) {
  // Replaying an entry written with its archive rows: the row is there already.
  if (!journal_.replayingEntryWithArchivedOrders()) journal_.archive(describe(v, clOrdId));
  return retire_;
}

ArchivedOrder FinishedOrderArchive::describe(const OrderView& v, std::string_view clOrdId) {
  ArchivedOrder o;
  o.orderId = v.request.id;
  o.account = v.request.account;
  o.clOrdId = clOrdId;
  o.status = static_cast<int>(v.status);
  o.filledGpuHours = v.filledGpuHours;
  o.leavesGpuHours = v.leavesGpuHours;
  o.order = toJson(v.request).dump();
  return o;
}

void FinishedOrderArchive::appendFields(std::string& out, const ArchivedOrder& o) {
  out += "\"order_id\":" + std::to_string(o.orderId) + ",\"cl_ord_id\":" + jsonString(o.clOrdId) + ",\"status\":\"" +
         std::string(orderStatusName(static_cast<OrderStatus>(o.status))) +
         "\",\"filled_gpu_hours\":" + std::to_string(o.filledGpuHours) +
         ",\"leaves_gpu_hours\":" + std::to_string(o.leavesGpuHours) + ",\"order\":" + o.order;
}

void FinishedOrderArchive::appendHistory(std::string& out, AccountId account, OrderId after, std::uint32_t limit) {
  // One more than asked: whether another page follows.
  std::vector<ArchivedOrder> page = journal_.archivedPage(account, after, std::size_t{limit} + 1);
  const bool more = page.size() > limit;
  if (more) page.pop_back();
  out += "{\"type\":\"order_history\",\"orders\":[";
  bool first = true;
  for (const ArchivedOrder& o : page) {
    if (!first) out += ',';
    first = false;
    out += '{';
    appendFields(out, o);
    out += '}';
  }
  out += ']';
  if (more) out += ",\"next_after\":" + std::to_string(page.back().orderId);
}

}  // namespace tessera::net
