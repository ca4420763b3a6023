#include "core/engine/OrderValidation.h"

#include "core/engine/MarketLimits.h"

#include <string>

namespace tessera {
namespace {

OrderRejected reject(const OrderRequest& o, RejectReason r, std::string detail) {
  return OrderRejected{o.id, o.account, r, std::move(detail)};
}

}  // namespace

std::optional<OrderRejected> validateCluster(const Cluster& c, const ClusterRegistry& clusters) {
  auto bad = [&](RejectReason r, std::string d) { return OrderRejected{0, 0, r, std::move(d)}; };
  if (c.gpusPerNode <= 0 || c.nodeCount <= 0)
    return bad(RejectReason::InvalidCluster, "gpus_per_node and node_count must be positive");
  if (static_cast<std::int64_t>(c.gpusPerNode) * c.nodeCount > limits::kMaxClusterGpus)
    return bad(RejectReason::InvalidCluster, "a cluster holds at most 1000000 GPUs");
  if (c.gpuMemoryGb < 0 || c.intraNodeGBps < 0 || c.fabricGbpsPerNode < 0 || c.storageTb < 0 || c.carbonGramsPerKwh < 0)
    return bad(RejectReason::InvalidCluster, "cluster figures must not be negative");
  if (c.interruptibleOf) {
    const Cluster* physical = clusters.find(*c.interruptibleOf);
    if (!physical || physical->interruptible())
      return bad(RejectReason::InvalidCluster, "interruptible_of names no firm cluster");
    if (c.totalGpus() > physical->totalGpus())
      return bad(RejectReason::InvalidCluster, "an interruptible cluster is no larger than its physical cluster");
    if (c.noticeHours < 1 || c.noticeHours > limits::kMaxNoticeHours)
      return bad(RejectReason::InvalidCluster, "notice_hours must be between 1 and 720");
  } else if (c.noticeHours != 0) {
    return bad(RejectReason::InvalidCluster, "notice_hours is for interruptible clusters");
  }
  // Its own figures first, then whether its id is taken, as every input checks (docs/matching.md).
  if (clusters.find(c.id))
    return bad(RejectReason::DuplicateCluster, "cluster " + std::to_string(c.id) + " already exists");
  return std::nullopt;
}

// Grants and transfers check, like orders, the input's own fields first (GPUs, window, past,
// horizon), then what it refers to, then the holdings (docs/matching.md, "Validation order").
std::optional<OrderRejected> validateGrant(const CapacityGrant& g, const MarketView& market) {
  auto bad = [&](RejectReason r, std::string d) { return OrderRejected{0, g.account, r, std::move(d)}; };
  if (g.gpus <= 0 || g.gpus > limits::kMaxClusterGpus)
    return bad(RejectReason::InvalidGpuCount, "gpus must be between 1 and 1000000");
  if (g.start >= g.end || g.end - g.start > limits::kMaxWindowHours)
    return bad(RejectReason::InvalidWindow, "window must satisfy start < end, at most five years");
  if (g.start < market.now) return bad(RejectReason::WindowInPast, "window starts before the exchange clock");
  if (g.end > market.now + limits::kMaxHorizonHours)
    return bad(RejectReason::InvalidWindow, "window ends more than five years after the exchange clock");
  const Cluster* c = market.clusters.find(g.cluster);
  if (!c) return bad(RejectReason::UnknownCluster, "no cluster " + std::to_string(g.cluster));
  if (g.gpus > c->totalGpus()) return bad(RejectReason::ExceedsClusterSize, "more GPUs than the cluster has");
  return std::nullopt;
}

std::optional<OrderRejected> validateTransfer(const CapacityTransfer& t, const MarketView& market) {
  auto bad = [&](RejectReason r, std::string d) { return OrderRejected{0, t.from, r, std::move(d)}; };
  if (t.gpus <= 0 || t.gpus > limits::kMaxClusterGpus)
    return bad(RejectReason::InvalidGpuCount, "gpus must be between 1 and 1000000");
  if (t.start >= t.end || t.end - t.start > limits::kMaxWindowHours)
    return bad(RejectReason::InvalidWindow, "window must satisfy start < end, at most five years");
  if (t.start < market.now) return bad(RejectReason::WindowInPast, "window starts before the exchange clock");
  if (t.end > market.now + limits::kMaxHorizonHours)
    return bad(RejectReason::InvalidWindow, "window ends more than five years after the exchange clock");
  const auto original = market.contracts.find(t.replaces);
  if (!original || original->seller != t.from || original->buyer != t.to)
    return bad(RejectReason::UnknownContract,
               "no contract " + std::to_string(t.replaces) + " from this provider to this buyer");
  if (!market.clusters.find(t.cluster))
    return bad(RejectReason::UnknownCluster, "no cluster " + std::to_string(t.cluster));
  // The buyer paid the replaced contract's price, and its escrow moves to the replacement.
  if (t.price != original->price)
    return bad(RejectReason::InvalidPrice,
               "a replacement carries the price of the contract it replaces (" + std::to_string(original->price) + ")");
  if (!market.inventory.canOffer(t.from, t.cluster, t.start, t.end, t.gpus))
    return bad(RejectReason::InsufficientHoldings, "the provider does not hold that capacity free of offers");
  return std::nullopt;
}

std::optional<OrderRejected> validateReclaim(const CapacityReclaim& r, const MarketView& market) {
  auto bad = [&](RejectReason reason, std::string d) { return OrderRejected{0, r.provider, reason, std::move(d)}; };
  if (r.gpus <= 0 || r.gpus > limits::kMaxClusterGpus)
    return bad(RejectReason::InvalidGpuCount, "gpus must be between 1 and 1000000");
  if (r.start >= r.end || r.end - r.start > limits::kMaxWindowHours)
    return bad(RejectReason::InvalidWindow, "window must satisfy start < end, at most five years");
  if (r.start < market.now) return bad(RejectReason::WindowInPast, "window starts before the exchange clock");
  const auto k = market.contracts.find(r.contract);
  if (!k || k->seller != r.provider || k->buyer != r.holder)
    return bad(RejectReason::UnknownContract,
               "no contract " + std::to_string(r.contract) + " from this provider to this holder");
  const Cluster* c = market.clusters.find(k->cluster);
  if (!c || !c->interruptible()) return bad(RejectReason::CapacityMismatch, "only interruptible capacity is reclaimed");
  if (r.start < k->start || r.end > k->end || r.gpus > k->gpus)
    return bad(RejectReason::InvalidWindow, "a reclaim lies inside its contract's hours and GPUs");
  if (!market.inventory.canOffer(r.holder, k->cluster, r.start, r.end, r.gpus))
    return bad(RejectReason::InsufficientHoldings, "the holder does not hold those GPU-hours free of offers");
  return std::nullopt;
}

std::optional<OrderRejected> validateOwnWorkingOrder(OrderId id, AccountId account, const OrderRequest* working) {
  if (!working) return OrderRejected{id, account, RejectReason::UnknownOrder, "no working order with this id"};
  if (working->account != account)
    return OrderRejected{id, account, RejectReason::NotYourOrder, "the order belongs to another account"};
  return std::nullopt;
}

std::optional<OrderRejected> validateAmend(const AmendRequest& a, const OrderRequest& o,
                                           const std::vector<ClusterId>& accepted, const MarketView& market,
                                           Price& limit, GpuCount& gpus, std::vector<ClusterId>& candidates) {
  auto bad = [&](RejectReason r, std::string d) { return OrderRejected{a.id, a.account, r, std::move(d)}; };
  limit = a.limit.value_or(o.limit);
  gpus = a.gpus.value_or(o.gpus);
  if (limit == o.limit && gpus == o.gpus) return bad(RejectReason::NothingToAmend, "the amend changes nothing");
  // GPU count before price, as for a new order.
  if (gpus <= 0 || gpus > limits::kMaxClusterGpus)
    return bad(RejectReason::InvalidGpuCount, "gpus must be between 1 and 1000000");
  if (limit <= 0 || limit > limits::kMaxPrice)
    return bad(RejectReason::InvalidPrice, "limit must be between 1 and 100000000 micro-dollars per GPU-hour");
  candidates.clear();
  for (ClusterId c : accepted)
    if (market.clusters.find(c)->totalGpus() >= gpus) candidates.push_back(c);
  const bool fits =
      o.fill == FillStyle::AllOrNone ? !candidates.empty() : market.clusters.find(*o.cluster)->totalGpus() >= gpus;
  if (!fits) return bad(RejectReason::ExceedsClusterSize, "more GPUs than the cluster has");
  if (o.sellBack && gpus > market.contracts.find(*o.sellBack)->gpus)
    return bad(RejectReason::InvalidWindow, "a sell-back must lie inside the contract it sells");
  return std::nullopt;
}

std::optional<OrderRejected> validateNewOrder(const OrderRequest& o, bool idInUse, const MarketView& market,
                                              std::vector<ClusterId>& candidates) {
  candidates.clear();
  if (o.id == 0) return reject(o, RejectReason::Malformed, "order id must be positive");
  if (idInUse)
    return reject(o, RejectReason::DuplicateOrderId, "order id " + std::to_string(o.id) + " was used before");
  if (o.gpus <= 0 || o.gpus > limits::kMaxClusterGpus)
    return reject(o, RejectReason::InvalidGpuCount, "gpus must be between 1 and 1000000");
  if (o.limit <= 0 || o.limit > limits::kMaxPrice)
    return reject(o, RejectReason::InvalidPrice, "limit must be between 1 and 100000000 micro-dollars per GPU-hour");
  if (o.start >= o.end) return reject(o, RejectReason::InvalidWindow, "window must satisfy start < end");
  if (o.end - o.start > limits::kMaxWindowHours)
    return reject(o, RejectReason::InvalidWindow, "window longer than five years");
  if (o.duration && (*o.duration <= 0 || *o.duration > o.end - o.start))
    return reject(o, RejectReason::InvalidWindow, "duration must be between 1 and end - start hours");
  if (o.start < market.now) return reject(o, RejectReason::WindowInPast, "window starts before the exchange clock");
  if (o.end > market.now + limits::kMaxHorizonHours)
    return reject(o, RejectReason::InvalidWindow, "window ends more than five years after the exchange clock");
  if (o.tif == TimeInForce::GTD) {
    if (!o.expireAt) return reject(o, RejectReason::InvalidTimeInForce, "GTD needs expire_at");
    if (*o.expireAt <= market.now) return reject(o, RejectReason::InvalidTimeInForce, "expire_at is not in the future");
  } else if (o.expireAt) {
    return reject(o, RejectReason::InvalidTimeInForce, "expire_at is only for GTD orders");
  }
  if (o.postOnly && (o.tif == TimeInForce::IOC || o.tif == TimeInForce::FOK))
    return reject(o, RejectReason::InvalidTimeInForce, "post-only orders cannot be IOC or FOK");
  if (o.cluster.has_value() == o.constraints.has_value())
    return reject(o, RejectReason::Unsupported, "an order names either a cluster or constraints");

  if (o.side == Side::Sell) {
    if (o.constraints) return reject(o, RejectReason::Unsupported, "a sell order names its cluster");
    if (o.fill == FillStyle::AllOrNone) return reject(o, RejectReason::Unsupported, "sell orders are divisible");
    if (o.duration) return reject(o, RejectReason::Unsupported, "sell orders have a fixed window");
  } else {
    if (o.sellBack) return reject(o, RejectReason::Unsupported, "sell_back is for sell orders");
    if (o.fill == FillStyle::Divisible && (o.constraints || o.duration))
      return reject(o, RejectReason::Unsupported, "divisible orders need a named cluster and a fixed window");
  }
  if (o.side == Side::Buy && o.terms != OfferTerms{})
    return reject(o, RejectReason::InvalidTerms, "terms are set by sell orders");
  if (o.terms.uptimePromisePpm < 0 || o.terms.uptimePromisePpm > 1'000'000)
    return reject(o, RejectReason::InvalidTerms, "the uptime promise is between 0 and 1000000 ppm");
  if (o.terms.creditPerUndeliveredGpuHour < 0 || o.terms.creditPerUndeliveredGpuHour > limits::kMaxPrice)
    return reject(o, RejectReason::InvalidTerms, "the credit per undelivered GPU-hour is between 0 and 100000000");
  if (o.terms.replacementWithinHours < 0 || o.terms.replacementWithinHours > limits::kMaxWindowHours)
    return reject(o, RejectReason::InvalidTerms, "the replacement time is between 0 and five years of hours");
  if (o.terms.estimatedTflopsPerGpu && *o.terms.estimatedTflopsPerGpu <= 0)
    return reject(o, RejectReason::InvalidTerms, "an estimated throughput must be positive");
  if (!o.costFactors.empty()) {
    if (o.side == Side::Sell || o.fill == FillStyle::Divisible)
      return reject(o, RejectReason::Unsupported, "cost factors rank the placements of all-or-none buys");
    for (const auto& f : o.costFactors)
      if (f.ppm <= 0 || f.ppm > limits::kMaxCostFactorPpm)
        return reject(o, RejectReason::InvalidPrice, "cost factors must be between 1 and 100000000 ppm");
  }

  // Interruptible capacity: a checkpoint interval belongs to an all-or-none buy that accepts
  // interruptible capacity, and such a buy must declare one (docs/matching.md).
  const bool interruptibleBid = o.interruptible && o.side == Side::Buy && o.fill == FillStyle::AllOrNone;
  if (o.checkpointHours && !interruptibleBid)
    return reject(o, RejectReason::Unsupported,
                  "checkpoint_hours is for all-or-none buys that accept interruptible capacity");
  if (interruptibleBid && !o.checkpointHours)
    return reject(o, RejectReason::Unsupported,
                  "an all-or-none buy of interruptible capacity declares checkpoint_hours");
  if (o.checkpointHours && (*o.checkpointHours < 1 || *o.checkpointHours > limits::kMaxWindowHours))
    return reject(o, RejectReason::InvalidWindow, "checkpoint_hours must be between 1 and 43920");

  if (o.cluster) {
    const Cluster* c = market.clusters.find(*o.cluster);
    if (!c) return reject(o, RejectReason::UnknownCluster, "no cluster " + std::to_string(*o.cluster));
    if (c->interruptible() != o.interruptible)
      return reject(
          o, RejectReason::CapacityMismatch,
          c->interruptible()
              ? "cluster " + c->name + " is interruptible capacity: the order must accept it"
              : "cluster " + c->name + " is firm capacity: an interruptible order names an interruptible cluster");
    if (o.gpus > c->totalGpus())
      return reject(o, RejectReason::ExceedsClusterSize, "more GPUs than cluster " + c->name + " has");
    if (o.fill == FillStyle::AllOrNone) candidates.push_back(c->id);
  } else {
    ClusterConstraints accepted = *o.constraints;
    accepted.acceptsInterruptible = o.interruptible;
    candidates = market.clusters.candidates(accepted, o.gpus);
    if (candidates.empty()) return reject(o, RejectReason::NoMatchingCluster, "no cluster meets the constraints");
  }

  if (o.side == Side::Sell) {
    if (o.sellBack) {
      const auto k = market.contracts.find(*o.sellBack);
      if (!k || k->buyer != o.account)
        return reject(o, RejectReason::UnknownContract,
                      "no contract " + std::to_string(*o.sellBack) + " held by this account");
      if (k->cluster != *o.cluster || o.start < k->start || o.end > k->end || o.gpus > k->gpus)
        return reject(o, RejectReason::InvalidWindow, "a sell-back must lie inside the contract it sells");
    }
    if (!market.inventory.canOffer(o.account, *o.cluster, o.start, o.end, o.gpus))
      return reject(o, RejectReason::InsufficientHoldings,
                    "the account does not own or hold these GPU-hours (or has offered them already)");
  }
  return std::nullopt;
}

}  // namespace tessera
