#pragma once
// Reads a strategy's JSON parameters, collecting every problem as a message for the user
// instead of throwing: "max_price: must be a number between 0.001 and 100".
#include "core/domain/Cluster.h"
#include "core/domain/Order.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::backtest {

class StrategyParams {
 public:
  explicit StrategyParams(nlohmann::json j, std::vector<std::string> allowed);

  double number(const std::string& key, std::optional<double> fallback, double lo, double hi);
  std::int64_t integer(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t lo, std::int64_t hi);
  std::string text(const std::string& key, std::optional<std::string> fallback);
  // Dollars per GPU-hour in the file, micro-dollars in the program.
  Price price(const std::string& key, std::optional<double> fallbackDollars);
  // "accelerators", "min_gpu_memory_gb", "regions", "min_fabric", "max_carbon": constraints
  // read from `j` (the whole params or one job object).
  ClusterConstraints constraints(const nlohmann::json& j, const std::string& where);
  const nlohmann::json& json() const { return j_; }

  void fail(std::string message) { errors_.push_back(std::move(message)); }
  bool ok() const { return errors_.empty(); }
  std::string errors() const;

 private:
  nlohmann::json j_;
  std::vector<std::string> errors_;
};

// The cluster called `name` (or with that numeric id) among `clusters`.
std::optional<Cluster> findCluster(const std::vector<Cluster>& clusters, const std::string& name);
// The same, or why not, naming the clusters there are: "unknown cluster 'x'; the market has:
// a, b, c".
std::variant<Cluster, std::string> requireCluster(const std::vector<Cluster>& clusters, const std::string& name);

}  // namespace tessera::backtest
