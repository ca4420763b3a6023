#pragma once
// Random but valid-looking market scripts for property and differential tests: a few clusters,
// providers with capacity, traders sending every kind of order, cancels, amends, clock ticks and
// a sprinkling of impossible inputs. Small price and size ranges make ties and crossings common.
#include "core/engine/Events.h"

#include <cstdint>
#include <vector>

namespace tessera::testing {

struct RandomScriptOptions {
  std::uint64_t seed = 1;
  int events = 400;
  int clusters = 3;
  Hour horizon = 48;
  int postOnlyPercent = 8;  // of the orders that may be post-only (not IOC or FOK)
  // Adds cluster `clusters + 1`, the interruptible book of cluster 1 (both granted half as much
  // so they share its size), and orders on it, interruptible constraint bids and a few capacity
  // mismatches. Off, the script of a seed is what it is without interruptible capacity.
  bool interruptible = false;
};

// The clusters a script adds: `clusters`, and the interruptible one if asked for.
inline int scriptClusters(const RandomScriptOptions& o) { return o.clusters + (o.interruptible ? 1 : 0); }

std::vector<InputEvent> randomScript(const RandomScriptOptions& options);

}  // namespace tessera::testing
