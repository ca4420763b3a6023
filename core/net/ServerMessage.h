#pragma once
// The server-to-client half of the protocol (docs/protocol.md): builders of single lines, each
// a JSON object followed by '\n'. Built by hand because they are on the acknowledgement path;
// every string that did not come from a fixed vocabulary goes through jsonString().
#include "core/engine/Events.h"
#include "core/engine/Matcher.h"
#include "core/net/BookMirror.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/PriceIndex.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tessera::net {

std::string jsonString(std::string_view s);  // a quoted, escaped JSON string
// ,"req":N when the request carried an id (every reply ends with it).
void appendReq(std::string& out, std::optional<std::uint64_t> req);

void appendError(std::string& out, std::string_view code, std::string_view reason, std::string_view reqType,
                 std::optional<std::uint64_t> req);
// A logon refused before its key was checked: too many failures for the account or address.
void appendThrottled(std::string& out, std::int64_t retryAfterMs, std::optional<std::uint64_t> req);
void appendAccepted(std::string& out, OrderId id, std::string_view clOrdId);
void appendRejected(std::string& out, std::string_view clOrdId, std::string_view code, std::string_view reason);
// `call`: the number of the call that made the fill (0: continuous trading), written as
// "call" so a client tells a call's fill (no aggressor) from a passive one.
void appendFill(std::string& out, const Fill& f, std::string_view clOrdId, std::uint64_t call = 0);
void appendCancelled(std::string& out, const OrderCancelled& c, std::string_view clOrdId);
void appendAmended(std::string& out, const OrderAmended& a, std::string_view clOrdId);
struct BalanceFigures {
  Money cash = 0;
  Money reserved = 0;
  Money escrow = 0;
  Money credits = 0;
};
void appendBalance(std::string& out, const BalanceFigures& b, std::optional<std::uint64_t> req);
void appendSettlement(std::string& out, const SettlementEvent& e, Hour now);

// One published value of the price index, as in md_index, md_snapshot and index_history.
struct IndexPublication {
  Accelerator accelerator = Accelerator::H100;
  Tenor tenor = Tenor::NextDay;
  Hour asOf = 0;
  IndexValue value;
};
void appendIndexFields(std::string& out, const IndexPublication& p);               // ,"accelerator":...
void appendIndexObject(std::string& out, const IndexPublication& p);               // {"accelerator":...}
void appendIndex(std::string& out, std::uint64_t seq, const IndexPublication& p);  // md_index line
// A cell's levels as a JSON array of [price, gpus, orders] (with a 4th element, the terms, on
// levels whose first order has other than the default terms).
void appendLevels(std::string& out, const std::vector<BookLevel>& levels);

void appendCell(std::string& out, std::uint64_t seq, const BookCell& cell);
// `call` nonzero: a call's trade, with "aggressor":"none" and the call's number.
void appendTrade(std::string& out, std::uint64_t seq, const Fill& buySide, Side aggressor, std::uint64_t call = 0);
void appendClock(std::string& out, std::uint64_t seq, Hour now);

std::string_view codeOf(RejectReason r);  // snake_case wire code, e.g. "insufficient_holdings"
std::string_view codeOf(CancelReason r);

}  // namespace tessera::net
