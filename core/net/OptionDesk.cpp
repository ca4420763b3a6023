#include "core/net/OptionDesk.h"
#include "core/engine/SnapshotCodec.h"
#include "core/net/RequestFields.h"
#include "core/options/OptionQuotes.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <stdexcept>

namespace tessera::net {
namespace {

using nlohmann::json;
using namespace tessera::indexoptions;
using Failure = std::pair<std::string, std::string>;
using namespace desk;

constexpr int kLadderHalfWidth = 3;  // strikes each side of the forward in the chain

// Reads the series fields of a request; the period must begin at `start` (listing is the
// market's to check, so the reject names the reason).
OptionSeries readSeries(RequestFields& f) {
  OptionSeries s;
  s.accelerator = f.accelerator();
  const std::string kind = f.text("kind", 4);
  if (!f.failure && !parseOptionKind(kind)) f.fail("bad_field", "field 'kind' must be call or put");
  s.kind = parseOptionKind(kind).value_or(OptionKind::Call);
  const std::string period = f.text("period", 8);
  if (!f.failure && !parsePeriodKind(period)) f.fail("bad_field", "field 'period' must be month, quarter or year");
  s.periodKind = parsePeriodKind(period).value_or(PeriodKind::Month);
  s.start = static_cast<Hour>(f.positive("start", kMaxHourField));
  if (!f.failure && !periodStarting(s.periodKind, s.start))
    f.fail("bad_field", "field 'start' must be the first hour (00:00 UTC) of a " + period);
  s.strike = static_cast<Price>(f.positive("strike", 100'000'000));
  return s;
}

json levelsJson(const std::vector<OptionLevel>& levels) {
  json a = json::array();
  for (const auto& l : levels) a.push_back(json::array({l.premium, l.gpuHours, l.orders}));
  return a;
}

}  // namespace

void putOptionSeries(json& j, const OptionSeries& s) {
  j["accelerator"] = std::string(toString(s.accelerator));
  j["kind"] = std::string(toString(s.kind));
  j["period"] = std::string(toString(s.periodKind));
  j["start"] = s.start;
  j["strike"] = s.strike;
}

bool isOptionType(const std::string& type) {
  return type == "option_order" || type == "option_cancel" || type == "option_orders" || type == "option_positions" ||
         type == "option_book" || type == "option_chain";
}

std::string_view optionRequestName(const OptionRequest& r) {
  struct Names {
    std::string_view operator()(const OptionNewOrder&) const { return "option_order"; }
    std::string_view operator()(const OptionCancelOrder&) const { return "option_cancel"; }
    std::string_view operator()(const OptionOrdersQuery&) const { return "option_orders"; }
    std::string_view operator()(const OptionPositionsQuery&) const { return "option_positions"; }
    std::string_view operator()(const OptionBookQuery&) const { return "option_book"; }
    std::string_view operator()(const OptionChainQuery&) const { return "option_chain"; }
  };
  return std::visit(Names{}, r.what);
}

std::variant<OptionRequest, Failure> parseOptionRequest(const json& j, const std::string& type) {
  RequestFields f{j, std::nullopt};
  OptionRequest r;
  if (type == "option_order") {
    f.only({"cl_ord_id", "side", "accelerator", "kind", "period", "start", "strike", "gpu_hours", "premium"});
    OptionNewOrder o;
    o.clOrdId = f.text("cl_ord_id", kMaxClOrdId);
    const std::string side = f.text("side", 4);
    if (!f.failure && side != "buy" && side != "sell") f.fail("bad_field", "field 'side' must be buy or sell");
    o.side = side == "sell" ? Side::Sell : Side::Buy;
    o.series = readSeries(f);
    o.gpuHours = static_cast<std::int64_t>(f.positive("gpu_hours", 1'000'000'000));
    o.premium = static_cast<Price>(f.positive("premium", 100'000'000));
    r.what = std::move(o);
  } else if (type == "option_cancel") {
    f.only({"order_id"});
    r.what = OptionCancelOrder{f.positive("order_id", std::uint64_t{1} << 53)};
  } else if (type == "option_orders") {
    f.only({});
    r.what = OptionOrdersQuery{};
  } else if (type == "option_positions") {
    f.only({});
    r.what = OptionPositionsQuery{};
  } else if (type == "option_book") {
    f.only({"accelerator", "kind", "period", "start", "strike"});
    r.what = OptionBookQuery{readSeries(f)};
  } else if (type == "option_chain") {
    f.only({"accelerator"});
    r.what = OptionChainQuery{f.accelerator()};
  } else {
    return Failure{"unknown_type", "unknown message type '" + type + "'"};
  }
  if (f.failure) return *f.failure;
  return r;
}

OptionDesk::OptionDesk(SettlementLedger& ledger, AccountDirectory& accounts) : market_(ledger), accounts_(accounts) {}

void OptionDesk::handle(AccountId a, const OptionRequest& r, std::optional<std::uint64_t> req, Hour now,
                        Money spendable, OptionDeskOutput& out) {
  auto reply = [&](json j) {
    if (req) j["req"] = *req;
    out.toAccount.emplace_back(a, line(j));
  };
  std::vector<OptionMarketEvent> events;
  if (const auto* o = std::get_if<OptionNewOrder>(&r.what)) {
    for (const auto& [id, cl] : clOrdIds_) {
      if (cl != o->clOrdId) continue;
      if (const auto w = market_.working(id); w && w->account == a)
        return reply({{"type", "option_rejected"},
                      {"cl_ord_id", o->clOrdId},
                      {"code", "duplicate_cl_ord_id"},
                      {"reason", "a working option order of yours has this cl_ord_id"}});
    }
    const OptionOrder order{nextId_, a, o->side, o->series, o->gpuHours, o->premium};
    market_.submit(order, now, spendable, events);
    if (!events.empty() && std::holds_alternative<OptionRejected>(events.front())) {
      const auto& rej = std::get<OptionRejected>(events.front());
      return reply({{"type", "option_rejected"},
                    {"cl_ord_id", o->clOrdId},
                    {"code", std::string(toString(rej.reason))},
                    {"reason", rej.detail}});
    }
    ++nextId_;
    clOrdIds_[order.id] = o->clOrdId;
    json entry{{"type", "option_order"},  {"account", accounts_.name(a)},           {"id", order.id},
               {"cl_ord_id", o->clOrdId}, {"side", std::string(sideName(o->side))}, {"gpu_hours", o->gpuHours},
               {"premium", o->premium}};
    putOptionSeries(entry, o->series);
    out.journal = entry.dump();
    reply({{"type", "option_accepted"},
           {"order_id", order.id},
           {"cl_ord_id", o->clOrdId},
           {"held", std::get<OptionAccepted>(events.front()).held}});
    events.erase(events.begin());
    apply(events, &out);
    out.marketData.push_back(bookJson(o->series));
    return;
  }
  if (const auto* c = std::get_if<OptionCancelOrder>(&r.what)) {
    const std::optional<OptionOrder> working = market_.working(c->orderId);
    if (!working || working->account != a)
      return reply({{"type", "error"},
                    {"code", "unknown_order"},
                    {"reason", "no working option order of yours with this id"},
                    {"msg_type", "option_cancel"}});
    market_.cancel(c->orderId, a, events);
    out.journal = json{{"type", "option_cancel"}, {"account", accounts_.name(a)}, {"id", c->orderId}}.dump();
    apply(events, &out);
    out.marketData.push_back(bookJson(working->series));
    return;
  }
  if (std::holds_alternative<OptionOrdersQuery>(r.what)) {
    json list = json::array();
    for (const auto& w : market_.workingOrders(a)) {
      json o{{"order_id", w.id},
             {"cl_ord_id", clOrdIds_.count(w.id) ? clOrdIds_.at(w.id) : std::string()},
             {"side", std::string(sideName(w.side))},
             {"leaves_gpu_hours", w.gpuHours},
             {"premium", w.premium}};
      putOptionSeries(o, w.series);
      list.push_back(std::move(o));
    }
    return reply({{"type", "option_orders"}, {"orders", list}, {"held", market_.held(a)}});
  }
  if (std::holds_alternative<OptionPositionsQuery>(r.what)) {
    json list = json::array();
    for (const auto& p : market_.positions().positionsOf(a)) {
      const bool isLong = p.buyer == a;
      json o{{"position", p.id},
             {"side", isLong ? "long" : "short"},
             {"gpu_hours", p.gpuHours},
             {"premium", p.premium},
             {"status", std::string(toString(p.status))},
             {"margin", isLong ? 0 : p.writerMargin},
             {"value", p.lastValue},
             {"paid", p.paid},
             {"unpaid", p.unpaid}};
      putOptionSeries(o, p.series);
      list.push_back(std::move(o));
    }
    return reply({{"type", "option_positions"}, {"positions", list}});
  }
  if (const auto* q = std::get_if<OptionBookQuery>(&r.what)) {
    json book = json::parse(bookJson(q->series));
    book["type"] = "option_book";
    return reply(book);
  }
  json chain = json::parse(chainJson(std::get<OptionChainQuery>(r.what).accelerator));
  chain["type"] = "option_chain";
  reply(chain);
}

void OptionDesk::replay(const json& entry, Hour now, Money spendable) {
  const std::string type = entry.at("type").get<std::string>();
  const AccountId a = accounts_.intern(entry.at("account").get<std::string>());
  std::vector<OptionMarketEvent> events;
  if (type == "option_order") {
    auto parsed = parseOptionRequest(json{{"accelerator", entry.at("accelerator")},
                                          {"kind", entry.at("kind")},
                                          {"period", entry.at("period")},
                                          {"start", entry.at("start")},
                                          {"strike", entry.at("strike")}},
                                     "option_book");
    if (!std::holds_alternative<OptionRequest>(parsed))
      throw std::runtime_error("option journal entry names an impossible series");
    const OptionSeries s = std::get<OptionBookQuery>(std::get<OptionRequest>(parsed).what).series;
    const OptionOrder o{entry.at("id").get<std::uint64_t>(),
                        a,
                        entry.at("side").get<std::string>() == "sell" ? Side::Sell : Side::Buy,
                        s,
                        entry.at("gpu_hours").get<std::int64_t>(),
                        entry.at("premium").get<Price>()};
    market_.submit(o, now, spendable, events);
    if (events.empty() || !std::holds_alternative<OptionAccepted>(events.front()))
      throw std::runtime_error("option order " + std::to_string(o.id) + " is rejected on replay");
    nextId_ = std::max(nextId_, o.id + 1);
    clOrdIds_[o.id] = entry.value("cl_ord_id", std::string());
  } else {
    market_.cancel(entry.at("id").get<std::uint64_t>(), a, events);
    if (!events.empty() && std::holds_alternative<OptionRejected>(events.front()))
      throw std::runtime_error("option cancel of " + std::to_string(entry.at("id").get<std::uint64_t>()) +
                               " is rejected on replay");
  }
  apply(events, nullptr);
}

void OptionDesk::advance(Hour now, const std::map<Accelerator, ClassIndex>& index, OptionDeskOutput& out) {
  std::vector<OptionMarketEvent> events;
  market_.advance(now, index, events);
  apply(events, &out);
}

void OptionDesk::apply(const std::vector<OptionMarketEvent>& events, OptionDeskOutput* out) {
  auto clOf = [&](std::uint64_t id) { return clOrdIds_.count(id) ? clOrdIds_.at(id) : std::string(); };
  for (const auto& e : events) {
    if (const auto* t = std::get_if<OptionTrade>(&e)) {
      if (out) {
        for (bool buy : {true, false}) {
          const std::uint64_t order = buy ? t->buyOrder : t->sellOrder;
          json fill{{"type", "option_fill"},        {"order_id", order},
                    {"cl_ord_id", clOf(order)},     {"position", t->position},
                    {"side", buy ? "buy" : "sell"}, {"gpu_hours", t->gpuHours},
                    {"premium", t->premium},        {"leaves_gpu_hours", buy ? t->buyLeaves : t->sellLeaves}};
          putOptionSeries(fill, t->series);
          out->toAccount.emplace_back(buy ? t->buyer : t->writer, line(fill));
        }
        json md{{"type", "md_option_trade"},
                {"gpu_hours", t->gpuHours},
                {"premium", t->premium},
                {"aggressor", t->buyerAggressor ? "buy" : "sell"}};
        putOptionSeries(md, t->series);
        out->marketData.push_back(md.dump());
      }
      if (t->buyLeaves == 0) clOrdIds_.erase(t->buyOrder);
      if (t->sellLeaves == 0) clOrdIds_.erase(t->sellOrder);
    } else if (const auto* c = std::get_if<OptionCancelled>(&e)) {
      if (out)
        out->toAccount.emplace_back(c->account, line({{"type", "option_cancelled"},
                                                      {"order_id", c->order},
                                                      {"cl_ord_id", clOf(c->order)},
                                                      {"gpu_hours", c->cancelledGpuHours},
                                                      {"reason", c->reason}}));
      clOrdIds_.erase(c->order);
    } else if (const auto* n = std::get_if<OptionNotice>(&e)) {
      if (out) {
        // Each party hears the position as it holds it (long or short), with its state after
        // the notice, so a client needs no second request to act on it.
        const auto p = market_.positions().position(n->position);
        for (AccountId who : {n->buyer, n->writer}) {
          json notice{{"type", "option_notice"}, {"position", n->position}, {"what", n->what}};
          if (p) {
            notice["side"] = p->buyer == who ? "long" : "short";
            putOptionSeries(notice, p->series);
            notice["gpu_hours"] = p->gpuHours;
            notice["premium"] = p->premium;
            notice["status"] = std::string(toString(p->status));
            notice["paid"] = p->paid;
          }
          out->toAccount.emplace_back(who, line(notice));
        }
      }
    } else if (const auto* s = std::get_if<OptionSettlement>(&e)) {
      if (out)
        out->marketData.push_back(json{
            {"type", "md_option_settlement"},
            {"accelerator", std::string(toString(s->accelerator))},
            {"period", std::string(toString(s->period.kind))},
            {"start", s->period.start},
            {"average", s->average}}.dump());
    }
  }
}

std::string OptionDesk::bookJson(const OptionSeries& s) const {
  json j{{"type", "md_option_book"},
         {"bids", levelsJson(market_.depth(s, Side::Buy, kBookLevels))},
         {"asks", levelsJson(market_.depth(s, Side::Sell, kBookLevels))}};
  putOptionSeries(j, s);
  return j.dump();
}

std::string OptionDesk::booksJson() const {
  json all = json::array();
  for (const OptionSeries& s : market_.books()) all.push_back(json::parse(bookJson(s)));
  return all.dump();
}

std::string OptionDesk::chainJson(Accelerator a) const {
  json periods = json::array(), rows = json::array();
  const auto curve = market_.curve(a);
  const Hour now = market_.now();
  std::set<OptionSeries> quoted;
  for (const OptionSeries& s : market_.books())
    if (s.accelerator == a) quoted.insert(s);
  for (const DeliveryPeriod& p : listedPeriods(now)) {
    std::set<Price> strikes;
    std::optional<double> forward;
    if (curve) forward = periodForward(*curve, a, p, now);
    if (forward)
      for (Price k : strikeLadder(*forward, kLadderHalfWidth)) strikes.insert(k);
    for (const OptionSeries& s : quoted)
      if (s.periodKind == p.kind && s.start == p.start) strikes.insert(s.strike);
    periods.push_back({{"period", std::string(toString(p.kind))},
                       {"start", p.start},
                       {"end", p.end},
                       {"name", periodName(p)},
                       {"forward", forward ? json(std::llround(*forward * 1e6)) : json(nullptr)}});
    for (Price strike : strikes)
      for (OptionKind kind : {OptionKind::Call, OptionKind::Put}) {
        const OptionSeries s{a, kind, p.kind, p.start, strike};
        const auto bids = market_.depth(s, Side::Buy, 1);
        const auto asks = market_.depth(s, Side::Sell, 1);
        json row{{"period", std::string(toString(p.kind))},
                 {"start", p.start},
                 {"kind", std::string(toString(kind))},
                 {"strike", strike},
                 {"bid", nullptr},
                 {"ask", nullptr},
                 {"value", nullptr},
                 {"delta", nullptr},
                 {"iv", nullptr}};
        if (!bids.empty()) row["bid"] = bids.front().premium;
        if (!asks.empty()) row["ask"] = asks.front().premium;
        if (const auto v = market_.reference(s)) {
          row["value"] = v->value;
          row["delta"] = std::round(v->greeks.delta * 1e4) / 1e4;
          // The IV of the book's mid when it has both sides, else of the one side it has.
          std::optional<Price> quote;
          if (!bids.empty() && !asks.empty())
            quote = (bids.front().premium + asks.front().premium) / 2;
          else if (!bids.empty())
            quote = bids.front().premium;
          else if (!asks.empty())
            quote = asks.front().premium;
          if (quote)
            if (const auto iv = impliedVolatilityOf(s, *curve, now, *quote); std::holds_alternative<double>(iv))
              row["iv"] = std::round(std::get<double>(iv) * 1e4) / 1e4;
        }
        rows.push_back(std::move(row));
      }
  }
  return json{{"type", "md_option_chain"},
              {"accelerator", std::string(toString(a))},
              {"as_of", now},
              {"volatility", curve ? json(std::round(curve->volatility * 1e4) / 1e4) : json(nullptr)},
              {"periods", periods},
              {"rows", rows}}
      .dump();
}

std::map<Accelerator, ClassIndex> optionIndexInputs(
    const std::map<std::pair<Accelerator, Tenor>, IndexPublication>& indexNow, const ForwardMarket& forwards,
    Hour now) {
  std::map<Accelerator, ClassIndex> out;
  for (const auto& [series, p] : indexNow) {
    ClassIndex& c = out[series.first];
    switch (series.second) {
      case Tenor::NextDay: c.nextDay = p.value.price; break;
      case Tenor::NextWeek: c.nextWeek = p.value.price; break;
      case Tenor::NextMonth: c.nextMonth = p.value.price; break;
    }
  }
  for (const auto& [a, weekStart] : forwards.books()) {
    auto it = out.find(a);
    if (it == out.end()) continue;
    const auto bid = forwards.depth(a, weekStart, Side::Buy, 1);
    const auto ask = forwards.depth(a, weekStart, Side::Sell, 1);
    if (bid.empty() || ask.empty()) continue;  // a one-sided book says too little of the level
    it->second.forwardMids.push_back(ForwardMid{static_cast<double>(weekStart + kHoursPerWeek / 2 - now),
                                                (bid.front().price + ask.front().price) / 2});
  }
  return out;
}

std::string OptionDesk::stateDigestText() const {
  std::string t = market_.stateText();
  t += std::to_string(nextId_) + "\n";
  for (const auto& [id, cl] : clOrdIds_) t += std::to_string(id) + " " + cl + "\n";
  return t;
}

void OptionDesk::save(SnapshotWriter& w) const {
  market_.save(w);
  w.pod(nextId_);
  w.pod<std::uint64_t>(clOrdIds_.size());
  for (const auto& [id, cl] : clOrdIds_) {
    w.pod(id);
    w.str(cl);
  }
}

void OptionDesk::load(SnapshotReader& r) {
  market_.load(r);
  nextId_ = r.pod<std::uint64_t>();
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto id = r.pod<std::uint64_t>();
    clOrdIds_[id] = r.str();
  }
}

}  // namespace tessera::net
