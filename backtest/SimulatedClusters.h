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

// The providers that also sell part of their machines as interruptible capacity: the notice
// they give before taking GPUs back (hours, 0: this cluster is sold firm only) and the share of
// its nodes set aside for the interruptible book.
struct InterruptibleSupply {
  Hour noticeHours = 0;
  int nodes = 0;
};
InterruptibleSupply interruptibleSupplyOf(const Cluster& c);

// The interruptible books of the firm clusters `firm` (ids 1..N) that offer one, with ids N+1,
// N+2, ... in the order of their firm cluster: named "<firm name>-int", the same machines' specs
// and size (the engine checks a book's grants, which count on the physical cluster, against the
// book's own size), `interruptibleOf` and `noticeHours` set. The nodes set aside for it
// (InterruptibleSupply::nodes) are what its provider is granted there.
std::vector<Cluster> interruptibleClusters(const std::vector<Cluster>& firm);

// The central price of one GPU-hour on `c` before cycles and noise: the accelerator's public
// price level, adjusted for region and fabric. In micro-dollars.
Price referencePrice(const Cluster& c);

}  // namespace tessera::backtest
