#pragma once
// The topology file format (documented in docs/cost-model.md, examples in resources/topologies/).
#include "core/cost/Topology.h"

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <string>
#include <variant>

namespace tessera::cost {

struct LoadError {
  std::string message;  // for a person: "<file>: topology.sites[0].nodes: must be ..."
};

std::variant<Topology, LoadError> topologyFromJson(const nlohmann::json& j);
nlohmann::json toJson(const Topology& t);

// Reads a topology file. Also accepts a cluster object in the engine's JSON form (as in the
// order files of `tessera-cli match`) and derives its default topology.
std::variant<Topology, LoadError> loadTopologyFile(const std::filesystem::path& file);

}  // namespace tessera::cost
