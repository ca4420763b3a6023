#pragma once
// Which GPUs of a topology a job (a contract) gets, and what that means for its gradient
// synchronisation: how many nodes, NVLink domains, leaves and sites it spans, and the slowest
// link its ring all-reduce has to cross.
#include "core/cost/Topology.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera::cost {

struct PlacedNode {
  int node = 0;
  int gpus = 0;  // the first `gpus` GPUs of that node
  bool operator==(const PlacedNode&) const = default;
};

struct Placement {
  std::vector<PlacedNode> nodes;
  GpuCount gpus() const;
  bool operator==(const Placement&) const = default;
};

struct PlacementSpan {
  GpuCount gpus = 0;
  int nodes = 0;
  int nvlinkDomains = 0;
  int leaves = 0;
  int sites = 0;
  int maxGpusPerNode = 0;
  // Links crossed between the two farthest GPUs: 0 inside an NVLink domain, 2 under one leaf
  // (node-leaf-node), 4 across leaves (via a spine), 6 across sites (spine-site link-spine).
  int fabricHops = 0;
};

enum class Bottleneck { NVLink, NodeFabric, LeafUplinks, InterSite };
std::string_view toString(Bottleneck b);

// The ring all-reduce's view of a placement: every ring step waits for the slowest link.
struct SyncPath {
  double gbytesPerSecPerGpu = 0;  // bandwidth each GPU's ring gets on the slowest link
  double latencySecondsPerAllReduce = 0;
  Bottleneck bottleneck = Bottleneck::NVLink;
};

// Nodes must exist and be distinct, GPU counts within the node; nullopt otherwise.
std::optional<std::string> validate(const Topology& t, const Placement& p);
PlacementSpan spanOf(const Topology& t, const Placement& p);
SyncPath syncPathOf(const Topology& t, const Placement& p);

// Packs `gpus` onto whole nodes from node 0 on, so a job stays inside as few NVLink domains,
// leaves and sites as the cluster allows. nullopt when the cluster is too small.
std::optional<Placement> packPlacement(const Topology& t, GpuCount gpus);
// Scatters `gpus` a few per node across the cluster, as a fragmented market fill would;
// `gpusPerNode` GPUs on every `stride`-th node. nullopt when it does not fit.
std::optional<Placement> scatterPlacement(const Topology& t, GpuCount gpus, int gpusPerNode, int stride);

}  // namespace tessera::cost
