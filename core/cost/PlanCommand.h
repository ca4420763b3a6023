#pragma once
// `tessera-cli plan`: the planning question (core/cost/PlanSearch.h) on the book that engine
// inputs (JSON lines on stdin, the format of `tessera-cli match`) leave behind: placements ranked
// by effective cost, each with the all-or-none order that buys it (for `place --json`), and a
// reason per cluster that cannot serve.
#include <iosfwd>

namespace tessera {

int runPlanCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

}  // namespace tessera
