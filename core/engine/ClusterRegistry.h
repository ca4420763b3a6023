#pragma once
// The clusters the market trades, by id, in ascending id order.
#include "core/domain/Cluster.h"
#include "core/domain/Order.h"

#include <map>
#include <vector>

namespace tessera {

class ClusterRegistry {
 public:
  bool add(const Cluster& c) { return clusters_.emplace(c.id, c).second; }
  const Cluster* find(ClusterId id) const {
    auto it = clusters_.find(id);
    return it == clusters_.end() ? nullptr : &it->second;
  }
  std::vector<Cluster> all() const;
  // Clusters that satisfy `constraints` and can hold `gpus` GPUs, ascending by id.
  std::vector<ClusterId> candidates(const ClusterConstraints& constraints, GpuCount gpus) const;

 private:
  std::map<ClusterId, Cluster> clusters_;
};

}  // namespace tessera
