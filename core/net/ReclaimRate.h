#pragma once
// The reclaim rate observed on one interruptible cluster, as the exchange reports it (the
// reclaim_rates reply and md_reclaim_rates, over the contracts not yet settled): a plain value
// the client, the terminal's session and the planner share.
#include "core/domain/Types.h"

#include <cstdint>

namespace tessera::net {

struct ReclaimRate {
  ClusterId cluster = 0;
  std::int64_t soldGpuHours = 0;
  std::int64_t reclaimedGpuHours = 0;
  double rate = 0;                      // reclaimed over sold GPU-hours
  std::int64_t contractedHours = 0;     // the contracts' hours, summed
  std::int64_t reclaimedContracts = 0;  // contracts that lost hours to a reclaim
};

}  // namespace tessera::net
