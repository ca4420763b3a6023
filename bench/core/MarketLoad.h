#pragma once
// Builds benchmark workloads: realistic order flow generated against a live engine, so every
// sell is backed by holdings and every cancel names a working order. The same events are then
// replayed into a fresh engine for timing (the engine is deterministic, so it sees the same book).
#include "core/engine/Events.h"

#include <cstdint>
#include <vector>

namespace tessera::bench {

struct LoadShape {
  int clusters = 1;
  Hour horizon = 1;   // hours of delivery in the book
  Hour minHours = 1;  // order length range
  Hour maxHours = 1;
  int events = 1'000'000;  // order inputs after the set-up events
  int addPercent = 60;
  int cancelPercent = 30;  // the rest cross the spread
  int allOrNonePercentOfCrossing = 0;
  // Adds priced behind the best opposite order in every hour of their window, so they rest.
  // Off, an add is priced off its cluster's mid, a random walk, and often crosses orders resting
  // from earlier mids (see README.md, "By input kind").
  bool passiveAdds = false;
  std::uint64_t seed = 42;
};

// What the generator meant an input to be. An add may still trade if the mid moved since, and a
// crossing order may find nothing left to cross; the kind says which dice made it, not its fate.
enum class InputKind : std::uint8_t { Add, Cancel, Crossing, CrossingAllOrNone };
inline constexpr int kInputKinds = 4;
const char* toString(InputKind k);

struct Load {
  std::vector<InputEvent> setup;   // clusters and capacity
  std::vector<InputEvent> events;  // the measured flow
  std::vector<InputKind> kinds;    // kinds[i] is the kind of events[i]
};

Load makeLoad(const LoadShape& shape);

}  // namespace tessera::bench
