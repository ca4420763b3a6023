#pragma once
// `tessera-cli plan`: the planning question (core/cost/PlanSearch.h) on the book that engine
// inputs (JSON lines on stdin, the format of `tessera-cli match`) leave behind: placements ranked
// by effective cost, each with the all-or-none order that buys it (for `place --json`), and a
// reason per cluster that cannot serve. `tessera-cli --connect ... plan` asks the same of a live
// exchange's book (core/net/ClientCommand, through printPlan).
#include "core/cost/PlanSearch.h"
#include "core/engine/Matcher.h"

#include <iosfwd>

namespace tessera {

int runPlanCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err);

// Plans `request` (its window set from `book`'s clock: start between now + startIn and
// now + latestIn) on `book` and prints the placements; returns the exit code (0 with at least
// one placement, 1 with none, 2 for a request the planner refuses).
int printPlan(const Matcher& book, cost::PlanRequest request, Hour startIn, Hour latestIn, bool json, std::ostream& out,
              std::ostream& err);

}  // namespace tessera
