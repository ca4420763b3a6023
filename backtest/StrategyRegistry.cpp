#include "backtest/StrategyRegistry.h"

#include <algorithm>

namespace tessera::backtest {
namespace {

struct Registry {
  std::vector<StrategyInfo> infos;    // ordered by name
  std::vector<StrategyMaker> makers;  // parallel to infos
  std::vector<std::string> errors;
};

// Built on first use: strategies register from static initialisers in other files, in an
// order the language leaves open.
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

bool registerStrategy(const char* name, const char* summary, const char* exampleJson, StrategyMaker make) {
  Registry& r = registry();
  const std::string n = name ? name : "";
  auto example = nlohmann::json::parse(exampleJson ? exampleJson : "", nullptr, false);
  if (n.empty() || !make) {
    r.errors.push_back("a strategy registration without a name or a maker");
    return false;
  }
  if (example.is_discarded()) {
    r.errors.push_back("strategy '" + n + "': its example parameters are not valid JSON");
    return false;
  }
  const auto at = std::lower_bound(r.infos.begin(), r.infos.end(), n,
                                   [](const StrategyInfo& i, const std::string& key) { return i.name < key; });
  if (at != r.infos.end() && at->name == n) {
    r.errors.push_back("strategy '" + n + "' is registered twice");
    return false;
  }
  const auto k = at - r.infos.begin();
  r.infos.insert(at, StrategyInfo{n, summary ? summary : "", std::move(example)});
  r.makers.insert(r.makers.begin() + k, make);
  return true;
}

const std::vector<std::string>& registrationErrors() { return registry().errors; }

const std::vector<StrategyInfo>& builtInStrategies() { return registry().infos; }

MadeStrategy makeStrategy(const std::string& name, const nlohmann::json& params) {
  const Registry& r = registry();
  for (std::size_t i = 0; i < r.infos.size(); ++i)
    if (r.infos[i].name == name) return r.makers[i](params);
  std::string known;
  for (const auto& s : r.infos) known += (known.empty() ? "" : ", ") + s.name;
  return "unknown strategy '" + name + "' (registered: " + known + ")";
}

}  // namespace tessera::backtest
