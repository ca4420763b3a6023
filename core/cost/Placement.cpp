#include "core/cost/Placement.h"

#include <algorithm>
#include <set>

namespace tessera::cost {

GpuCount Placement::gpus() const {
  GpuCount n = 0;
  for (const PlacedNode& p : nodes) n += p.gpus;
  return n;
}

std::string_view toString(Bottleneck b) {
  switch (b) {
    case Bottleneck::NVLink: return "NVLink domain";
    case Bottleneck::NodeFabric: return "node fabric";
    case Bottleneck::LeafUplinks: return "leaf uplinks";
    case Bottleneck::InterSite: return "inter-site link";
  }
  return "?";
}

std::optional<std::string> validate(const Topology& t, const Placement& p) {
  std::set<int> seen;
  for (const PlacedNode& n : p.nodes) {
    if (n.node < 0 || n.node >= t.nodeCount()) return "node " + std::to_string(n.node) + " is not in the cluster";
    if (n.gpus <= 0 || n.gpus > t.gpusPerNode)
      return "node " + std::to_string(n.node) + ": " + std::to_string(n.gpus) + " GPUs requested, the node has " +
             std::to_string(t.gpusPerNode);
    if (!seen.insert(n.node).second) return "node " + std::to_string(n.node) + " listed twice";
  }
  if (p.nodes.empty()) return std::string("the placement has no GPUs");
  return std::nullopt;
}

PlacementSpan spanOf(const Topology& t, const Placement& p) {
  PlacementSpan s;
  std::set<int> domains, leaves, sites;
  for (const PlacedNode& n : p.nodes) {
    const NodeLocation loc = locate(t, n.node);
    domains.insert(loc.nvlinkDomain);
    leaves.insert(loc.leaf);
    sites.insert(loc.site);
    s.gpus += n.gpus;
    s.maxGpusPerNode = std::max(s.maxGpusPerNode, n.gpus);
  }
  s.nodes = static_cast<int>(p.nodes.size());
  s.nvlinkDomains = static_cast<int>(domains.size());
  s.leaves = static_cast<int>(leaves.size());
  s.sites = static_cast<int>(sites.size());
  if (s.sites > 1)
    s.fabricHops = 6;
  else if (s.leaves > 1)
    s.fabricHops = 4;
  else if (s.nvlinkDomains > 1)
    s.fabricHops = 2;
  else
    s.fabricHops = 0;
  return s;
}

SyncPath syncPathOf(const Topology& t, const Placement& p) {
  const PlacementSpan s = spanOf(t, p);
  SyncPath path;
  path.gbytesPerSecPerGpu = t.intraNodeGBpsPerGpu;
  path.bottleneck = Bottleneck::NVLink;
  if (s.nvlinkDomains <= 1) return path;

  // Rail-optimised: each GPU's ring runs over its own share of the node's NICs.
  const double fabricPerGpu = t.fabric.nodeGBps() / t.gpusPerNode;
  if (fabricPerGpu < path.gbytesPerSecPerGpu) {
    path.gbytesPerSecPerGpu = fabricPerGpu;
    path.bottleneck = Bottleneck::NodeFabric;
  }
  if (s.leaves > 1 && fabricPerGpu / t.fabric.oversubscription < path.gbytesPerSecPerGpu) {
    path.gbytesPerSecPerGpu = fabricPerGpu / t.fabric.oversubscription;
    path.bottleneck = Bottleneck::LeafUplinks;
  }
  if (s.sites > 1) {
    // All the node's parallel rings cross the site link, each once per direction.
    const double perRing = t.interSite.gbps / 8.0 / std::max(1, s.maxGpusPerNode);
    if (perRing < path.gbytesPerSecPerGpu) {
      path.gbytesPerSecPerGpu = perRing;
      path.bottleneck = Bottleneck::InterSite;
    }
  }
  // A ring over the nodes takes 2(n-1) steps, each through the switches between neighbours;
  // the site link is crossed twice per pass (there and back), pipelined.
  path.latencySecondsPerAllReduce = 2.0 * (s.nodes - 1) * s.fabricHops * t.fabric.hopLatencyUs * 1e-6;
  if (s.sites > 1) path.latencySecondsPerAllReduce += 2.0 * (s.sites - 1) * t.interSite.latencyMs * 1e-3;
  return path;
}

std::optional<Placement> packPlacement(const Topology& t, GpuCount gpus) {
  if (gpus <= 0 || gpus > t.totalGpus()) return std::nullopt;
  Placement p;
  GpuCount left = gpus;
  for (int node = 0; left > 0; ++node) {
    const int take = static_cast<int>(std::min<GpuCount>(left, t.gpusPerNode));
    p.nodes.push_back({node, take});
    left -= take;
  }
  return p;
}

std::optional<Placement> scatterPlacement(const Topology& t, GpuCount gpus, int gpusPerNode, int stride) {
  if (gpus <= 0 || gpusPerNode <= 0 || gpusPerNode > t.gpusPerNode || stride <= 0) return std::nullopt;
  Placement p;
  GpuCount left = gpus;
  for (int node = 0; left > 0; node += stride) {
    if (node >= t.nodeCount()) return std::nullopt;
    const int take = static_cast<int>(std::min<GpuCount>(left, gpusPerNode));
    p.nodes.push_back({node, take});
    left -= take;
  }
  return p;
}

}  // namespace tessera::cost
