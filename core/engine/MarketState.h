#pragma once
// What both matchers keep outside their books: the clock, clusters, holdings and contracts.
#include "core/engine/ClusterRegistry.h"
#include "core/engine/ContractBook.h"
#include "core/engine/Inventory.h"
#include "core/engine/Matcher.h"
#include "core/engine/OrderValidation.h"
#include "core/engine/TradeRecorder.h"

namespace tessera {

struct MarketState {
  // Holdings' per-hour arrays come from `memory` (see EngineMemory).
  explicit MarketState(std::pmr::memory_resource* memory = std::pmr::get_default_resource()) : inventory(memory) {}

  Hour now = 0;
  ClusterRegistry clusters;
  Inventory inventory;
  ContractBook contracts;
  ContractId lastContract = 0;
  TradeRecorder recorder;

  MarketView view() const { return MarketView{now, clusters, inventory, contracts}; }
  Holding holding(AccountId account, ClusterId cluster, Hour hour) const {
    return Holding{inventory.held(account, cluster, hour), inventory.offered(account, cluster, hour)};
  }

  // Handles the inputs that do not touch a book. Returns false for an order input.
  bool applyNonOrder(const InputEvent& in, std::vector<Event>& out);

  // The GPUs a cluster's grants are bounded by: its own, or for an interruptible book its firm
  // cluster's, which both books' grants share.
  GpuCount physicalSize(const Cluster& c) const;
};

// Placements of an all-or-none bid are ranked by hourly cost times the buyer's cost factor for
// the cluster; the product needs more than 64 bits.
__extension__ using RankedCost = __int128;
inline RankedCost rankedCost(const OrderRequest& o, ClusterId c, Money hourlyCost) {
  std::int64_t ppm = 1'000'000;
  for (const auto& f : o.costFactors)
    if (f.cluster == c) ppm = f.ppm;
  return static_cast<RankedCost>(hourlyCost) * ppm;
}

// The trade price of a fill: a resting divisible order sets the price; all-or-none bids pay
// each ask's own price.
inline bool crosses(Side incoming, Price limit, Price resting) {
  return incoming == Side::Buy ? resting <= limit : resting >= limit;
}

}  // namespace tessera
