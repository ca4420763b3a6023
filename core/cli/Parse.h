#pragma once
// How tessera-cli's script commands (match, index, cost, plan) and tessera-backtest live read a
// command line with CLI11: --help prints the command's own help on `out` (exit 0; the man pages
// and the bash completion read it), and an unknown option or a malformed value is refused
// with CLI11's message and a hint to the command's --help on `err` (exit 2), before any work.
#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>

namespace tessera::cli {

// Parses argv (argv[0] is the command's own name, e.g. "match") into `app`, whose name is the
// command as a user types it ("tessera-cli match"). Returns the exit code when the command
// must not run (0 after --help, 2 for a wrong command line), nothing when it may.
[[nodiscard]] inline std::optional<int> parseOrExit(CLI::App& app, int argc, char** argv, std::ostream& out,
                                                    std::ostream& err) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << app.get_name() << ": " << e.what() << "\nRun '" << app.get_name() << " --help' for the options.\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace tessera::cli
