#include "core/cost/Topology.h"

#include <algorithm>

namespace tessera::cost {

double Reliability::burnInFailuresPerNodeHour() const {
  if (!inBurnIn || burnInDays <= 0) return steadyFailuresPerNodeHour();
  return std::max(steadyFailuresPerNodeHour(), burnInFailureFraction / (burnInDays * 24.0));
}

int Topology::nodeCount() const {
  int n = 0;
  for (const Site& s : sites) n += s.nodes;
  return n;
}

int leavesInSite(const Topology& t, int site) {
  const int per = std::max(1, t.fabric.nodesPerLeaf);
  return (t.sites.at(site).nodes + per - 1) / per;
}

int leafCount(const Topology& t) {
  int n = 0;
  for (int s = 0; s < static_cast<int>(t.sites.size()); ++s) n += leavesInSite(t, s);
  return n;
}

int firstNodeOfSite(const Topology& t, int site) {
  int first = 0;
  for (int s = 0; s < site; ++s) first += t.sites.at(s).nodes;
  return first;
}

NodeLocation locate(const Topology& t, int node) {
  NodeLocation loc;
  int firstNode = 0;
  int firstLeaf = 0;
  const int perLeaf = std::max(1, t.fabric.nodesPerLeaf);
  for (int s = 0; s < static_cast<int>(t.sites.size()); ++s) {
    if (node < firstNode + t.sites[s].nodes) {
      loc.site = s;
      loc.leaf = firstLeaf + (node - firstNode) / perLeaf;
      break;
    }
    firstNode += t.sites[s].nodes;
    firstLeaf += leavesInSite(t, s);
  }
  // NVLink domains never span sites: they are racks.
  const int perDomain = std::max(1, t.nodesPerNvlinkDomain);
  int domainBase = 0;
  for (int s = 0; s < loc.site; ++s) domainBase += (t.sites[s].nodes + perDomain - 1) / perDomain;
  loc.nvlinkDomain = domainBase + (node - firstNodeOfSite(t, loc.site)) / perDomain;
  return loc;
}

Topology deriveTopology(const Cluster& c) {
  Topology t;
  t.name = c.name;
  t.provider = c.provider;
  t.region = c.region;
  t.accelerator = c.accelerator;
  t.gpuMemoryGb = c.gpuMemoryGb;
  t.gpusPerNode = std::max(1, c.gpusPerNode);
  t.intraNodeLink = c.intraNodeLink;
  t.intraNodeGBpsPerGpu = std::max(1, c.intraNodeGBps);
  t.fabric.fabricClass = c.fabric;
  const double perNode = std::max(1, c.fabricGbpsPerNode);
  if (perNode >= 400) {
    t.fabric.railsPerNode = static_cast<int>(perNode / 400);
    t.fabric.gbpsPerRail = perNode / t.fabric.railsPerNode;
  } else {
    t.fabric.railsPerNode = 1;
    t.fabric.gbpsPerRail = perNode;
  }
  t.fabric.oversubscription = c.fabric == FabricClass::InfiniBand ? 1.0 : 2.0;
  t.fabric.hopLatencyUs = c.fabric == FabricClass::Ethernet ? 10.0 : 1.0;
  t.fabric.nodesPerLeaf = 32;
  t.fabric.spinesPerSite = std::max(1, std::min(8, (std::max(1, c.nodeCount) + 31) / 32));
  t.sites = {Site{c.region.empty() ? c.name : c.region, std::max(1, c.nodeCount)}};
  t.storageTb = c.storageTb;
  // Without a measured figure, assume shared storage of roughly 1 GB/s per node, at least 10.
  t.storageGBps = std::max(10.0, static_cast<double>(c.nodeCount));
  return t;
}

}  // namespace tessera::cost
