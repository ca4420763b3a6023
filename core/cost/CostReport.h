#pragma once
// Presenting cost breakdowns: a plain-text table for people and JSON for scripts.
#include "core/cost/EffectiveCostModel.h"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace tessera::cost {

nlohmann::json toJson(const CostBreakdown& b);

struct LabelledResult {
  std::string label;
  const CostResult* result = nullptr;
};

// One column per offer: the five terms, total, wall clock, MFU, cost per unit.
void printCostTable(std::ostream& out, const std::vector<LabelledResult>& results);

}  // namespace tessera::cost
