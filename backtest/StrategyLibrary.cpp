#include "backtest/StrategyLibrary.h"

#include "backtest/StrategyRegistry.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>

namespace tessera::backtest {

std::variant<std::vector<std::string>, std::string> loadStrategyLibrary(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return "strategy library '" + path + "' not found";
  std::vector<std::string> before;
  for (const auto& s : builtInStrategies()) before.push_back(s.name);
  const std::size_t errorsBefore = registrationErrors().size();
  // dlopen needs a path with a slash to skip the library search path.
  const std::string p = path.find('/') == std::string::npos ? "./" + path : path;
  // Kept loaded for the life of the program: its strategies' code lives in it.
  if (!dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL)) {
    const char* why = dlerror();
    return "cannot load strategy library '" + path + "': " + (why ? why : "unknown error");
  }
  const auto& errors = registrationErrors();
  if (errors.size() > errorsBefore) return "strategy library '" + path + "': " + errors.back();
  std::vector<std::string> added;
  for (const auto& s : builtInStrategies())
    if (std::find(before.begin(), before.end(), s.name) == before.end()) added.push_back(s.name);
  if (added.empty())
    return "strategy library '" + path + "' registers no strategy (TESSERA_REGISTER_STRATEGY) or was loaded already";
  return added;
}

}  // namespace tessera::backtest
