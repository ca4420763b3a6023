#pragma once
// Breaks a flat-out run down by input kind: where the time goes, and how much output each kind
// makes, so a shortfall can be pinned on the inputs that cause it.
#include "MarketLoad.h"

#include <cstdint>
#include <vector>

namespace tessera::bench {

// One entry per measured input, in input order.
struct PerInput {
  std::vector<double> latencyUs;
  std::vector<std::uint32_t> events;
  std::vector<std::uint32_t> contracts;  // ContractCreated among `events`
};

// `first` is the index in load.events of the first measured input.
void printByKind(const Load& load, std::size_t first, const PerInput& p);

}  // namespace tessera::bench
