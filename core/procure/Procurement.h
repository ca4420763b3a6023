#pragma once
// Procurement: keep N GPUs of a kind held in every hour of a rolling horizon. One round looks at
// what the account holds (its contracts, after sell-backs and replacements) and at the book,
// and says which immediate-or-cancel orders bring the holding to the target: buys for the hours
// that are short, at no more than a limit, and sell-backs for the hours that are over, at no
// less than a floor. It keeps no state of its own: everything it needs is the exchange's
// (positions and book), so a procurer that restarts decides exactly as one that did not.
// `tessera-cli scale` (core/net/ClientScale) and the backtest strategy `procure`
// (backtest/strategies/ProcureStrategy) both call planProcurement.
#include "core/domain/Order.h"
#include "core/engine/Events.h"
#include "core/engine/Matcher.h"
#include "core/settlement/ContractSettlement.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

struct ProcurementTarget {
  GpuCount gpus = 0;           // held in every hour of the horizon
  Hour horizonHours = 7 * 24;  // the horizon is [now + leadHours, now + leadHours + horizonHours)
  Hour leadHours = 0;
  std::optional<ClusterId> cluster;  // one cluster, or
  ClusterConstraints constraints;    // any cluster matching these (empty: any cluster)
  Price limit = 0;                   // pay at most this per GPU-hour
  std::optional<Price> sellFloor;    // sell back what is over at no less than this; none: keep it

  bool counts(const Cluster& c) const;  // a cluster whose GPUs count towards the target
};

// One contract of the account, as the exchange lists it (positions) or as the account's fills
// made it. `bought` false: the account sold it (a sell-back).
struct HeldContract {
  ContractId id = 0;
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  bool bought = true;
  ContractId replaces = 0;  // a replacement contract: the contract whose hours it took over
  // Bought: GPUs reported missing (an outage, a delivery report) and not replaced, by hours;
  // the exchange's positions say so. They are not held.
  std::vector<ContractSettlement::LostRun> lost;
};

// GPUs held in each hour of [from, to) on the clusters `counted` accepts: contracts bought minus
// contracts sold, a replacement counted instead of the part of the contract it replaces (the
// replaced GPUs are not delivered twice), less what was lost and not replaced.
[[nodiscard]] std::vector<GpuCount> heldShape(const std::vector<HeldContract>& contracts,
                                              const std::function<bool(ClusterId)>& counted, Hour from, Hour to);

// A step of a shape: `gpus` held in every hour of [start, end).
struct HeldStep {
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  bool operator==(const HeldStep&) const = default;
};
// Runs of equal hours of `shape` (whose first hour is `from`); hours holding 0 are steps too.
[[nodiscard]] std::vector<HeldStep> heldSteps(const std::vector<GpuCount>& shape, Hour from);

// One order of a round: immediate-or-cancel, divisible, at `limit`.
struct ProcurementOrder {
  Side side = Side::Buy;
  ClusterId cluster = 0;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
  Price limit = 0;
  ContractId sellBack = 0;  // sells: the contract sold back from
  OrderRequest request() const;
};

// Hours of the horizon that share one situation, for a person: "hold 6 of 8; buying 2 on
// cluster 3 at up to $2.50" and why not more.
struct ProcurementStep {
  Hour start = 0;
  Hour end = 0;
  GpuCount held = 0;
  GpuCount buying = 0;  // ordered this round
  GpuCount selling = 0;
  GpuCount unbuyable = 0;  // still short after this round's buys: nothing offered at or below the limit
  GpuCount keptOver = 0;   // over the target and not sold (no bid at or above the floor, or no floor)
  bool operator==(const ProcurementStep&) const = default;
};

struct ProcurementRound {
  GpuCount target = 0;
  Price limit = 0;
  std::optional<Price> sellFloor;
  Hour from = 0;  // the horizon
  Hour to = 0;
  std::vector<GpuCount> held;  // per hour of the horizon, before this round's orders
  std::vector<ProcurementOrder> orders;
  std::vector<ProcurementStep> steps;
  std::int64_t missingGpuHours = 0;  // short before this round
  std::int64_t overGpuHours = 0;     // over before this round
  // Lines for a person: the horizon, then one per step and one per order.
  std::vector<std::string> describe(const std::vector<Cluster>& clusters) const;
};

// The resting orders on `side` in (cluster, hour), best first (asks: lowest first).
using RestingLevels = std::function<std::vector<BookLevel>(ClusterId, Hour, Side)>;

[[nodiscard]] ProcurementRound planProcurement(const ProcurementTarget& target, Hour now,
                                               const std::vector<Cluster>& clusters,
                                               const std::vector<HeldContract>& held, const RestingLevels& book);

}  // namespace tessera
