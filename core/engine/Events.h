#pragma once
// The engine's input and output events. The engine is a pure function from a sequence of
// InputEvents to a sequence of Events: same input, same output, byte for byte.
#include "core/domain/Cluster.h"
#include "core/domain/Order.h"

#include <string>
#include <string_view>
#include <variant>

namespace tessera {

using InputEvent = std::variant<Cluster, CapacityGrant, OrderRequest, CancelRequest, AmendRequest, ClockAdvance,
                                CapacityTransfer, CapacityReclaim>;

enum class RejectReason : std::uint8_t {
  Malformed,  // the input could not be read (set by parsers, never by the engine)
  UnknownCluster,
  DuplicateCluster,
  InvalidCluster,
  DuplicateOrderId,
  UnknownOrder,
  NotYourOrder,
  InvalidGpuCount,
  InvalidWindow,
  WindowInPast,
  InvalidPrice,
  InvalidTimeInForce,
  Unsupported,  // a combination the market does not trade (e.g. an all-or-none sell)
  NoMatchingCluster,
  InsufficientHoldings,  // selling GPU-hours the account neither owns nor holds
  UnknownContract,
  ExceedsClusterSize,
  PostOnlyWouldTrade,
  NothingToAmend,
  InvalidTerms,      // offer terms out of range, or terms on a buy order
  InsufficientCash,  // the bid's reservation exceeds spendable cash (set by the exchange's risk
                     // check and the backtest's replay, never by the engine)
  CapacityMismatch,  // a firm order on an interruptible cluster, or an interruptible one on a firm cluster
};

enum class CancelReason : std::uint8_t {
  User,               // cancel request
  ImmediateOrCancel,  // IOC remainder
  FillOrKill,         // FOK could not fill completely
  SelfTrade,          // self-trade prevention
  Expired,            // GTD reached, or delivery hours passed
};

std::string_view toString(RejectReason r);
std::string_view toString(CancelReason r);

// A contract: the right to use `gpus` GPUs on `cluster` for every hour of [start, end).
struct Contract {
  ContractId id = 0;
  TradeId trade = 0;
  AccountId buyer = 0;
  AccountId seller = 0;
  OrderId buyOrder = 0;
  OrderId sellOrder = 0;
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  Price price = 0;          // per GPU-hour
  OfferTerms terms;         // the sell order's
  ContractId replaces = 0;  // a replacement (CapacityTransfer): the failed contract it makes good
  Money notional() const { return price * gpus * (end - start); }
  bool operator==(const Contract&) const = default;
};

struct ClusterAdded {
  ClusterId cluster = 0;
  bool operator==(const ClusterAdded&) const = default;
};

struct CapacityAdded {
  CapacityGrant grant;
  bool operator==(const CapacityAdded&) const = default;
};

struct OrderAccepted {
  OrderId order = 0;
  AccountId account = 0;
  bool operator==(const OrderAccepted&) const = default;
};

// A rejected input. `order` is 0 for inputs that are not about an order.
struct OrderRejected {
  OrderId order = 0;
  AccountId account = 0;
  RejectReason reason = RejectReason::Malformed;
  std::string detail;
  bool operator==(const OrderRejected&) const = default;
};

// One side of a trade. Every trade produces two Fills (buy side first) and one ContractCreated.
struct Fill {
  TradeId trade = 0;
  ContractId contract = 0;
  OrderId order = 0;
  AccountId account = 0;
  Side side = Side::Buy;
  bool aggressor = false;  // this side was the incoming order
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  Price price = 0;
  std::int64_t leavesGpuHours = 0;  // what is still working on this order after the fill
  bool operator==(const Fill&) const = default;
};

struct ContractCreated {
  Contract contract;
  bool operator==(const ContractCreated&) const = default;
};

struct OrderCancelled {
  OrderId order = 0;
  AccountId account = 0;
  CancelReason reason = CancelReason::User;
  std::int64_t cancelledGpuHours = 0;
  std::int64_t leavesGpuHours = 0;  // > 0 only when expiry removed past hours of a live order
  bool operator==(const OrderCancelled&) const = default;
};

struct OrderAmended {
  OrderId order = 0;
  AccountId account = 0;
  Price limit = 0;
  GpuCount gpus = 0;
  bool priorityKept = false;
  bool operator==(const OrderAmended&) const = default;
};

struct ClockAdvanced {
  Hour now = 0;
  bool operator==(const ClockAdvanced&) const = default;
};

using Event = std::variant<ClusterAdded, CapacityAdded, OrderAccepted, OrderRejected, Fill, ContractCreated,
                           OrderCancelled, OrderAmended, ClockAdvanced>;

}  // namespace tessera
