#pragma once
// The client-to-server half of the protocol (docs/protocol.md): one JSON object per line,
// parsed into typed requests. This is the surface exposed to the network, so it is fuzzed
// (tests/net/fuzz_message_parser.cpp) and must turn every input into a request or an error.
#include "core/domain/Order.h"
#include "core/net/ForwardDesk.h"
#include "core/net/OptionDesk.h"
#include "core/settlement/ContractSettlement.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace tessera::net {

// An order named either by the exchange's id or by the client's own id.
struct OrderRef {
  std::optional<OrderId> orderId;
  std::optional<std::string> clOrdId;
};

// What the server found of a logon's key (LogonGate.h). The parser always leaves it
// Unchecked; only the server sets it, and ExchangeCore logs on Verified logons only.
enum class LogonCheck { Unchecked, Verified, Refused, Throttled };
struct Logon {
  std::string account;
  std::string key;
  LogonCheck check = LogonCheck::Unchecked;
  std::int64_t retryAfterMs = 0;  // Throttled: when the client may try again
};
struct Logout {};
struct Heartbeat {};
struct NewOrder {
  std::string clOrdId;
  OrderRequest order;
};  // order.id/account unset
struct CancelOrder {
  OrderRef ref;
};
struct AmendOrder {
  OrderRef ref;
  std::optional<Price> limit;
  std::optional<GpuCount> gpus;
};
struct MassCancel {
  std::optional<ClusterId> cluster;
};
struct OrderStatusQuery {
  OrderRef ref;
};
struct OrdersQuery {};
// Contracts come in pages of at most `limit` (kPositionsPage when not given), in contract id
// order from just after `after`: one reply never grows with an account's whole history.
struct PositionsQuery {
  std::optional<ContractId> after;
  std::optional<std::uint32_t> limit;
};
inline constexpr std::uint32_t kPositionsPage = 2000;
// The account's finished orders (filled, cancelled, expired), in order id order from just after
// `after`, in pages of at most `limit` (kOrderHistoryPage when not given).
struct OrderHistoryQuery {
  std::optional<OrderId> after;
  std::optional<std::uint32_t> limit;
};
inline constexpr std::uint32_t kOrderHistoryPage = 2000;
struct BalanceQuery {};
// Market data: a snapshot, or (with fromSeq) the messages from fromSeq on if still kept.
struct Subscribe {
  std::optional<std::uint64_t> fromSeq;
};
struct Unsubscribe {};
// A provider's report on one of its contracts (docs/settlement.md "Delivery reports").
struct DeliveryReportRequest {
  ContractId contract = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount usableGpus = 0;
  DeliveryProblem problem = DeliveryProblem::MissingGpus;
};
// A provider's report on one of its clusters, spread over its contracts there.
struct OutageRequest {
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount lostGpus = 0;
  DeliveryProblem problem = DeliveryProblem::MissingGpus;
};
// A provider takes back `gpus` GPUs of one of its interruptible contracts for hours
// [start, end), at least the cluster's notice ahead (docs/protocol.md, "Interruptible capacity").
struct ReclaimRequest {
  ContractId contract = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
};
struct IndexHistoryQuery {};
// The call mode's indicative clearing: what the next call would clear if it ran now.
struct IndicativeQuery {};
// The observed reclaim rate of each interruptible cluster (docs/protocol.md, "Interruptible capacity").
struct ReclaimRatesQuery {};

using ClientRequest =
    std::variant<Logon, Logout, Heartbeat, NewOrder, CancelOrder, AmendOrder, MassCancel, OrderStatusQuery, OrdersQuery,
                 PositionsQuery, BalanceQuery, Subscribe, Unsubscribe, DeliveryReportRequest, OutageRequest,
                 IndexHistoryQuery, ForwardRequest, OrderHistoryQuery, OptionRequest, ReclaimRequest, IndicativeQuery,
                 ReclaimRatesQuery>;

struct ClientMessage {
  ClientRequest request;
  std::optional<std::uint64_t> req;  // the client's request number, echoed in the reply
};

struct ParseError {
  std::string code;    // "malformed", "unknown_type", "unknown_field", "bad_field"
  std::string reason;  // for a person
  std::string type;    // the message type, when it could be read
  std::optional<std::uint64_t> req;
};

inline constexpr std::size_t kMaxClOrdIdLength = 64;
inline constexpr int kMaxJsonDepth = 8;

std::variant<ClientMessage, ParseError> parseClientMessage(std::string_view line);
// The same, through the JSON tree parser alone. parseClientMessage reads the hot messages with
// a faster parser first (FlatMessageParser.h), which is tested against this one.
std::variant<ClientMessage, ParseError> parseClientMessageWithTree(std::string_view line);

std::string_view typeName(const ClientRequest& r);

}  // namespace tessera::net
