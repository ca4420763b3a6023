#include "core/net/ServerMessage.h"

#include "core/engine/EventJson.h"
#include "core/net/Utf8.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace tessera::net {
namespace {

void appendInt(std::string& out, std::int64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, p);
}
void appendUInt(std::string& out, std::uint64_t v) {
  char buf[24];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, p);
}
void field(std::string& out, std::string_view name, std::int64_t v) {
  out += ",\"";
  out += name;
  out += "\":";
  appendInt(out, v);
}
void fieldU(std::string& out, std::string_view name, std::uint64_t v) {
  out += ",\"";
  out += name;
  out += "\":";
  appendUInt(out, v);
}
void fieldS(std::string& out, std::string_view name, std::string_view v) {
  out += ",\"";
  out += name;
  out += "\":";
  out += jsonString(v);
}
std::string_view sideName(Side s) { return s == Side::Buy ? "buy" : "sell"; }

}  // namespace

std::string jsonString(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      // Well-formed UTF-8 goes out as it came in. The parser refuses anything else, but a
      // string from elsewhere (or cut short) must still make a line the other end can parse:
      // a stray byte becomes U+FFFD.
      const std::size_t n = utf8SequenceLength(s, i);
      if (n == 0) {
        out += "\\ufffd";
        ++i;
      } else {
        out.append(s.substr(i, n));
        i += n;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  out.push_back('"');
  return out;
}

void appendReq(std::string& out, std::optional<std::uint64_t> req) {
  if (req) {
    out += ",\"req\":";
    out += std::to_string(*req);
  }
}

void appendError(std::string& out, std::string_view code, std::string_view reason, std::string_view reqType,
                 std::optional<std::uint64_t> req) {
  out += "{\"type\":\"error\"";
  fieldS(out, "code", code);
  fieldS(out, "reason", reason);
  if (!reqType.empty()) fieldS(out, "req_type", reqType);
  if (req) fieldU(out, "req", *req);
  out += "}\n";
}

void appendThrottled(std::string& out, std::int64_t retryAfterMs, std::optional<std::uint64_t> req) {
  out += "{\"type\":\"error\",\"code\":\"auth_throttled\"";
  fieldS(out, "reason",
         "too many failed logons for this account or address; retry after " + std::to_string(retryAfterMs) + " ms");
  out += ",\"req_type\":\"logon\"";
  field(out, "retry_after_ms", retryAfterMs);
  if (req) fieldU(out, "req", *req);
  out += "}\n";
}

void appendAccepted(std::string& out, OrderId id, std::string_view clOrdId) {
  out += "{\"type\":\"exec\",\"state\":\"accepted\"";
  fieldU(out, "order_id", id);
  fieldS(out, "cl_ord_id", clOrdId);
  out += "}\n";
}

void appendRejected(std::string& out, std::string_view clOrdId, std::string_view code, std::string_view reason) {
  out += "{\"type\":\"exec\",\"state\":\"rejected\"";
  fieldS(out, "cl_ord_id", clOrdId);
  fieldS(out, "code", code);
  fieldS(out, "reason", reason);
  out += "}\n";
}

void appendFill(std::string& out, const Fill& f, std::string_view clOrdId, std::uint64_t call) {
  out += "{\"type\":\"exec\",\"state\":\"";
  out += f.leavesGpuHours == 0 ? "filled" : "partially_filled";
  out += '"';
  fieldU(out, "order_id", f.order);
  fieldS(out, "cl_ord_id", clOrdId);
  fieldU(out, "trade", f.trade);
  fieldU(out, "contract", f.contract);
  out += ",\"side\":\"";
  out += sideName(f.side);
  out += "\",\"aggressor\":";
  out += f.aggressor ? "true" : "false";
  fieldU(out, "cluster", f.cluster);
  field(out, "gpus", f.gpus);
  field(out, "start", f.start);
  field(out, "end", f.end);
  field(out, "price", f.price);
  field(out, "leaves_gpu_hours", f.leavesGpuHours);
  if (call) fieldU(out, "call", call);
  out += "}\n";
}

void appendCancelled(std::string& out, const OrderCancelled& c, std::string_view clOrdId) {
  out += "{\"type\":\"exec\",\"state\":\"cancelled\"";
  fieldU(out, "order_id", c.order);
  fieldS(out, "cl_ord_id", clOrdId);
  fieldS(out, "code", codeOf(c.reason));
  field(out, "cancelled_gpu_hours", c.cancelledGpuHours);
  field(out, "leaves_gpu_hours", c.leavesGpuHours);
  out += "}\n";
}

void appendAmended(std::string& out, const OrderAmended& a, std::string_view clOrdId) {
  out += "{\"type\":\"exec\",\"state\":\"amended\"";
  fieldU(out, "order_id", a.order);
  fieldS(out, "cl_ord_id", clOrdId);
  field(out, "limit", a.limit);
  field(out, "gpus", a.gpus);
  out += ",\"priority_kept\":";
  out += a.priorityKept ? "true" : "false";
  out += "}\n";
}

void appendBalance(std::string& out, const BalanceFigures& b, std::optional<std::uint64_t> req) {
  out += "{\"type\":\"balance\"";
  field(out, "cash", b.cash);
  field(out, "reserved", b.reserved);
  field(out, "available", b.cash - b.reserved);
  field(out, "escrow", b.escrow);
  field(out, "credits", b.credits);
  if (req) fieldU(out, "req", *req);
  out += "}\n";
}

void appendSettlement(std::string& out, const SettlementEvent& e, Hour now) {
  out += "{\"type\":\"settlement\"";
  fieldU(out, "contract", e.contract);
  fieldS(out, "state", toString(e.state));
  fieldS(out, "what", e.what);
  field(out, "now", now);
  out += "}\n";
}

void appendIndexFields(std::string& out, const IndexPublication& p) {
  fieldS(out, "accelerator", toString(p.accelerator));
  fieldS(out, "tenor", toString(p.tenor));
  field(out, "as_of", p.asOf);
  field(out, "price", p.value.price);
  field(out, "gpu_hours", p.value.gpuHours);
  field(out, "trades", p.value.trades);
  out += p.value.stale ? ",\"stale\":true" : ",\"stale\":false";
}

void appendIndexObject(std::string& out, const IndexPublication& p) {
  std::string fields;
  appendIndexFields(fields, p);
  out += '{';
  out.append(fields, 1);  // without the leading comma
  out += '}';
}

void appendIndex(std::string& out, std::uint64_t seq, const IndexPublication& p) {
  out += "{\"type\":\"md_index\"";
  fieldU(out, "seq", seq);
  appendIndexFields(out, p);
  out += "}\n";
}

void appendLevels(std::string& out, const std::vector<BookLevel>& levels) {
  out += '[';
  bool first = true;
  for (const BookLevel& l : levels) {
    if (!first) out += ',';
    first = false;
    out += '[';
    appendInt(out, l.price);
    out += ',';
    appendInt(out, l.gpus);
    out += ',';
    appendInt(out, l.orders);
    if (l.terms != OfferTerms{}) {
      out += ',';
      out += toJson(l.terms).dump();
    }
    out += ']';
  }
  out += ']';
}

void appendCell(std::string& out, std::uint64_t seq, const BookCell& cell) {
  out += "{\"type\":\"md_cell\"";
  fieldU(out, "seq", seq);
  fieldU(out, "cluster", cell.key.cluster);
  field(out, "hour", cell.key.hour);
  out += ",\"side\":\"";
  out += sideName(cell.key.side);
  out += "\",\"levels\":";
  appendLevels(out, cell.levels);
  out += "}\n";
}

void appendTrade(std::string& out, std::uint64_t seq, const Fill& f, Side aggressor, std::uint64_t call) {
  out += "{\"type\":\"trade\"";
  fieldU(out, "seq", seq);
  fieldU(out, "trade", f.trade);
  fieldU(out, "cluster", f.cluster);
  field(out, "gpus", f.gpus);
  field(out, "start", f.start);
  field(out, "end", f.end);
  field(out, "price", f.price);
  out += ",\"aggressor\":\"";
  out += call ? std::string_view("none") : sideName(aggressor);
  out += '"';
  if (call) fieldU(out, "call", call);
  out += "}\n";
}

void appendClock(std::string& out, std::uint64_t seq, Hour now) {
  out += "{\"type\":\"md_clock\"";
  fieldU(out, "seq", seq);
  field(out, "now", now);
  out += "}\n";
}

// The engine's own names (core/engine/EventJson.cpp), so a reason added there needs nothing here.
std::string_view codeOf(RejectReason r) { return toString(r); }

std::string_view codeOf(CancelReason r) {
  switch (r) {
    case CancelReason::User: return "user";
    case CancelReason::ImmediateOrCancel: return "immediate_or_cancel";
    case CancelReason::FillOrKill: return "fill_or_kill";
    case CancelReason::SelfTrade: return "self_trade";
    case CancelReason::Expired: return "expired";
  }
  return "unknown";
}

}  // namespace tessera::net
