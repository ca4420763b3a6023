#pragma once
// A seeded generator of call-auction order flow: providers' divisible asks, inference fleets'
// divisible bids, training runs as all-or-none bids (fixed, flexible or by constraints) and a
// few whole-cluster block asks. The tests, bench/auction and the backtester's call comparison
// draw their markets from it, so "the same generated order flow" is one definition.
#include "core/domain/Cluster.h"
#include "core/domain/Order.h"

#include <cstdint>
#include <vector>

namespace tessera::auction {

struct SyntheticMarketOptions {
  int clusters = 3;
  Hour hours = 8;  // the delivery horizon: orders lie in [now, now + hours)
  int orders = 12;
  double blockBidShare = 0.25;   // all-or-none bids among the orders
  double flexibleShare = 0.4;    // of those, with a flexible window
  double constraintShare = 0.2;  // of those, by constraints instead of a cluster
  double blockAskShare = 0.0;    // all-or-none asks among the orders (call auction only)
  Hour maxWindow = 6;            // longest window of an order
  Hour maxSlack = 2;             // flexible windows: hours of choice beyond the duration
  GpuCount maxGpus = 16;
  Hour now = 1000;
};

struct SyntheticMarket {
  Hour now = 0;
  std::vector<Cluster> clusters;
  std::vector<OrderRequest> orders;  // arrival order; ids 1.., one account per order
};

SyntheticMarket generateMarket(const SyntheticMarketOptions& options, std::uint64_t seed);

}  // namespace tessera::auction
