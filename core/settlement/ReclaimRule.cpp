#include "core/settlement/ReclaimRule.h"

#include <algorithm>

namespace tessera {

std::vector<ReclaimShare> spreadReclaim(std::vector<Contract> contracts, GpuCount gpus, Hour from, Hour end,
                                        const std::function<GpuCount(const Contract&, Hour, Hour)>& takeable) {
  std::sort(contracts.begin(), contracts.end(), [](const Contract& a, const Contract& b) { return a.id < b.id; });
  std::vector<ReclaimShare> shares;
  for (const Contract& k : contracts) {
    if (gpus <= 0) break;
    const Hour s = std::max(from, k.start), e = std::min(end, k.end);
    if (s >= e) continue;
    const GpuCount take = std::min({gpus, k.gpus, takeable(k, s, e)});
    if (take <= 0) continue;
    shares.push_back({k.id, s, e, take});
    gpus -= take;
  }
  return shares;
}

}  // namespace tessera
