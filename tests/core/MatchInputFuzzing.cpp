#include "MatchInputFuzzing.h"

#include "core/engine/MatchCommand.h"

#include <nlohmann/json.hpp>

#include <sstream>

namespace tessera::testing {

bool runMatchOnBytes(const std::uint8_t* data, std::size_t size, std::string& why) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  std::string outputs[2];
  for (int reference = 0; reference < 2; ++reference) {
    std::istringstream in(input);
    std::ostringstream out, err;
    std::string a0 = "match", a1 = "--reference";
    char* argv[] = {a0.data(), a1.data()};
    if (runMatchCommand(reference ? 2 : 1, argv, in, out, err) != 0) {
      why = "match exited non-zero";
      return false;
    }
    outputs[reference] = out.str();
  }
  if (outputs[0] != outputs[1]) {
    why = "fast engine and reference matcher disagree";
    return false;
  }
  std::istringstream lines(outputs[0]);
  for (std::string l; std::getline(lines, l);) {
    const auto j = nlohmann::json::parse(l, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("event")) {
      why = "printed a line that is not an event: " + l;
      return false;
    }
  }
  return true;
}

}  // namespace tessera::testing
