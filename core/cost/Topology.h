#pragma once
// A cluster's physical topology: what the summary fields of a Cluster leave out but a
// synchronous job feels: NVLink domains, rails, leaf/spine fabric, sites and their link.
#include "core/domain/Cluster.h"

#include <string>
#include <vector>

namespace tessera::cost {

struct Site {
  std::string name;
  int nodes = 0;
  bool operator==(const Site&) const = default;
};

// Scale-out fabric. Rail-optimised: each GPU of a node owns railsPerNode / gpusPerNode rails.
struct Fabric {
  FabricClass fabricClass = FabricClass::InfiniBand;
  int railsPerNode = 8;
  double gbpsPerRail = 400;  // Gb/s (bits), as NICs are sold
  int nodesPerLeaf = 32;
  int spinesPerSite = 8;
  double oversubscription = 1;  // leaf downlink:uplink; traffic crossing leaves is divided by it
  double hopLatencyUs = 1;      // per switch hop

  double nodeGBps() const { return railsPerNode * gbpsPerRail / 8.0; }
  bool operator==(const Fabric&) const = default;
};

struct InterSiteLink {
  double gbps = 0;       // total between two adjacent sites, Gb/s
  double latencyMs = 0;  // one way
  bool operator==(const InterSiteLink&) const = default;
};

struct Reliability {
  double nodeFailuresPerYear = 0.10;  // after burn-in: about 10% of nodes a year
  bool inBurnIn = false;
  double burnInFailureFraction = 0.15;  // during burn-in 10-20% of nodes fail...
  int burnInDays = 30;                  // ...within this period

  double steadyFailuresPerNodeHour() const { return nodeFailuresPerYear / (365.0 * 24.0); }
  // During burn-in (assumed to start with the job): the burn-in rate, at least the steady one.
  double burnInFailuresPerNodeHour() const;
  double burnInHours() const { return inBurnIn ? burnInDays * 24.0 : 0.0; }
  bool operator==(const Reliability&) const = default;
};

struct Topology {
  std::string name;
  std::string provider;
  std::string region;
  Accelerator accelerator = Accelerator::H100;
  int gpuMemoryGb = 80;
  int gpusPerNode = 8;
  IntraNodeLink intraNodeLink = IntraNodeLink::NVSwitch;
  double intraNodeGBpsPerGpu = 900;  // GB/s (bytes)
  int nodesPerNvlinkDomain = 1;      // >1 for rack-scale NVLink (e.g. NVL72: 18 nodes of 4)
  Fabric fabric;
  std::vector<Site> sites;  // nodes are numbered site by site
  InterSiteLink interSite;
  double storageGBps = 50;  // aggregate read/write bandwidth of shared storage
  double storageTb = 0;
  Reliability reliability;

  int nodeCount() const;
  GpuCount totalGpus() const { return static_cast<GpuCount>(gpusPerNode) * nodeCount(); }
  bool operator==(const Topology&) const = default;
};

// Where a node sits. Leaves and NVLink domains are numbered across the whole cluster.
struct NodeLocation {
  int site = 0;
  int leaf = 0;
  int nvlinkDomain = 0;
};

NodeLocation locate(const Topology& t, int node);
int leafCount(const Topology& t);
int leavesInSite(const Topology& t, int site);
int firstNodeOfSite(const Topology& t, int site);

// A default topology for a listed cluster, so every cluster can be drawn and costed without a
// topology file: one site, rail-optimised fabric split into rails of 400G (or the whole
// per-node bandwidth on one rail if it is smaller), non-blocking for InfiniBand, 2:1 otherwise.
Topology deriveTopology(const Cluster& c);

}  // namespace tessera::cost
