#include "core/engine/InputLineReader.h"

#include <nlohmann/json.hpp>

#include <istream>

namespace tessera {

std::size_t readInputLines(std::istream& in, AccountDirectory& accounts, const InputLineHandlers& on) {
  std::string line;
  std::size_t lineNo = 0;
  std::size_t malformed = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      ++malformed;
      on.malformed(lineNo, "not valid JSON");
      continue;
    }
    auto parsed = inputEventFromJson(j, accounts);
    if (auto* e = std::get_if<JsonError>(&parsed)) {
      ++malformed;
      on.malformed(lineNo, e->message);
      continue;
    }
    on.input(std::get<InputEvent>(parsed));
  }
  return malformed;
}

}  // namespace tessera
