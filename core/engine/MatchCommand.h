#pragma once
// `tessera-cli match`: input events as JSON lines in, engine events as JSON lines out.
#include <iosfwd>

namespace tessera {

int runMatchCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tessera
