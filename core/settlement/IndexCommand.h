#pragma once
// `tessera-cli index`: runs an input script through the engine and prints the price index
// (docs/settlement.md) at the end of every hour the clock passes, as JSON lines.
#include <iosfwd>

namespace tessera {

int runIndexCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tessera
