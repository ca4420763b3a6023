#include "core/net/ForwardDesk.h"
#include "core/net/RequestFields.h"
#include "core/engine/SnapshotCodec.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace tessera::net {
namespace {

using nlohmann::json;
using Failure = std::pair<std::string, std::string>;
using namespace desk;

json levelsJson(const std::vector<ForwardLevel>& levels) {
  json a = json::array();
  for (const auto& l : levels) a.push_back(json::array({l.price, l.gpuHours, l.orders}));
  return a;
}

std::string_view statusName(ForwardStatus s) {
  switch (s) {
    case ForwardStatus::Open: return "open";
    case ForwardStatus::ClosedOut: return "closed_out";
    case ForwardStatus::Settled: return "settled";
  }
  return "?";
}

}  // namespace

void ForwardDeskOutput::clear() {
  toAccount.clear();
  marketData.clear();
  journal.reset();
}

bool isForwardType(const std::string& type) {
  return type == "forward_order" || type == "forward_cancel" || type == "forward_orders" ||
         type == "forward_positions" || type == "forward_book";
}

std::variant<ForwardRequest, Failure> parseForwardRequest(const json& j, const std::string& type) {
  RequestFields f{j, std::nullopt};
  ForwardRequest r;
  if (type == "forward_order") {
    f.only({"cl_ord_id", "side", "accelerator", "week_start", "gpu_hours", "price"});
    ForwardNewOrder o;
    o.clOrdId = f.text("cl_ord_id", kMaxClOrdId);
    const std::string side = f.text("side", 4);
    if (!f.failure && side != "buy" && side != "sell") f.fail("bad_field", "field 'side' must be buy or sell");
    o.side = side == "sell" ? Side::Sell : Side::Buy;
    o.accelerator = f.accelerator();
    o.weekStart = static_cast<Hour>(f.positive("week_start", kMaxHourField));
    o.gpuHours = static_cast<std::int64_t>(f.positive("gpu_hours", 1'000'000'000));
    o.price = static_cast<Price>(f.positive("price", 100'000'000));
    r.what = std::move(o);
  } else if (type == "forward_cancel") {
    f.only({"order_id"});
    r.what = ForwardCancelOrder{f.positive("order_id", std::uint64_t{1} << 53)};
  } else if (type == "forward_orders") {
    f.only({});
    r.what = ForwardOrdersQuery{};
  } else if (type == "forward_positions") {
    f.only({});
    r.what = ForwardPositionsQuery{};
  } else if (type == "forward_book") {
    f.only({"accelerator", "week_start"});
    ForwardBookQuery q;
    q.accelerator = f.accelerator();
    q.weekStart = static_cast<Hour>(f.positive("week_start", kMaxHourField));
    r.what = q;
  } else {
    return Failure{"unknown_type", "unknown message type '" + type + "'"};
  }
  if (f.failure) return *f.failure;
  return r;
}

ForwardDesk::ForwardDesk(SettlementLedger& ledger, AccountDirectory& accounts) : market_(ledger), accounts_(accounts) {}

void ForwardDesk::handle(AccountId a, const ForwardRequest& r, std::optional<std::uint64_t> req, Hour now,
                         Money spendable, ForwardDeskOutput& out) {
  auto reply = [&](json j) {
    if (req) j["req"] = *req;
    out.toAccount.emplace_back(a, line(j));
  };
  std::vector<ForwardMarketEvent> events;
  if (const auto* o = std::get_if<ForwardNewOrder>(&r.what)) {
    for (const auto& [id, cl] : clOrdIds_) {
      if (cl != o->clOrdId) continue;
      if (const auto w = market_.working(id); w && w->account == a)
        return reply({{"type", "forward_rejected"},
                      {"cl_ord_id", o->clOrdId},
                      {"code", "duplicate_cl_ord_id"},
                      {"reason", "a working forward order of yours has this cl_ord_id"}});
    }
    const ForwardOrder order{nextId_, a, o->side, o->accelerator, o->weekStart, o->gpuHours, o->price};
    market_.submit(order, now, spendable, events);
    if (!events.empty() && std::holds_alternative<ForwardRejected>(events.front())) {
      const auto& rej = std::get<ForwardRejected>(events.front());
      return reply({{"type", "forward_rejected"},
                    {"cl_ord_id", o->clOrdId},
                    {"code", std::string(toString(rej.reason))},
                    {"reason", rej.detail}});
    }
    ++nextId_;
    clOrdIds_[order.id] = o->clOrdId;
    out.journal = json{
        {"type", "forward_order"},
        {"account", accounts_.name(a)},
        {"id", order.id},
        {"cl_ord_id", o->clOrdId},
        {"side", std::string(sideName(o->side))},
        {"accelerator", std::string(toString(o->accelerator))},
        {"week_start", o->weekStart},
        {"gpu_hours", o->gpuHours},
        {"price",
         o->price}}.dump();
    // The acceptance is the first line the order produces; it carries the request number.
    reply({{"type", "forward_accepted"},
           {"order_id", order.id},
           {"cl_ord_id", o->clOrdId},
           {"margin_held", std::get<ForwardAccepted>(events.front()).marginHeld}});
    events.erase(events.begin());
    apply(events, &out);
    out.marketData.push_back(bookJson(o->accelerator, o->weekStart));
    return;
  }
  if (const auto* c = std::get_if<ForwardCancelOrder>(&r.what)) {
    const std::optional<ForwardOrder> working = market_.working(c->orderId);
    // Another account's order is reported like a missing one.
    if (!working || working->account != a) {
      return reply({{"type", "error"},
                    {"code", "unknown_order"},
                    {"reason", "no working forward order of yours with this id"},
                    {"msg_type", "forward_cancel"}});
    }
    market_.cancel(c->orderId, a, events);
    out.journal = json{{"type", "forward_cancel"}, {"account", accounts_.name(a)}, {"id", c->orderId}}.dump();
    apply(events, &out);
    out.marketData.push_back(bookJson(working->accelerator, working->weekStart));
    return;
  }
  if (std::holds_alternative<ForwardOrdersQuery>(r.what)) {
    json list = json::array();
    for (const auto& w : market_.workingOrders(a))
      list.push_back({{"order_id", w.id},
                      {"cl_ord_id", clOrdIds_.count(w.id) ? clOrdIds_.at(w.id) : std::string()},
                      {"side", std::string(sideName(w.side))},
                      {"accelerator", std::string(toString(w.accelerator))},
                      {"week_start", w.weekStart},
                      {"leaves_gpu_hours", w.gpuHours},
                      {"price", w.price}});
    return reply({{"type", "forward_orders"}, {"orders", list}, {"margin_held", market_.marginHeld(a)}});
  }
  if (std::holds_alternative<ForwardPositionsQuery>(r.what)) {
    json list = json::array();
    for (const auto& p : market_.positionsOf(a)) {
      const bool isLong = p.buyer == a;
      list.push_back({{"position", p.id},
                      {"side", isLong ? "long" : "short"},
                      {"accelerator", std::string(toString(p.terms.accelerator))},
                      {"week_start", p.terms.weekStart},
                      {"gpu_hours", p.terms.gpuHours},
                      {"price", p.terms.price},
                      {"status", std::string(statusName(p.status))},
                      {"margin", isLong ? p.buyerMargin : p.sellerMargin},
                      {"last_mark", p.lastMark}});
    }
    return reply({{"type", "forward_positions"}, {"positions", list}});
  }
  const auto& q = std::get<ForwardBookQuery>(r.what);
  json book = json::parse(bookJson(q.accelerator, q.weekStart));
  book["type"] = "forward_book";
  reply(book);
}

void ForwardDesk::replay(const json& entry, Hour now, Money spendable) {
  const std::string type = entry.at("type").get<std::string>();
  const AccountId a = accounts_.intern(entry.at("account").get<std::string>());
  std::vector<ForwardMarketEvent> events;
  if (type == "forward_order") {
    const std::string side = entry.at("side").get<std::string>();
    auto accel = parseAccelerator(entry.at("accelerator").get<std::string>());
    if (!accel) throw std::runtime_error("forward journal entry names an unknown accelerator");
    const ForwardOrder o{entry.at("id").get<std::uint64_t>(),     a,
                         side == "sell" ? Side::Sell : Side::Buy, *accel,
                         entry.at("week_start").get<Hour>(),      entry.at("gpu_hours").get<std::int64_t>(),
                         entry.at("price").get<Price>()};
    market_.submit(o, now, spendable, events);
    if (events.empty() || !std::holds_alternative<ForwardAccepted>(events.front()))
      throw std::runtime_error("forward order " + std::to_string(o.id) + " is rejected on replay");
    nextId_ = std::max(nextId_, o.id + 1);
    clOrdIds_[o.id] = entry.value("cl_ord_id", std::string());
  } else {
    market_.cancel(entry.at("id").get<std::uint64_t>(), a, events);
    if (!events.empty() && std::holds_alternative<ForwardRejected>(events.front()))
      throw std::runtime_error("forward cancel of " + std::to_string(entry.at("id").get<std::uint64_t>()) +
                               " is rejected on replay");
  }
  apply(events, nullptr);
}

void ForwardDesk::advance(Hour now, const std::map<Accelerator, Price>& nextDay, ForwardDeskOutput& out) {
  std::vector<ForwardMarketEvent> events;
  market_.advance(now, nextDay, events);
  apply(events, &out);
}

void ForwardDesk::apply(const std::vector<ForwardMarketEvent>& events, ForwardDeskOutput* out) {
  auto clOf = [&](std::uint64_t id) { return clOrdIds_.count(id) ? clOrdIds_.at(id) : std::string(); };
  for (const auto& e : events) {
    if (const auto* t = std::get_if<ForwardTrade>(&e)) {
      if (out) {
        for (bool buy : {true, false}) {
          const std::uint64_t order = buy ? t->buyOrder : t->sellOrder;
          out->toAccount.emplace_back(buy ? t->buyer : t->seller,
                                      line({{"type", "forward_fill"},
                                            {"order_id", order},
                                            {"cl_ord_id", clOf(order)},
                                            {"position", t->position},
                                            {"side", buy ? "buy" : "sell"},
                                            {"accelerator", std::string(toString(t->accelerator))},
                                            {"week_start", t->weekStart},
                                            {"gpu_hours", t->gpuHours},
                                            {"price", t->price},
                                            {"leaves_gpu_hours", buy ? t->buyLeaves : t->sellLeaves}}));
        }
        out->marketData.push_back(json{{"type", "md_forward_trade"},
                                       {"accelerator", std::string(toString(t->accelerator))},
                                       {"week_start", t->weekStart},
                                       {"gpu_hours", t->gpuHours},
                                       {"price", t->price},
                                       {"aggressor", t->buyerAggressor ? "buy" : "sell"}}
                                      .dump());
      }
      if (t->buyLeaves == 0) clOrdIds_.erase(t->buyOrder);
      if (t->sellLeaves == 0) clOrdIds_.erase(t->sellOrder);
    } else if (const auto* c = std::get_if<ForwardCancelled>(&e)) {
      if (out)
        out->toAccount.emplace_back(c->account, line({{"type", "forward_cancelled"},
                                                      {"order_id", c->order},
                                                      {"cl_ord_id", clOf(c->order)},
                                                      {"gpu_hours", c->cancelledGpuHours},
                                                      {"reason", c->reason}}));
      clOrdIds_.erase(c->order);
    } else if (const auto* n = std::get_if<ForwardNotice>(&e)) {
      if (out)
        for (AccountId who : {n->buyer, n->seller})
          out->toAccount.emplace_back(who,
                                      line({{"type", "forward_notice"}, {"position", n->position}, {"what", n->what}}));
    } else if (const auto* m = std::get_if<ForwardMark>(&e)) {
      if (out)
        out->marketData.push_back(json{
            {"type", "md_forward_settlement"},
            {"accelerator", std::string(toString(m->accelerator))},
            {"week_start", m->weekStart},
            {"price", m->index}}.dump());
    }
  }
}

std::string ForwardDesk::bookJson(Accelerator a, Hour weekStart) const {
  return json{{"type", "md_forward_book"},
              {"accelerator", std::string(toString(a))},
              {"week_start", weekStart},
              {"bids", levelsJson(market_.depth(a, weekStart, Side::Buy, kBookLevels))},
              {"asks", levelsJson(market_.depth(a, weekStart, Side::Sell, kBookLevels))}}
      .dump();
}

std::string ForwardDesk::booksJson() const {
  json all = json::array();
  for (const auto& [accelerator, weekStart] : market_.books())
    all.push_back(json::parse(bookJson(accelerator, weekStart)));
  return all.dump();
}

void ForwardDesk::save(SnapshotWriter& w) const {
  market_.save(w);
  w.pod(nextId_);
  w.pod<std::uint64_t>(clOrdIds_.size());
  for (const auto& [id, cl] : clOrdIds_) {
    w.pod(id);
    w.str(cl);
  }
}

void ForwardDesk::load(SnapshotReader& r) {
  market_.load(r);
  nextId_ = r.pod<std::uint64_t>();
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto id = r.pod<std::uint64_t>();
    clOrdIds_[id] = r.str();
  }
}

}  // namespace tessera::net
