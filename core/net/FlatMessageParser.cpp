#include "core/net/FlatMessageParser.h"

#include "core/engine/EventJson.h"

#include <array>
#include <cstdint>
#include <limits>

namespace tessera::net {
namespace {

struct Value {
  enum class Kind { String, Integer, Boolean } kind = Kind::String;
  std::string_view text;  // String
  std::int64_t integer = 0;
  bool boolean = false;
};

struct Field {
  std::string_view key;
  Value value;
};

// More fields than any flat new_order may have: a longer object is not for this parser.
constexpr std::size_t kMaxFields = 16;

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  // One JSON object of plain members; false for anything it does not handle.
  bool object(std::array<Field, kMaxFields>& fields, std::size_t& count) {
    count = 0;
    space();
    if (!take('{')) return false;
    space();
    if (take('}')) return end();
    for (;;) {
      if (count == fields.size()) return false;
      Field& f = fields[count];
      if (!string(f.key)) return false;
      for (std::size_t i = 0; i < count; ++i)
        if (fields[i].key == f.key) return false;  // the tree parser words the error
      space();
      if (!take(':')) return false;
      space();
      if (!value(f.value)) return false;
      ++count;
      space();
      if (take(',')) {
        space();
        continue;
      }
      return take('}') && end();
    }
  }

 private:
  bool end() {
    space();
    return i_ == s_.size();
  }
  // Spaces only: a line holds no control characters, tabs included (the tree parser refuses them).
  void space() {
    while (i_ < s_.size() && s_[i_] == ' ') ++i_;
  }
  bool take(char c) {
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // Printable ASCII only, no escapes: then the bytes are the string.
  bool string(std::string_view& out) {
    if (!take('"')) return false;
    const std::size_t from = i_;
    while (i_ < s_.size()) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        out = s_.substr(from, i_ - from);
        ++i_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x7f) return false;
      ++i_;
    }
    return false;
  }
  bool value(Value& v) {
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '"') {
      v.kind = Value::Kind::String;
      return string(v.text);
    }
    if (c == 't' || c == 'f') {
      const std::string_view word = c == 't' ? "true" : "false";
      if (s_.substr(i_, word.size()) != word) return false;
      i_ += word.size();
      v.kind = Value::Kind::Boolean;
      v.boolean = c == 't';
      return true;
    }
    return integer(v);
  }
  // JSON integers of up to 18 digits (always within int64); no "-0", no leading zeros, no
  // fraction or exponent.
  bool integer(Value& v) {
    const bool negative = take('-');
    const std::size_t from = i_;
    std::int64_t x = 0;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
      if (i_ - from == 18) return false;  // a 19th digit could overflow: the tree parser's
      x = x * 10 + (s_[i_] - '0');
      ++i_;
    }
    const std::size_t digits = i_ - from;
    if (digits == 0) return false;
    if (digits > 1 && s_[from] == '0') return false;
    if (negative && x == 0) return false;
    if (i_ < s_.size() && (s_[i_] == '.' || s_[i_] == 'e' || s_[i_] == 'E')) return false;
    v.kind = Value::Kind::Integer;
    v.integer = negative ? -x : x;
    return true;
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

bool integerIn(const Value& v, std::int64_t lo, std::int64_t hi, std::int64_t& out) {
  if (v.kind != Value::Kind::Integer || v.integer < lo || v.integer > hi) return false;
  out = v.integer;
  return true;
}

template <typename E, std::size_t N>
bool enumValue(const Value& v, const std::array<E, N>& values, E& out) {
  if (v.kind != Value::Kind::String) return false;
  for (E e : values) {
    if (toString(e) == v.text) {
      out = e;
      return true;
    }
  }
  return false;
}

bool clOrdId(const Value& v, std::string& out) {
  if (v.kind != Value::Kind::String || v.text.empty() || v.text.size() > kMaxClOrdIdLength) return false;
  out = std::string(v.text);
  return true;
}

// The ranges are the tree parser's (core/engine/EventJson.h).
constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

bool newOrder(const std::array<Field, kMaxFields>& fields, std::size_t count, NewOrder& m) {
  OrderRequest& o = m.order;
  bool side = false, gpus = false, start = false, end = false, limit = false, id = false;
  std::int64_t x = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view k = fields[i].key;
    const Value& v = fields[i].value;
    bool ok = true;
    if (k == "type" || k == "req") {
      continue;
    } else if (k == "cl_ord_id") {
      ok = id = clOrdId(v, m.clOrdId);
    } else if (k == "side") {
      ok = side = enumValue(v, std::array{Side::Buy, Side::Sell}, o.side);
    } else if (k == "cluster") {
      ok = integerIn(v, 0, 0xffffffffLL, x);
      o.cluster = static_cast<ClusterId>(x);
    } else if (k == "gpus") {
      ok = gpus = integerIn(v, kInt32Min, kInt32Max, x);
      o.gpus = static_cast<GpuCount>(x);
    } else if (k == "start") {
      ok = start = integerIn(v, -kJsonMaxHour, kJsonMaxHour, o.start);
    } else if (k == "end") {
      ok = end = integerIn(v, -kJsonMaxHour, kJsonMaxHour, o.end);
    } else if (k == "duration") {
      ok = integerIn(v, -kJsonMaxHour, kJsonMaxHour, x);
      o.duration = x;
    } else if (k == "limit") {
      ok = limit = integerIn(v, kJsonMinMoney, kJsonMaxMoney, o.limit);
    } else if (k == "fill") {
      ok = enumValue(v, std::array{FillStyle::AllOrNone, FillStyle::Divisible}, o.fill);
    } else if (k == "tif") {
      ok = enumValue(v, std::array{TimeInForce::GTC, TimeInForce::GTD, TimeInForce::IOC, TimeInForce::FOK}, o.tif);
    } else if (k == "expire_at") {
      ok = integerIn(v, -kJsonMaxHour, kJsonMaxHour, x);
      o.expireAt = x;
    } else if (k == "post_only") {
      ok = v.kind == Value::Kind::Boolean;
      o.postOnly = v.boolean;
    } else if (k == "stp") {
      ok = enumValue(v, std::array{SelfTradePrevention::CancelIncoming, SelfTradePrevention::CancelResting}, o.stp);
    } else if (k == "sell_back") {
      ok = integerIn(v, 0, kJsonMaxId, x);
      o.sellBack = static_cast<ContractId>(x);
    } else {
      return false;  // constraints, terms, limit_usd, ...: the tree parser's
    }
    if (!ok) return false;
  }
  return side && gpus && start && end && limit && id;
}

bool cancel(const std::array<Field, kMaxFields>& fields, std::size_t count, CancelOrder& m) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::string_view k = fields[i].key;
    const Value& v = fields[i].value;
    if (k == "type" || k == "req") continue;
    if (k == "order_id") {
      if (v.kind != Value::Kind::Integer || v.integer < 0) return false;
      m.ref.orderId = static_cast<OrderId>(v.integer);
    } else if (k == "cl_ord_id") {
      std::string s;
      if (!clOrdId(v, s)) return false;
      m.ref.clOrdId = std::move(s);
    } else {
      return false;
    }
  }
  return m.ref.orderId.has_value() != m.ref.clOrdId.has_value();
}

}  // namespace

std::optional<ClientMessage> parseFlatMessage(std::string_view line) {
  std::array<Field, kMaxFields> fields;
  std::size_t count = 0;
  if (!Scanner(line).object(fields, count)) return std::nullopt;
  const Value* type = nullptr;
  ClientMessage msg;
  for (std::size_t i = 0; i < count; ++i) {
    if (fields[i].key == "type") type = &fields[i].value;
    if (fields[i].key == "req") {
      if (fields[i].value.kind != Value::Kind::Integer || fields[i].value.integer < 0) return std::nullopt;
      msg.req = static_cast<std::uint64_t>(fields[i].value.integer);
    }
  }
  if (!type || type->kind != Value::Kind::String) return std::nullopt;
  if (type->text == "new_order") {
    NewOrder m;
    if (!newOrder(fields, count, m)) return std::nullopt;
    msg.request = std::move(m);
  } else if (type->text == "cancel") {
    CancelOrder m;
    if (!cancel(fields, count, m)) return std::nullopt;
    msg.request = std::move(m);
  } else {
    return std::nullopt;
  }
  return msg;
}

}  // namespace tessera::net
