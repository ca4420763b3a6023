#include "MatcherComparison.h"

#include "core/engine/EventJson.h"

#include <nlohmann/json.hpp>

namespace tessera::testing {

std::string describe(const Event& e) { return toJson(e, AccountDirectory{}).dump(); }
std::string describe(const InputEvent& e) { return toJson(e, AccountDirectory{}).dump(); }

std::vector<std::vector<Event>> run(Matcher& m, const std::vector<InputEvent>& script) {
  std::vector<std::vector<Event>> out;
  out.reserve(script.size());
  for (const auto& in : script) {
    out.emplace_back();
    m.apply(in, out.back());
  }
  return out;
}

}  // namespace tessera::testing
