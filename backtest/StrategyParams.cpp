#include "backtest/StrategyParams.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tessera::backtest {

StrategyParams::StrategyParams(nlohmann::json j, std::vector<std::string> allowed) : j_(std::move(j)) {
  if (j_.is_null()) j_ = nlohmann::json::object();
  if (!j_.is_object()) {
    fail("parameters must be a JSON object");
    j_ = nlohmann::json::object();
    return;
  }
  for (const auto& [key, value] : j_.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string known;
      for (const auto& a : allowed) known += (known.empty() ? "" : ", ") + a;
      fail("unknown parameter '" + key + "' (known: " + known + ")");
    }
  }
}

double StrategyParams::number(const std::string& key, std::optional<double> fallback, double lo, double hi) {
  const auto it = j_.find(key);
  if (it == j_.end()) {
    if (!fallback) fail(key + ": required");
    return fallback.value_or(lo);
  }
  if (!it->is_number() || it->get<double>() < lo || it->get<double>() > hi) {
    std::ostringstream m;
    m << key << ": must be a number between " << lo << " and " << hi;
    fail(m.str());
    return fallback.value_or(lo);
  }
  return it->get<double>();
}

std::int64_t StrategyParams::integer(const std::string& key, std::optional<std::int64_t> fallback, std::int64_t lo,
                                     std::int64_t hi) {
  const auto it = j_.find(key);
  if (it == j_.end()) {
    if (!fallback) fail(key + ": required");
    return fallback.value_or(lo);
  }
  if (!it->is_number_integer() || it->get<std::int64_t>() < lo || it->get<std::int64_t>() > hi) {
    fail(key + ": must be an integer between " + std::to_string(lo) + " and " + std::to_string(hi));
    return fallback.value_or(lo);
  }
  return it->get<std::int64_t>();
}

std::string StrategyParams::text(const std::string& key, std::optional<std::string> fallback) {
  const auto it = j_.find(key);
  if (it == j_.end()) {
    if (!fallback) fail(key + ": required");
    return fallback.value_or("");
  }
  if (it->is_number_integer()) return std::to_string(it->get<std::int64_t>());
  if (!it->is_string()) {
    fail(key + ": must be a string");
    return fallback.value_or("");
  }
  return it->get<std::string>();
}

Price StrategyParams::price(const std::string& key, std::optional<double> fallbackDollars) {
  const double usd = number(key, fallbackDollars, 0.001, 100.0);
  return static_cast<Price>(std::llround(usd * static_cast<double>(kMicrosPerDollar)));
}

ClusterConstraints StrategyParams::constraints(const nlohmann::json& j, const std::string& where) {
  ClusterConstraints k;
  if (auto it = j.find("accelerators"); it != j.end()) {
    if (!it->is_array())
      fail(where + "accelerators: must be a list such as [\"H100\", \"H200\"]");
    else
      for (const auto& a : *it) {
        auto acc = a.is_string() ? parseAccelerator(a.get<std::string>()) : std::nullopt;
        if (!acc)
          fail(where + "accelerators: unknown accelerator " + a.dump());
        else
          k.accelerators.push_back(*acc);
      }
  }
  if (auto it = j.find("regions"); it != j.end()) {
    if (!it->is_array())
      fail(where + "regions: must be a list of region names");
    else
      for (const auto& r : *it) {
        if (r.is_string())
          k.regions.push_back(r.get<std::string>());
        else
          fail(where + "regions: names must be strings");
      }
  }
  if (auto it = j.find("min_gpu_memory_gb"); it != j.end()) {
    if (!it->is_number_integer() || it->get<int>() < 0)
      fail(where + "min_gpu_memory_gb: must be a non-negative integer");
    else
      k.minGpuMemoryGb = it->get<int>();
  }
  if (auto it = j.find("min_fabric"); it != j.end()) {
    auto f = it->is_string() ? parseFabricClass(it->get<std::string>()) : std::nullopt;
    if (!f)
      fail(where + "min_fabric: must be a fabric class name");
    else
      k.minFabric = *f;
  }
  if (auto it = j.find("max_carbon"); it != j.end()) {
    if (!it->is_number_integer())
      fail(where + "max_carbon: must be an integer (gCO2/kWh)");
    else
      k.maxCarbonGramsPerKwh = it->get<int>();
  }
  return k;
}

std::string StrategyParams::errors() const {
  std::string s;
  for (const auto& e : errors_) s += (s.empty() ? "" : "; ") + e;
  return s;
}

std::optional<Cluster> findCluster(const std::vector<Cluster>& clusters, const std::string& name) {
  for (const auto& c : clusters)
    if (c.name == name || std::to_string(c.id) == name) return c;
  return std::nullopt;
}

std::variant<Cluster, std::string> requireCluster(const std::vector<Cluster>& clusters, const std::string& name) {
  if (auto c = findCluster(clusters, name)) return *c;
  std::string why = "unknown cluster '" + name + "'; the market has: ";
  if (clusters.empty()) return why + "no clusters at all";
  for (std::size_t i = 0; i < clusters.size(); ++i) why += (i ? ", " : "") + clusters[i].name;
  return why;
}

}  // namespace tessera::backtest
