#pragma once
// The workload file format (documented in docs/cost-model.md, examples in resources/workloads/).
#include "core/cost/TopologyJson.h"
#include "core/cost/WorkloadProfile.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <variant>

namespace tessera::cost {

std::variant<WorkloadProfile, LoadError> workloadFromJson(const nlohmann::json& j);
std::variant<WorkloadProfile, LoadError> loadWorkloadFile(const std::filesystem::path& file);

}  // namespace tessera::cost
