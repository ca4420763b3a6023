#pragma once
// Strategies from a shared library built outside the project against the installed package
// (`find_package(Tessera)`, docs/strategy-libraries.md). The library registers its strategies
// with TESSERA_REGISTER_STRATEGY when it is loaded; the symbols it uses (the registry,
// StrategyParams...) come from the program loading it, which exports them.
#include <string>
#include <variant>
#include <vector>

namespace tessera::backtest {

// Loads the library and returns the names of the strategies it registered, or why it could
// not be loaded (not found, not a shared library, a symbol the program lacks, a name already
// taken, no strategy registered at all).
std::variant<std::vector<std::string>, std::string> loadStrategyLibrary(const std::string& path);

}  // namespace tessera::backtest
