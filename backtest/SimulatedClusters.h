#pragma once
// The clusters of the simulated market: realistic specs for the kinds of GPU sites that trade
// compute today (fictional provider names), plus the price levels the generator quotes around.
#include "core/domain/Cluster.h"

#include <vector>

namespace tessera::backtest {

inline constexpr std::size_t kSimulatedClusterCount = 21;

// Ids are 1..N in the returned order. `count` caps the list (at least 1, at most all of them).
std::vector<Cluster> simulatedClusters(std::size_t count = kSimulatedClusterCount);

// How a cluster's provider sells it. Most list a few nodes at a time for hours to days (the
// divisible flow inference fleets and small jobs buy from); the providers of the last clusters
// lease whole clusters, in blocks of hundreds to thousands of GPUs for one to four weeks, which
// is what a large training run needs.
enum class SupplyStyle { Flow, WholeCluster };
struct ClusterSupply {
  SupplyStyle style = SupplyStyle::Flow;
  int blocks = 1;  // WholeCluster: the cluster is leased as this many equal blocks of nodes
};
// By cluster name; a name this generator did not make sells as Flow.
ClusterSupply supplyOf(const Cluster& c);

// The central price of one GPU-hour on `c` before cycles and noise: the accelerator's public
// price level, adjusted for region and fabric. In micro-dollars.
Price referencePrice(const Cluster& c);

}  // namespace tessera::backtest
