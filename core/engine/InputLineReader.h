#pragma once
// Reads engine inputs as JSON lines (docs/cli.md): skips blank and '#' lines, parses each line,
// and hands over either the input or a reason it could not be read, with its line number.
#include "core/engine/EventJson.h"

#include <functional>
#include <iosfwd>
#include <string>

namespace tessera {

struct InputLineHandlers {
  std::function<void(const InputEvent&)> input;
  std::function<void(std::size_t line, const std::string& why)> malformed;
};

// Returns the number of malformed lines.
std::size_t readInputLines(std::istream& in, AccountDirectory& accounts, const InputLineHandlers& on);

}  // namespace tessera
