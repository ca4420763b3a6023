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
};

// The trade price of a fill: a resting divisible order sets the price; all-or-none bids pay
// each ask's own price.
inline bool crosses(Side incoming, Price limit, Price resting) {
  return incoming == Side::Buy ? resting <= limit : resting >= limit;
}

}  // namespace tessera
