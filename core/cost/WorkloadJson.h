#pragma once
// The workload file format (documented in docs/cost-model.md, examples in resources/workloads/).
#include "core/cost/TopologyJson.h"
#include "core/cost/WorkloadProfile.h"

#include <nlohmann/json_fwd.hpp>

#include <filesystem>
#include <variant>

namespace tessera::cost {

std::variant<WorkloadProfile, LoadError> workloadFromJson(const nlohmann::json& j);
// The same format back: workloadFromJson(toJson(w)) gives w again (steps, not total_tokens).
nlohmann::json toJson(const WorkloadProfile& w);
std::variant<WorkloadProfile, LoadError> loadWorkloadFile(const std::filesystem::path& file);

}  // namespace tessera::cost
