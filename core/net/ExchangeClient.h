#pragma once
// The asynchronous client the terminal (and tessera-cli --connect) uses to trade against a
// tessera-exchange. It runs its own io thread; every callback is invoked on that thread, so a
// GUI must hop to its own thread (e.g. a queued signal) before touching widgets.
#include "core/net/BookMirror.h"
#include "core/net/CallReport.h"
#include "core/net/ForwardDesk.h"
#include "core/net/ForwardViews.h"
#include "core/net/OptionViews.h"
#include "core/net/ReclaimRate.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/PriceIndex.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::net {

enum class ConnectionState {
  Connecting,    // resolving / connecting / logging on
  LoggedOn,      // logged on; market data may still be synchronising
  Disconnected,  // lost the connection; will reconnect after a backoff
  AuthFailed,    // the exchange refused the credentials; no further attempts
  Stopped,       // stop() was called
};

enum class OrderState { Accepted, Rejected, PartiallyFilled, Filled, Cancelled, Amended };

struct OrderUpdate {
  OrderState state = OrderState::Accepted;
  std::string clOrdId;
  OrderId orderId = 0;  // 0 for an order rejected before the exchange numbered it
  std::string code;     // Rejected/Cancelled: machine-readable reason
  std::string reason;   // Rejected: for a person
  // Fills
  TradeId trade = 0;
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  Price price = 0;
  std::int64_t leavesGpuHours = 0;
  bool aggressor = false;  // a fill: this account's order was the incoming one (it took liquidity)
  std::uint64_t call = 0;  // a fill made by that call (then nobody took liquidity); 0: continuous
  // Amended
  Price limit = 0;
};

struct Trade {
  std::uint64_t seq = 0;
  TradeId trade = 0;
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  Price price = 0;
  std::optional<Side> aggressor;  // the incoming order's side; none: a call's trade
  std::uint64_t call = 0;         // the call that made the trade (0: continuous trading)
};

struct Balance {
  Money cash = 0;
  Money reserved = 0;  // held for resting bids
  Money escrow = 0;    // paid into escrow for contracted GPU-hours not yet delivered
  Money credits = 0;   // uptime credits received, cumulative
  Money available() const { return cash - reserved; }
};

// One step of a contract's settlement, sent to both parties (docs/protocol.md "settlement").
struct SettlementNotice {
  ContractId contract = 0;
  std::string state;  // pending_start, delivering, completed, partly_delivered, failed, settled
  std::string what;   // for the blotter: "paid provider $12.00 for 8 GPU-hours", ...
  Hour now = 0;
};

// Settlement status of one of the account's contracts, from the positions reply.
struct ContractStatus {
  ContractId contract = 0;
  std::string state;
  std::int64_t deliveredGpuHours = 0;
  Money escrow = 0;
  ContractId replaces = 0;  // a replacement contract: the contract whose hours it took over
  bool aggressor = false;   // the account's order was the incoming one of the contract's trade
  // Bought contracts: hours whose GPUs were reported missing and not replaced (core/net LostHours).
  std::vector<ContractSettlement::LostRun> lost;
  // Either side of an interruptible contract: GPUs its provider took back (and refunded).
  std::vector<ContractSettlement::LostRun> reclaimed;
  bool inCall = false;  // made by a call: nobody took liquidity (aggressor false on both sides)
};

// In the contracts of onPositions the logged-on account is this id, as buyer or seller (the
// exchange says which side it is on; a replacement contract has no buy order but a buyer), and
// the other party, not disclosed, is 0.
inline constexpr AccountId kOwnAccount = 1;

// The exchange's answer to an order_status query (docs/protocol.md "Queries").
struct OrderStatusReply {
  OrderId orderId = 0;
  std::string clOrdId;
  std::string status;  // working, filled, cancelled
  std::int64_t filledGpuHours = 0;
  std::int64_t leavesGpuHours = 0;
  OrderRequest order;  // as accepted, after amends
};

struct WorkingOrder {
  std::string clOrdId;
  OrderId orderId = 0;
  OrderRequest request;  // as accepted, after amends; request.id is the exchange's order id
  std::int64_t filledGpuHours = 0;
  std::int64_t leavesGpuHours = 0;
};

// A failed request that was not an order (bad cancel, not logged on, rate limit...).
struct RequestError {
  std::string code;
  std::string reason;
  std::string requestType;
};

struct ClientOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 7400;
  std::string account;
  std::string key;
  bool marketData = true;  // subscribe to the book and trades tape
  std::chrono::milliseconds backoffMin{100};
  std::chrono::milliseconds backoffMax{5000};
  std::chrono::seconds heartbeat{5};
  // TLS: the exchange's certificate is verified against `caFile` (PEM; empty: the system's
  // trusted roots) and must name `host`. A tessera-exchange listening anywhere but on loopback
  // speaks only TLS.
  bool tls = false;
  std::string caFile;  // implies tls
};

struct ClientCallbacks {
  std::function<void(ConnectionState, const std::string& detail)> onConnection;
  // Cells that changed (after a snapshot: all of them). Read more with ExchangeClient::book().
  std::function<void(const std::vector<BookCell>& changed, bool snapshot)> onBook;
  std::function<void(const Trade&)> onTrade;
  std::function<void(const OrderUpdate&)> onOrder;
  std::function<void(const Balance&)> onBalance;
  std::function<void(const std::vector<WorkingOrder>&)> onOrders;
  std::function<void(const std::vector<Contract>&)> onPositions;
  std::function<void(const RequestError&)> onError;
  std::function<void(Hour now)> onClock;
  std::function<void(const SettlementNotice&)> onSettlement;
  // The index history after logon (the last 30 days of hourly values, oldest first), then every
  // live update as it is published.
  std::function<void(const std::vector<IndexPoint>&)> onIndex;
  // The reply to requestReclaimRates: every interruptible cluster.
  std::function<void(const std::vector<ReclaimRate>&)> onReclaimRates;
  // With every positions reply, the settlement status of the same contracts.
  std::function<void(const std::vector<ContractStatus>&)> onContractStatus;
  // The reply to requestOrderStatus (an unknown order comes through onError, "unknown_order").
  std::function<void(const OrderStatusReply&)> onOrderStatus;
  // The reply to requestOrderHistory: every finished order of the account, oldest first.
  std::function<void(const std::vector<OrderStatusReply>&)> onOrderHistory;
  // A delivery report, outage or reclaim was accepted (journaled): "delivery_report_ack" /
  // "outage_ack" / "reclaim_ack".
  std::function<void(const std::string& ackType)> onReportAck;
  // Index forwards (docs/protocol.md "Forwards"). Books as they change (and all of them after a
  // snapshot); the account's working forward orders (with the margin they hold) and positions,
  // refreshed by the client after every forward execution or notice; public prints; and one line
  // for a person per execution, rejection, cancel or margin/settlement notice.
  std::function<void(const ForwardBookView&)> onForwardBook;
  std::function<void(const std::vector<ForwardWorkingOrder>&, Money marginHeld)> onForwardOrders;
  std::function<void(const std::vector<ForwardPositionView>&)> onForwardPositions;
  std::function<void(const ForwardPrint&)> onForwardPrint;
  std::function<void(const std::string& type, const std::string& text)> onForwardEvent;
  // Options on the index (docs/protocol.md "Options"): the chain asked for, the account's working
  // option orders (with what they hold) and positions, refreshed after every option reply or
  // notice; one line for a person per reply or notice; and each md_option_* line's type (a book,
  // trade or settlement changed: a chain on screen asks again).
  std::function<void(const OptionChainView&)> onOptionChain;
  std::function<void(const std::vector<OptionWorkingOrder>&, Money held)> onOptionOrders;
  std::function<void(const std::vector<OptionPositionView>&)> onOptionPositions;
  std::function<void(const OptionEventView& event)> onOptionEvent;
  std::function<void(const std::string& type)> onOptionMarketData;
  // The call mode (docs/protocol.md "Call mode"): a call's result (md_call_result,
  // `indicative` false) or the answer to requestIndicative() (`indicative` true: what the next
  // call would clear now).
  std::function<void(const CallReport& report, bool indicative)> onCall;
  // The answer to ping(): the round trip to the exchange and back.
  std::function<void(std::chrono::nanoseconds roundTrip)> onRoundTrip;
};

class ExchangeClient {
 public:
  ExchangeClient(ClientOptions options, ClientCallbacks callbacks);
  ~ExchangeClient();  // stops
  ExchangeClient(const ExchangeClient&) = delete;
  ExchangeClient& operator=(const ExchangeClient&) = delete;

  void start();  // returns at once; progress arrives through onConnection
  void stop();   // joins the io thread; no callback runs after it returns

  // All requests are thread-safe and asynchronous. While disconnected they are refused
  // (onError with code "not_connected") rather than queued: an order must never be sent late.
  // Returns the client order id used ("c<n>" unless `clOrdId` is given).
  std::string placeOrder(const OrderRequest& order, std::string clOrdId = {});
  void cancel(OrderId order);
  void amend(OrderId order, std::optional<Price> limit, std::optional<GpuCount> gpus);
  void massCancel(std::optional<ClusterId> cluster = std::nullopt);
  void requestBalance();
  void requestOrders();
  void requestPositions();
  // One order of the account, named by its client order id, finished or not.
  void requestOrderStatus(const std::string& clOrdId);
  // The same, named by the exchange's order id.
  void requestOrderStatus(OrderId orderId);
  // Every finished order of the account (filled, cancelled, expired), also those that ended
  // before this client started: the exchange's order_history pages, gathered.
  void requestOrderHistory();
  // Provider side: for hours [start, end) only `usableGpus` of contract's GPUs work (or the
  // link/power was degraded). Only the contract's seller may report; the ack or error arrives
  // through onError (errors) and onSettlement (what the exchange did about it).
  void reportDelivery(ContractId contract, Hour start, Hour end, GpuCount usableGpus, DeliveryProblem problem);
  // Provider side: `lostGpus` of the cluster were down for hours [start, end); the exchange
  // spreads the loss over this provider's contracts on the cluster.
  void reportOutage(ClusterId cluster, Hour start, Hour end, GpuCount lostGpus, DeliveryProblem problem);
  // Provider side: take back `gpus` GPUs of interruptible contract `contract` for hours
  // [start, end), at least the cluster's notice ahead; the buyer is refunded (docs/protocol.md,
  // "Interruptible capacity"). The ack comes through onReportAck, a refusal through onError.
  void reclaim(ContractId contract, Hour start, Hour end, GpuCount gpus);
  void requestIndexHistory();
  // The indicative clearing of the next call (onCall with `indicative` true; an exchange without
  // call mode answers onError "unsupported").
  void requestIndicative();
  void requestReclaimRates();
  // A heartbeat with a request id, which the exchange echoes at once: its answer measures the
  // round trip (onRoundTrip). Nothing happens while disconnected.
  void ping();
  // Forwards: returns the client order id used (generated unless `order.clOrdId` is set).
  std::string placeForward(ForwardNewOrder order);
  void cancelForward(std::uint64_t orderId);
  void requestForwardOrders();
  void requestForwardPositions();
  void requestForwardBook(Accelerator accelerator, Hour weekStart);
  // Options: returns the client order id used (generated unless `order.clOrdId` is set).
  std::string placeOption(OptionNewOrder order);
  void cancelOption(std::uint64_t orderId);
  void requestOptionOrders();
  void requestOptionPositions();
  void requestOptionChain(Accelerator accelerator);

  ConnectionState state() const;
  std::vector<Cluster> clusters() const;  // as announced at logon
  // The call mode's schedule (logon_ack, kept up to date by md_call_result and indicative
  // replies; empty on a continuous exchange) and the last call's result seen.
  CallSchedule callSchedule() const;
  std::optional<CallReport> lastCall() const;
  Hour now() const;
  BookMirror book() const;  // a copy, safe from any thread
  std::uint64_t gapsRecovered() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::net
