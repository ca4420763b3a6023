#pragma once
// `tessera-cli --connect host:port --account A --key K <command>`: place, cancel and list
// orders on a running tessera-exchange from the shell.
#include <iosfwd>

namespace tessera::net {

// argv[0] is "--connect". Returns the process exit code.
int runClientCommand(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tessera::net
