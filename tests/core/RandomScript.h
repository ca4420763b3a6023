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
};

std::vector<InputEvent> randomScript(const RandomScriptOptions& options);

}  // namespace tessera::testing
