#pragma once
// `tessera-cli --connect host:port --account A --key K <command>`: quote, buy, sell, place,
// cancel and list orders and contracts on a running tessera-exchange from the shell
// (docs/cli.md, "tessera-cli --connect").
#include <iosfwd>

namespace tessera::net {

// argv[0] is "--connect". Returns the process exit code: 0 done, 1 refused or no answer,
// 2 a bad command line (nothing sent). `in` answers buy/sell's confirmation question.
int runClientCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);
// The same, asking on std::cin.
int runClientCommand(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tessera::net
