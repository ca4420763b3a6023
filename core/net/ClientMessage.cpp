#include "core/net/ClientMessage.h"

#include "core/engine/EventJson.h"
#include "core/net/FlatMessageParser.h"
#include "core/net/Utf8.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <limits>

namespace tessera::net {
namespace {

using nlohmann::json;

// Checks what the JSON parser would let through or read loosely: control bytes (it stops at a
// NUL and ignores the rest), bytes that are not UTF-8, nesting deeper than kMaxJsonDepth (no
// valid message nests deeply, and a line of 60,000 '[' should cost nothing) and anything after
// the object. Returns the reason a line is malformed, or nothing.
std::optional<std::string> lineShapeError(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  int depth = 0;
  bool inString = false;
  bool closed = false;  // the top-level object or array has ended
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      return std::string("control byte 0x") + kHex[c >> 4] + kHex[c & 15] + " at offset " + std::to_string(i) +
             " (a line may hold no control characters)";
    }
    if (closed) {
      if (c != ' ') return "bytes after the JSON object at offset " + std::to_string(i);
      continue;
    }
    if (c >= 0x80) {
      const std::size_t n = utf8SequenceLength(s, i);
      if (n == 0) return "invalid UTF-8 at offset " + std::to_string(i);
      i += n - 1;
      continue;
    }
    if (inString) {
      if (c == '\\') {
        // The escaped character is skipped unless it is a byte the checks above must see.
        if (i + 1 < s.size() && s[i + 1] >= 0x20 && s[i + 1] < 0x7f) ++i;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) {
        return "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels";
      }
    } else if (c == '}' || c == ']') {
      if (--depth == 0) closed = true;
    }
  }
  return std::nullopt;
}

// Parses with the JSON parser, noting the first key that repeats within one object (the
// parser itself keeps the last, so `"side":"buy","side":"sell"` would be a sell).
json parseRejectingDuplicates(std::string_view line, std::optional<std::string>& duplicate) {
  std::vector<std::vector<std::string>> keys;  // one list per open object
  auto callback = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      keys.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!keys.empty()) keys.pop_back();
    } else if (event == json::parse_event_t::key && !keys.empty()) {
      const auto& k = parsed.get_ref<const std::string&>();
      auto& seen = keys.back();
      if (!duplicate && std::find(seen.begin(), seen.end(), k) != seen.end()) duplicate = k;
      seen.push_back(k);
    }
    return true;
  };
  return json::parse(line.begin(), line.end(), callback, /*allow_exceptions=*/false);
}

struct Reader {
  const json& j;
  ParseError& err;

  bool fail(std::string code, std::string reason) {
    err.code = std::move(code);
    err.reason = std::move(reason);
    return false;
  }
  bool onlyFields(std::initializer_list<std::string_view> allowed, std::initializer_list<std::string_view> more = {}) {
    for (const auto& [key, value] : j.items()) {
      if (key == "type" || key == "req") continue;
      bool known = false;
      for (auto a : allowed) known = known || key == a;
      for (auto a : more) known = known || key == a;
      if (!known) return fail("unknown_field", "unknown field '" + key + "'");
    }
    return true;
  }
  bool string(const char* name, std::string& out, std::size_t maxLen, bool required = true) {
    auto it = j.find(name);
    if (it == j.end()) {
      if (required) return fail("bad_field", std::string("field '") + name + "' is required");
      return true;
    }
    if (!it->is_string()) return fail("bad_field", std::string("field '") + name + "' must be a string");
    const auto& s = it->get_ref<const std::string&>();
    if (s.empty() || s.size() > maxLen) {
      return fail("bad_field",
                  std::string("field '") + name + "' must be 1 to " + std::to_string(maxLen) + " characters");
    }
    for (const char c : s) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        return fail("bad_field", std::string("field '") + name + "' may not hold control characters");
      }
    }
    out = s;
    return true;
  }
  // The JSON parser stores every non-negative integer literal as unsigned, negative ones as
  // signed and anything with a fraction, exponent or beyond 2^64 as a float.
  template <class T>
  bool unsignedNumber(const char* name, std::optional<T>& out, std::uint64_t min = 0) {
    auto it = j.find(name);
    if (it == j.end()) return true;
    if (!it->is_number_unsigned()) {
      return fail("bad_field", std::string("field '") + name + "' must be a " +
                                   (min > 0 ? "positive" : "non-negative") + " integer");
    }
    const auto v = it->get<std::uint64_t>();
    if (v < min || v > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) {
      return fail("bad_field", std::string("field '") + name + "' is out of range");
    }
    out = static_cast<T>(v);
    return true;
  }
  template <class T>
  bool positiveNumber(const char* name, std::optional<T>& out) {
    return unsignedNumber(name, out, 1);
  }
  bool problem(DeliveryProblem& out) {
    auto it = j.find("problem");
    if (it == j.end()) return true;
    auto p = it->is_string() ? parseDeliveryProblem(it->get_ref<const std::string&>()) : std::nullopt;
    if (!p) return fail("bad_field", "field 'problem' takes missing_gpus, link_degraded, power_curtailed");
    out = *p;
    return true;
  }
  template <class T>
  bool required(const char* name, T& out, std::uint64_t min = 0) {
    if (!j.contains(name)) return fail("bad_field", std::string("field '") + name + "' is required");
    std::optional<T> v;
    if (!unsignedNumber(name, v, min)) return false;
    out = *v;
    return true;
  }
  bool orderRef(OrderRef& ref) {
    if (!unsignedNumber("order_id", ref.orderId)) return false;
    if (j.contains("cl_ord_id")) {
      std::string s;
      if (!string("cl_ord_id", s, kMaxClOrdIdLength)) return false;
      ref.clOrdId = std::move(s);
    }
    if (ref.orderId.has_value() == ref.clOrdId.has_value()) {
      return fail("bad_field", "give exactly one of 'orderId' and 'clOrdId'");
    }
    return true;
  }
};

// The fields of a paged query (positions, order_history): where the page starts and its size,
// 1 to `largest`.
template <typename Id>
bool pageFields(Reader& r, const char* afterField, std::optional<Id>& after, std::optional<std::uint32_t>& limit,
                std::uint32_t largest) {
  if (!r.onlyFields({afterField, "limit"}) || !r.unsignedNumber(afterField, after) || !r.positiveNumber("limit", limit))
    return false;
  if (limit && *limit > largest) return r.fail("bad_field", "'limit' must be 1 to " + std::to_string(largest));
  return true;
}

}  // namespace

std::variant<ClientMessage, ParseError> parseClientMessageWithTree(std::string_view line) {
  ParseError err;
  if (auto shape = lineShapeError(line)) {
    err.code = "malformed";
    err.reason = std::move(*shape);
    return err;
  }
  std::optional<std::string> duplicate;
  json j = parseRejectingDuplicates(line, duplicate);
  if (j.is_discarded()) {
    err.code = "malformed";
    err.reason = "not valid JSON";
    return err;
  }
  if (duplicate) {
    err.code = "malformed";
    err.reason = "duplicate key '" + std::string(utf8Prefix(*duplicate, 64)) + "'";
    return err;
  }
  if (!j.is_object()) {
    err.code = "malformed";
    err.reason = "a message must be a JSON object";
    return err;
  }
  ClientMessage msg;
  Reader r{j, err};
  if (auto it = j.find("req"); it != j.end()) {
    if (!it->is_number_unsigned()) {
      err.code = "bad_field";
      err.reason = "field 'req' must be a non-negative integer";
      return err;
    }
    msg.req = it->get<std::uint64_t>();
    err.req = msg.req;
  }
  auto typeIt = j.find("type");
  if (typeIt == j.end() || !typeIt->is_string()) {
    err.code = "malformed";
    err.reason = "field 'type' (a string) is required";
    return err;
  }
  const std::string& type = typeIt->get_ref<const std::string&>();
  err.type = std::string(utf8Prefix(type, 32));

  bool ok = true;
  if (type == "logon") {
    Logon m;
    ok = r.onlyFields({"account", "key"}) && r.string("account", m.account, 64) && r.string("key", m.key, 256);
    msg.request = std::move(m);
  } else if (type == "logout") {
    ok = r.onlyFields({});
    msg.request = Logout{};
  } else if (type == "heartbeat") {
    ok = r.onlyFields({});
    msg.request = Heartbeat{};
  } else if (type == "new_order") {
    NewOrder m;
    // The order fields are core/engine/EventJson.h's order form (which rejects unknown
    // fields itself), minus the id, which the exchange assigns.
    if (j.contains("id")) {
      ok = r.fail("unknown_field", "field 'id' is assigned by the exchange; name orders with 'cl_ord_id'");
    } else if (j.contains("account")) {
      ok = r.fail("unknown_field", "field 'account' is the session's; it may not be given");
    } else {
      ok = r.string("cl_ord_id", m.clOrdId, kMaxClOrdIdLength);
    }
    if (ok) {
      // The parsed tree is reused as the order's fields ("type" is allowed by orderFromJson).
      j.erase("req");
      j.erase("cl_ord_id");
      j["id"] = 1;
      auto parsed = orderFromJson(j, 0);
      if (auto* e = std::get_if<JsonError>(&parsed)) {
        ok = r.fail(e->message.rfind("unknown field", 0) == 0 ? "unknown_field" : "bad_field", e->message);
      } else {
        m.order = std::get<OrderRequest>(std::move(parsed));
        m.order.id = 0;
        m.order.account = 0;
      }
    }
    msg.request = std::move(m);
  } else if (type == "cancel") {
    CancelOrder m;
    ok = r.onlyFields({"order_id", "cl_ord_id"}) && r.orderRef(m.ref);
    msg.request = std::move(m);
  } else if (type == "amend") {
    AmendOrder m;
    ok = r.onlyFields({"order_id", "cl_ord_id", "limit", "gpus"}) && r.orderRef(m.ref) &&
         r.positiveNumber("limit", m.limit) && r.positiveNumber("gpus", m.gpus);
    if (ok && !m.limit && !m.gpus) ok = r.fail("bad_field", "amend needs 'limit' and/or 'gpus'");
    msg.request = std::move(m);
  } else if (type == "mass_cancel") {
    MassCancel m;
    ok = r.onlyFields({"cluster"}) && r.unsignedNumber("cluster", m.cluster);
    msg.request = std::move(m);
  } else if (type == "order_status") {
    OrderStatusQuery m;
    ok = r.onlyFields({"order_id", "cl_ord_id"}) && r.orderRef(m.ref);
    msg.request = std::move(m);
  } else if (type == "orders") {
    ok = r.onlyFields({});
    msg.request = OrdersQuery{};
  } else if (type == "positions") {
    PositionsQuery m;
    ok = pageFields(r, "after_contract", m.after, m.limit, kPositionsPage);
    msg.request = std::move(m);
  } else if (type == "order_history") {
    OrderHistoryQuery m;
    ok = pageFields(r, "after_order", m.after, m.limit, kOrderHistoryPage);
    msg.request = std::move(m);
  } else if (type == "balance") {
    ok = r.onlyFields({});
    msg.request = BalanceQuery{};
  } else if (type == "subscribe") {
    Subscribe m;
    ok = r.onlyFields({"from_seq"}) && r.unsignedNumber("from_seq", m.fromSeq);
    msg.request = std::move(m);
  } else if (type == "unsubscribe") {
    ok = r.onlyFields({});
    msg.request = Unsubscribe{};
  } else if (type == "delivery_report") {
    DeliveryReportRequest m;
    ok = r.onlyFields({"contract", "start", "end", "usable_gpus", "problem"}) &&
         r.required("contract", m.contract, 1) && r.required("start", m.start) && r.required("end", m.end) &&
         r.required("usable_gpus", m.usableGpus) && r.problem(m.problem);
    msg.request = std::move(m);
  } else if (type == "outage") {
    OutageRequest m;
    ok = r.onlyFields({"cluster", "start", "end", "lost_gpus", "problem"}) && r.required("cluster", m.cluster, 1) &&
         r.required("start", m.start) && r.required("end", m.end) && r.required("lost_gpus", m.lostGpus) &&
         r.problem(m.problem);
    msg.request = std::move(m);
  } else if (type == "reclaim") {
    ReclaimRequest m;
    ok = r.onlyFields({"contract", "start", "end", "gpus"}) && r.required("contract", m.contract, 1) &&
         r.required("start", m.start) && r.required("end", m.end) && r.required("gpus", m.gpus);
    msg.request = std::move(m);
  } else if (type == "reclaim_rates") {
    ok = r.onlyFields({});
    msg.request = ReclaimRatesQuery{};
  } else if (type == "index_history") {
    ok = r.onlyFields({});
    msg.request = IndexHistoryQuery{};
  } else if (type == "indicative") {
    ok = r.onlyFields({});
    msg.request = IndicativeQuery{};
  } else if (isForwardType(type)) {
    auto parsed = parseForwardRequest(j, type);
    if (auto* f = std::get_if<std::pair<std::string, std::string>>(&parsed)) {
      ok = r.fail(f->first, f->second);
    } else {
      msg.request = std::get<ForwardRequest>(std::move(parsed));
    }
  } else if (isOptionType(type)) {
    auto parsed = parseOptionRequest(j, type);
    if (auto* f = std::get_if<std::pair<std::string, std::string>>(&parsed)) {
      ok = r.fail(f->first, f->second);
    } else {
      msg.request = std::get<OptionRequest>(std::move(parsed));
    }
  } else {
    err.code = "unknown_type";
    err.reason = "unknown message type '" + err.type + "'";
    return err;
  }
  if (!ok) return err;
  return msg;
}

std::variant<ClientMessage, ParseError> parseClientMessage(std::string_view line) {
  if (auto m = parseFlatMessage(line)) return std::move(*m);
  return parseClientMessageWithTree(line);
}

std::string_view typeName(const ClientRequest& r) {
  struct Names {
    std::string_view operator()(const Logon&) const { return "logon"; }
    std::string_view operator()(const Logout&) const { return "logout"; }
    std::string_view operator()(const Heartbeat&) const { return "heartbeat"; }
    std::string_view operator()(const NewOrder&) const { return "new_order"; }
    std::string_view operator()(const CancelOrder&) const { return "cancel"; }
    std::string_view operator()(const AmendOrder&) const { return "amend"; }
    std::string_view operator()(const MassCancel&) const { return "mass_cancel"; }
    std::string_view operator()(const OrderStatusQuery&) const { return "order_status"; }
    std::string_view operator()(const OrdersQuery&) const { return "orders"; }
    std::string_view operator()(const PositionsQuery&) const { return "positions"; }
    std::string_view operator()(const BalanceQuery&) const { return "balance"; }
    std::string_view operator()(const OrderHistoryQuery&) const { return "order_history"; }
    std::string_view operator()(const Subscribe&) const { return "subscribe"; }
    std::string_view operator()(const Unsubscribe&) const { return "unsubscribe"; }
    std::string_view operator()(const DeliveryReportRequest&) const { return "delivery_report"; }
    std::string_view operator()(const OutageRequest&) const { return "outage"; }
    std::string_view operator()(const ReclaimRequest&) const { return "reclaim"; }
    std::string_view operator()(const IndexHistoryQuery&) const { return "index_history"; }
    std::string_view operator()(const IndicativeQuery&) const { return "indicative"; }
    std::string_view operator()(const ReclaimRatesQuery&) const { return "reclaim_rates"; }
    std::string_view operator()(const ForwardRequest& f) const {
      struct Forward {
        std::string_view operator()(const ForwardNewOrder&) const { return "forward_order"; }
        std::string_view operator()(const ForwardCancelOrder&) const { return "forward_cancel"; }
        std::string_view operator()(const ForwardOrdersQuery&) const { return "forward_orders"; }
        std::string_view operator()(const ForwardPositionsQuery&) const { return "forward_positions"; }
        std::string_view operator()(const ForwardBookQuery&) const { return "forward_book"; }
      };
      return std::visit(Forward{}, f.what);
    }
    std::string_view operator()(const OptionRequest& o) const { return optionRequestName(o); }
  };
  return std::visit(Names{}, r);
}

}  // namespace tessera::net
