#pragma once
// The clusters of the simulated market: realistic specs for the kinds of GPU sites that trade
// compute today (fictional provider names), plus the price levels the generator quotes around.
#include "core/domain/Cluster.h"

#include <vector>

namespace tessera::backtest {

// Ids are 1..N in the returned order. `count` caps the list (at least 1, at most all of them).
std::vector<Cluster> simulatedClusters(std::size_t count = 18);

// The central price of one GPU-hour on `c` before cycles and noise: the accelerator's public
// price level, adjusted for region and fabric. In micro-dollars.
Price referencePrice(const Cluster& c);

}  // namespace tessera::backtest
