#pragma once
// Example offers over the shipped topologies, for the planner test and screenshots.
// The prices are illustrative, chosen so the cheapest rate is not the cheapest result.
#include "core/cost/EffectiveCostModel.h"
#include "core/cost/TopologyJson.h"

#include <filesystem>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tessera::cost::testdata {

inline std::vector<CandidateOffer> exampleOffers(const std::filesystem::path& topologyDir) {
  struct Priced {
    const char* name;
    double price;
    double preemptionsPerDay;
  };
  const std::vector<Priced> priced = {
      {"hgx-h100-ndr-ib", 3.00, 0}, {"roce-h200-eu", 2.60, 0}, {"tier3-ethernet-l40s", 0.90, 0},
      {"two-site-h100", 2.20, 0},   {"gb200-nvl72", 4.20, 0},  {"spot-pool-h100-ethernet", 1.20, 0.5},
  };
  std::vector<CandidateOffer> out;
  for (const auto& [name, price, preemptions] : priced) {
    auto t = loadTopologyFile(topologyDir / (std::string(name) + ".json"));
    if (auto* e = std::get_if<LoadError>(&t)) throw std::runtime_error(e->message);
    Offer o;
    o.label = name;
    o.pricePerGpuHour = price;
    o.preemptionsPerDay = preemptions;
    out.push_back({std::get<Topology>(t), o, std::nullopt});
  }
  return out;
}

}  // namespace tessera::cost::testdata
