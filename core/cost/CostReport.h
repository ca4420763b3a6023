#pragma once
// Presenting cost breakdowns: a plain-text table for people and JSON for scripts.
#include "core/cost/EffectiveCostModel.h"

#include <nlohmann/json_fwd.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace tessera::cost {

nlohmann::json toJson(const CostBreakdown& b);

// Dollars as the cost views show them: "$2.160M", "$12.3k", "$840.00".
std::string money(double dollars);

struct LabelledResult {
  std::string label;
  const CostResult* result = nullptr;
};

// One column per offer: the five terms, total, wall clock, MFU, cost per unit.
void printCostTable(std::ostream& out, const std::vector<LabelledResult>& results);

}  // namespace tessera::cost
