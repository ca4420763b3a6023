#pragma once
// `tessera-cli --connect host:port --account A --key K <command>`: quote, buy, sell, place,
// cancel and list orders and contracts on a running tessera-exchange from the shell
// (docs/cli.md, "tessera-cli --connect").
#include <iosfwd>
#include <string_view>

namespace tessera::net {

// Whether tessera-cli's first argument starts a command on the exchange: one of its verbs (the
// connection then comes from the config file) or a global option such as --connect.
bool isClientCommand(std::string_view first);

// argv[0] is "--connect", another global option or the verb. Returns the process exit code: 0 done, 1 refused or no
// answer, 2 a bad command line (nothing sent). `in` answers buy/sell's confirmation question.
int runClientCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);
// The same, asking on std::cin.
int runClientCommand(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tessera::net
