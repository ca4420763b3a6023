#pragma once
// The clearing problem of one call (docs/matching.md, "Call auction"): the orders of the call as
// divisible steps per (cluster, hour) and all-or-none blocks in exclusive groups. Built from the
// engine's own order type, so the exchange hands a call exactly what it accepted.
#include "core/domain/Cluster.h"
#include "core/domain/Order.h"
#include "core/domain/Types.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tessera::auction {

// A divisible order: in every hour of [start, end), a step of `gpus` GPUs at `limit`.
struct Step {
  std::size_t order = 0;  // index into ClearingProblem::orders
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  Price limit = 0;
};

// One placement of an all-or-none order: `gpus` GPUs in every hour of [start, end), or nothing.
struct Block {
  std::size_t order = 0;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  Price limit = 0;        // the average price per GPU-hour
  std::size_t group = 0;  // exclusive group: the blocks of one order share it
};

// One (cluster, hour) of the call: a balance row of the programme and one price.
struct RowKey {
  ClusterId cluster = 0;
  Hour hour = 0;
  auto operator<=>(const RowKey&) const = default;
};

struct CallOrder {
  OrderId id = 0;
  AccountId account = 0;
  Side side = Side::Buy;
  bool allOrNone = false;
};

// Blocks are listed group by group, in the order of the orders; within a group by (cluster,
// start). Steps in the order of the orders. That order is the call's tie-break (earlier first).
struct ClearingProblem {
  Hour now = 0;
  std::vector<CallOrder> orders;  // arrival order
  std::vector<Step> bidSteps, askSteps;
  std::vector<Block> blocks;
  std::size_t groups = 0;
  // Every (cluster, hour) a step or block touches, ascending; each window's hours are
  // consecutive entries, so the row of (c, h) inside a window is row(c, start) + (h - start).
  std::vector<RowKey> rows;
  // Orders with nothing left to trade at the call (a window that ended, or an all-or-none order
  // without a placement at or after `now`): they expire instead of taking part.
  std::vector<OrderId> expired;

  std::size_t row(ClusterId cluster, Hour hour) const;  // of a touched (cluster, hour)
};

enum class BuildError : std::uint8_t {
  UnknownCluster,  // an order names a cluster the call does not know
  Unsupported,     // neither a cluster nor constraints
};

struct BuildFailure {
  BuildError error;
  OrderId order = 0;
  std::string detail;
};

// A working order at a call: its request and, for a divisible order that traded in earlier
// calls, the GPUs it still wants in each hour of [start, end) (empty: `gpus` in every hour).
struct CallEntry {
  OrderRequest request;
  std::vector<GpuCount> remaining;
};

// Orders in arrival order; clusters: every cluster known (for candidates of constraint orders).
// Divisible orders lose the hours before `now`, as at a clock step; a divisible order's runs of
// hours with equal remaining GPUs are one step each.
[[nodiscard]] std::variant<ClearingProblem, BuildFailure> buildClearingProblem(const std::vector<CallEntry>& orders,
                                                                               const std::vector<Cluster>& clusters,
                                                                               Hour now);
[[nodiscard]] std::variant<ClearingProblem, BuildFailure> buildClearingProblem(const std::vector<OrderRequest>& orders,
                                                                               const std::vector<Cluster>& clusters,
                                                                               Hour now);

}  // namespace tessera::auction
