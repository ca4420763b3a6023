#pragma once
// The checks every new order passes before it reaches a book, shared by both matchers so that
// they reject exactly the same inputs for exactly the same reasons.
#include "core/engine/ClusterRegistry.h"
#include "core/engine/ContractBook.h"
#include "core/engine/Events.h"
#include "core/engine/Inventory.h"

#include <optional>
#include <vector>

namespace tessera {

struct MarketView {
  Hour now = 0;
  const ClusterRegistry& clusters;
  const Inventory& inventory;
  const ContractBook& contracts;
};

// Returns the rejection, or nothing if the order may enter the book. For buy orders
// For all-or-none buys `candidates` receives the clusters it may trade on, ascending by id (a
// divisible order trades only on its named cluster, so it gets none: no allocation per order).
std::optional<OrderRejected> validateNewOrder(const OrderRequest& o, bool idInUse, const MarketView& market,
                                              std::vector<ClusterId>& candidates);

// What cancels and amends check first: the order is working (`working` is its request, or null
// when there is no working order with that id) and belongs to `account`.
std::optional<OrderRejected> validateOwnWorkingOrder(OrderId id, AccountId account, const OrderRequest* working);

// Checks an amend of the working order `current` (already known to exist and to belong to the
// amending account). On success `limit` and `gpus` hold the new values and, for all-or-none
// orders, `candidates` the accepted candidates that hold the new GPU count.
std::optional<OrderRejected> validateAmend(const AmendRequest& a, const OrderRequest& current,
                                           const std::vector<ClusterId>& accepted, const MarketView& market,
                                           Price& limit, GpuCount& gpus, std::vector<ClusterId>& candidates);

std::optional<OrderRejected> validateCluster(const Cluster& c, const ClusterRegistry& clusters);
std::optional<OrderRejected> validateGrant(const CapacityGrant& g, const MarketView& market);
// A replacement transfer: the contract it replaces must be between the same two accounts, and
// the provider must hold, and not offer, every GPU-hour it hands over.
std::optional<OrderRejected> validateTransfer(const CapacityTransfer& t, const MarketView& market);
// A reclaim of interruptible capacity: the contract must run from the provider to the holder on
// an interruptible cluster, cover the window, and the holder must hold the GPU-hours free of offers.
std::optional<OrderRejected> validateReclaim(const CapacityReclaim& r, const MarketView& market);

}  // namespace tessera
