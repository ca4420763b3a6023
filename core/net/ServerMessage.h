#pragma once
// The server-to-client half of the protocol (docs/protocol.md): builders of single lines, each
// a JSON object followed by '\n'. Built by hand because they are on the acknowledgement path;
// every string that did not come from a fixed vocabulary goes through jsonString().
#include "core/engine/Events.h"
#include "core/engine/Matcher.h"
#include "core/net/BookMirror.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::net {

std::string jsonString(std::string_view s);  // a quoted, escaped JSON string

void appendError(std::string& out, std::string_view code, std::string_view reason,
                 std::string_view reqType, std::optional<std::uint64_t> req);
void appendAccepted(std::string& out, OrderId id, std::string_view clOrdId);
void appendRejected(std::string& out, std::string_view clOrdId, std::string_view code,
                    std::string_view reason);
void appendFill(std::string& out, const Fill& f, std::string_view clOrdId);
void appendCancelled(std::string& out, const OrderCancelled& c, std::string_view clOrdId);
void appendAmended(std::string& out, const OrderAmended& a, std::string_view clOrdId);
void appendBalance(std::string& out, Money cash, Money reserved, std::optional<std::uint64_t> req);

void appendCell(std::string& out, std::uint64_t seq, const BookCell& cell);
void appendTrade(std::string& out, std::uint64_t seq, const Fill& buySide, Side aggressor);
void appendClock(std::string& out, std::uint64_t seq, Hour now);

std::string_view codeOf(RejectReason r);  // snake_case wire code, e.g. "insufficient_holdings"
std::string_view codeOf(CancelReason r);

}  // namespace tessera::net
