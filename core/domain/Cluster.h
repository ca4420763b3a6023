#pragma once
// A cluster: N accelerators of one kind, interconnected, at one site.
#include "core/domain/Types.h"

#include <optional>
#include <string>
#include <string_view>

namespace tessera {

enum class Accelerator : std::uint8_t { A100, H100, H200, B200, GB200, MI300X, L40S, RTX4090 };
enum class IntraNodeLink : std::uint8_t { PCIe, NVLink, NVSwitch, InfinityFabric };
// Ordered from weakest to strongest so "minimum fabric class" is a comparison.
enum class FabricClass : std::uint8_t { Ethernet = 0, RoCE = 1, InfiniBand = 2 };

std::string_view toString(Accelerator a);
std::string_view toString(IntraNodeLink l);
std::string_view toString(FabricClass f);
std::optional<Accelerator> parseAccelerator(std::string_view s);
std::optional<IntraNodeLink> parseIntraNodeLink(std::string_view s);
std::optional<FabricClass> parseFabricClass(std::string_view s);
// The memory of one accelerator of this kind as sold (A100 and H100: 80 GB, H200: 141 GB, B200,
// GB200 and MI300X: 192 GB, L40S: 48 GB, RTX4090: 24 GB): a cluster that names its accelerator
// but not its memory has this much.
int standardGpuMemoryGb(Accelerator a);

struct Cluster {
  ClusterId id = 0;
  std::string name;  // e.g. "lambda-us-east-h100-a"
  std::string provider;
  std::string region;  // e.g. "us-east", "eu-north"
  Accelerator accelerator = Accelerator::H100;
  int gpuMemoryGb = 80;
  int gpusPerNode = 8;
  int nodeCount = 1;
  IntraNodeLink intraNodeLink = IntraNodeLink::NVSwitch;
  int intraNodeGBps = 900;  // per-GPU intra-node bandwidth, GB/s
  FabricClass fabric = FabricClass::InfiniBand;
  int fabricGbpsPerNode = 3200;  // inter-node bandwidth per node, Gb/s
  int storageTb = 0;
  int carbonGramsPerKwh = 400;  // gCO2/kWh of the site's grid
  // Set: this is the interruptible book of cluster `interruptibleOf` (the same machines, sold
  // with the right to reclaim them on `noticeHours` hours' notice). It is a cluster of its own
  // to the engine, so it has its own book and its contracts are told apart by their cluster;
  // its grants count against the physical cluster's size (docs/matching.md, "Interruptible
  // capacity").
  std::optional<ClusterId> interruptibleOf;
  Hour noticeHours = 0;

  bool interruptible() const { return interruptibleOf.has_value(); }

  GpuCount totalGpus() const { return static_cast<GpuCount>(gpusPerNode) * nodeCount; }
  bool operator==(const Cluster&) const = default;
};

}  // namespace tessera
