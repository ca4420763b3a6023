#include "core/net/LostHours.h"

#include <nlohmann/json.hpp>

namespace tessera::net {

nlohmann::json lostHoursJson(const std::vector<LostRun>& runs) {
  nlohmann::json out = nlohmann::json::array();
  for (const LostRun& r : runs) out.push_back({{"start", r.start}, {"end", r.end}, {"gpus", r.gpus}});
  return out;
}

std::vector<LostRun> lostHoursFrom(const nlohmann::json& contract, const char* field) {
  std::vector<LostRun> runs;
  const auto it = contract.find(field);
  if (it == contract.end() || !it->is_array()) return runs;
  for (const nlohmann::json& r : *it) {
    if (!r.is_object() || !r.value("start", nlohmann::json()).is_number_integer() ||
        !r.value("end", nlohmann::json()).is_number_integer() || !r.value("gpus", nlohmann::json()).is_number_integer())
      continue;
    runs.push_back({r["start"].get<Hour>(), r["end"].get<Hour>(), r["gpus"].get<GpuCount>()});
  }
  return runs;
}

}  // namespace tessera::net
