#pragma once
// What a participant sends to the matching engine.
#include "core/domain/Cluster.h"
#include "core/domain/OfferTerms.h"
#include "core/domain/Types.h"

#include <optional>
#include <string_view>
#include <vector>

namespace tessera {

enum class FillStyle : std::uint8_t {
  AllOrNone,  // every GPU for every hour, on one cluster (a training run)
  Divisible,  // any part, GPU by GPU and hour by hour (inference fleets, provider listings)
};

enum class TimeInForce : std::uint8_t { GTC, GTD, IOC, FOK };

// What to do when an order would trade against another order of the same account.
enum class SelfTradePrevention : std::uint8_t {
  CancelIncoming,  // cancel what is left of the incoming order (default)
  CancelResting,   // cancel the resting order and keep matching
};

// "Any cluster meeting these", instead of a named cluster. Empty fields do not constrain.
struct ClusterConstraints {
  std::vector<Accelerator> accelerators;  // any of these
  int minGpuMemoryGb = 0;
  std::vector<std::string> regions;  // any of these
  std::optional<FabricClass> minFabric;
  std::optional<int> maxCarbonGramsPerKwh;
  // Interruptible clusters are candidates only for an order that accepts them (OrderRequest's
  // `interruptible`, copied here by the engine's validation); a firm-only order never sees them.
  bool acceptsInterruptible = false;

  bool matches(const Cluster& c) const;
  bool operator==(const ClusterConstraints&) const = default;
};

// How much more (or less) than its hourly price a cluster's GPU-hour is worth to this buyer, in
// parts per million (1'000'000 = the hourly price is the real cost). An all-or-none buyer whose
// workload suffers on a weaker fabric states it here, computed from the effective-cost model, and
// the engine then ranks placements by effective cost instead of the hourly rate.
struct ClusterCostFactor {
  ClusterId cluster = 0;
  std::int64_t ppm = 1'000'000;
  bool operator==(const ClusterCostFactor&) const = default;
};

struct OrderRequest {
  // Declared in the order matching reads them: the engine keeps a request inside each working
  // order, and a trade then reads its first few lines only.
  OrderId id = 0;  // chosen by the sender, unique for the engine's lifetime
  AccountId account = 0;
  Side side = Side::Buy;
  FillStyle fill = FillStyle::Divisible;
  TimeInForce tif = TimeInForce::GTC;
  bool postOnly = false;
  SelfTradePrevention stp = SelfTradePrevention::CancelIncoming;
  std::optional<ClusterId> cluster;  // either a cluster or `constraints`, below
  GpuCount gpus = 0;
  Price limit = 0;  // per GPU-hour; for all-or-none, a bound on the average price
  Hour start = 0;   // window [start, end)
  Hour end = 0;
  std::optional<Hour> duration;                   // set: flexible window, `duration` hours anywhere in [start, end)
  std::optional<Hour> expireAt;                   // GTD: expires when the exchange clock reaches this hour
  std::optional<ContractId> sellBack;             // sell part of this held contract (sell side)
  std::optional<ClusterConstraints> constraints;  // instead of a cluster (buy, all-or-none only)
  std::vector<ClusterCostFactor> costFactors;     // all-or-none buys: rank placements by effective cost
  OfferTerms terms;                               // sell orders: what the listing promises; its contracts inherit it
  // Which capacity the order trades: false, firm only; true, a named cluster's interruptible
  // book (which must be an interruptible cluster), or for constraints interruptible clusters as
  // well as firm ones. An all-or-none buy that accepts interruptible capacity declares how often
  // its job checkpoints (hours), which is what an interruption costs it.
  bool interruptible = false;
  std::optional<Hour> checkpointHours;

  Hour hours() const { return duration ? *duration : end - start; }
  bool operator==(const OrderRequest&) const = default;
};

struct CancelRequest {
  OrderId id = 0;
  AccountId account = 0;
  bool operator==(const CancelRequest&) const = default;
};

// Amend price and/or GPU count. Keeping the price and reducing GPUs keeps time priority;
// anything else (new price, more GPUs) re-enters the order at the back of the queue.
struct AmendRequest {
  OrderId id = 0;
  AccountId account = 0;
  std::optional<Price> limit;
  std::optional<GpuCount> gpus;
  bool operator==(const AmendRequest&) const = default;
};

// A provider puts capacity it owns on the exchange: it may then list it for sale.
struct CapacityGrant {
  AccountId account = 0;
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  bool operator==(const CapacityGrant&) const = default;
};

// Capacity a provider hands to the buyer of one of its contracts outside the book: the
// replacement remedy when that contract failed (docs/settlement.md). The provider must hold the
// GPU-hours and not be offering them; the new contract records `replaces`.
struct CapacityTransfer {
  ContractId replaces = 0;
  AccountId from = 0;  // the provider: seller of `replaces`
  AccountId to = 0;    // the buyer of `replaces`
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  Price price = 0;  // per GPU-hour, recorded on the replacement contract
  bool operator==(const CapacityTransfer&) const = default;
};

// GPU-hours of an interruptible contract its provider takes back (docs/matching.md,
// "Reclaims"): the buyer's holding loses them and the provider holds them again, so the total
// per (cluster, hour) is unchanged. The buyer must hold them and not be offering them; the
// exchange cancels the buyer's asks that offer them first, and refunds the buyer (settlement).
struct CapacityReclaim {
  ContractId contract = 0;
  AccountId provider = 0;  // the contract's seller
  AccountId holder = 0;    // the contract's buyer
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  bool operator==(const CapacityReclaim&) const = default;
};

// The exchange clock moved to `now`: hours before it can no longer be traded, GTD orders expire.
struct ClockAdvance {
  Hour now = 0;
  bool operator==(const ClockAdvance&) const = default;
};

std::string_view toString(Side s);
std::string_view toString(FillStyle f);
std::string_view toString(TimeInForce t);
std::string_view toString(SelfTradePrevention s);

}  // namespace tessera
