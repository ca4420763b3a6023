#pragma once
// `tessera-cli cost`: the effective-cost breakdown of a workload on one or more clusters.
#include <ostream>

namespace tessera {

// argv[0] is "cost". Returns 0 on success, 1 when an input cannot be used, 2 on bad usage.
int runCostCommand(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace tessera
