#pragma once
// `tessera-exchange accounts ...`: edits an accounts file (core/net/AccountsFile.h).

namespace tessera::exchange_app {

// argv[0] is "accounts". Returns the process's exit code: 0 done, 1 refused, 2 bad usage.
int runAccountsCommand(int argc, char** argv);

}  // namespace tessera::exchange_app
