// tessera-cli: scriptable access to the engine, the cost model and a live exchange.
#include "core/engine/MatchCommand.h"
#include "core/settlement/IndexCommand.h"
#include "core/cost/CostCommand.h"
#include "core/cost/PlanCommand.h"
#include "core/net/ClientCommand.h"

#include <algorithm>
#include <cstring>
#include <iostream>
#include <string_view>

namespace {

void printUsage(std::ostream& os) {
  os << "usage: tessera-cli <command> [options]\n\n"
        "commands:\n"
        "  match [--reference]   read orders (JSON lines) on stdin, write engine events on stdout\n"
        "  index [--window H]    run orders through the engine, print the price index per hour\n"
        "  cost --workload W.json --cluster C.json --price USD [--json]\n"
        "                        effective cost of a workload on clusters (docs/cost-model.md)\n"
        "  plan --workload W.json [--kinds K,..] [--start-in H] [--latest-start-in H] [--budget USD] [--json]\n"
        "                        where the workload can run on the book the inputs on stdin leave,\n"
        "                        ranked by effective cost, with the order that buys each placement\n"
        "  --connect HOST:PORT --account A --key K quote|buy|sell|place|cancel|amend|orders|contracts|balance|book\n"
        "                        trade on a running tessera-exchange (--connect x --help for more)\n"
        "  quote|buy|sell|scale|... the same, with the connection from ~/.config/tessera/cli.toml\n"
        "  COMMAND --help        the options of one command (e.g. tessera-cli plan --help)\n"
        "  help                  this text\n"
        "  --version             the version\n\n"
        "See docs/cli.md for the formats.\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    printUsage(std::cerr);
    return 2;
  }
  const std::string_view command = argv[1];
  if (command == "match") return tessera::runMatchCommand(argc - 1, argv + 1, std::cin, std::cout, std::cerr);
  if (command == "index") return tessera::runIndexCommand(argc - 1, argv + 1, std::cin, std::cout, std::cerr);
  // `plan` reads a script on stdin unless it is given an exchange (--connect) to plan on.
  const bool connects =
      std::any_of(argv + 1, argv + argc, [](const char* a) { return std::string_view(a) == "--connect"; });
  if (tessera::net::isClientCommand(command) && (command != "plan" || connects))
    return tessera::net::runClientCommand(argc - 1, argv + 1, std::cout, std::cerr);
  if (command == "cost") return tessera::runCostCommand(argc - 1, argv + 1, std::cout, std::cerr);
  if (command == "plan") return tessera::runPlanCommand(argc - 1, argv + 1, std::cin, std::cout, std::cerr);
  if (command == "--version") {
    std::cout << "tessera-cli " << TESSERA_VERSION << "\n";
    return 0;
  }
  if (command == "help" || command == "--help" || command == "-h") {
    printUsage(std::cout);
    return 0;
  }
  std::cerr << "tessera-cli: unknown command '" << command << "'\n";
  printUsage(std::cerr);
  return 2;
}
