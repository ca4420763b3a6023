#include "core/engine/ClusterRegistry.h"

namespace tessera {

std::vector<Cluster> ClusterRegistry::all() const {
  std::vector<Cluster> out;
  out.reserve(clusters_.size());
  for (const auto& [id, c] : clusters_) out.push_back(c);
  return out;
}

std::vector<ClusterId> ClusterRegistry::candidates(const ClusterConstraints& constraints, GpuCount gpus) const {
  std::vector<ClusterId> out;
  for (const auto& [id, c] : clusters_)
    if (c.totalGpus() >= gpus && constraints.matches(c)) out.push_back(id);
  return out;
}

}  // namespace tessera
