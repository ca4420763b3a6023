#pragma once
// The output floor of a workload: how long it takes just to materialise the events the engine
// emits for it, with matching free. Each measured input's output is recorded once from a real
// engine, then only that output is replayed: the events are copied into an output vector, and
// each ContractCreated is added to a fresh ContractBook and moved in a fresh Inventory with the
// calls the engine's TradeRecorder makes. No engine can take less per input than this while it
// emits the same events into the same structures.
#include "MarketLoad.h"

#include <array>
#include <cstddef>

namespace tessera::bench {

struct OutputFloor {
  std::size_t inputs = 0;
  std::size_t events = 0;
  std::size_t contracts = 0;
  // Mean microseconds per input, cumulative: copying the events; plus ContractBook::add; plus
  // Inventory::transfer (the floor itself).
  double copyUs = 0;
  double contractBookUs = 0;
  double floorUs = 0;
  // Page faults taken while each stage was timed.
  long copyFaults = 0;
  long contractBookFaults = 0;
  long floorFaults = 0;
  // The floor per input kind, timed input by input (so each includes one clock read pair).
  std::array<double, kInputKinds> floorUsByKind{};
  std::array<std::size_t, kInputKinds> inputsByKind{};
};

// Measures the inputs after `warmup`; setup and warm-up output is applied to the fresh
// structures untimed, so they start the measurement as large as the engine's are.
OutputFloor measureOutputFloor(const Load& load, std::size_t warmup);

void printOutputFloor(const char* name, const OutputFloor& f);

}  // namespace tessera::bench
