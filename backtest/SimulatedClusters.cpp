#include "backtest/SimulatedClusters.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tessera::backtest {
namespace {

Cluster make(std::string name, std::string provider, std::string region, Accelerator acc, int memGb, int perNode,
             int nodes, IntraNodeLink link, int linkGBps, FabricClass fabric, int fabricGbps, int storageTb,
             int carbon) {
  Cluster c;
  c.name = std::move(name);
  c.provider = std::move(provider);
  c.region = std::move(region);
  c.accelerator = acc;
  c.gpuMemoryGb = memGb;
  c.gpusPerNode = perNode;
  c.nodeCount = nodes;
  c.intraNodeLink = link;
  c.intraNodeGBps = linkGBps;
  c.fabric = fabric;
  c.fabricGbpsPerNode = fabricGbps;
  c.storageTb = storageTb;
  c.carbonGramsPerKwh = carbon;
  return c;
}

}  // namespace

std::vector<Cluster> simulatedClusters(std::size_t count) {
  using A = Accelerator;
  using L = IntraNodeLink;
  using F = FabricClass;
  // Ordered so that a short prefix still mixes kinds and regions.
  std::vector<Cluster> all = {
      make("aurora-us-east-h100-a", "aurora", "us-east", A::H100, 80, 8, 64, L::NVSwitch, 900, F::InfiniBand, 3200, 400,
           380),
      make("borealis-eu-north-h200-a", "borealis", "eu-north", A::H200, 141, 8, 48, L::NVSwitch, 900, F::InfiniBand,
           3200, 600, 40),
      make("cobalt-us-west-a100-a", "cobalt", "us-west", A::A100, 80, 8, 40, L::NVSwitch, 600, F::InfiniBand, 1600, 200,
           250),
      make("ember-eu-central-l40s-a", "ember", "eu-central", A::L40S, 48, 8, 30, L::PCIe, 64, F::Ethernet, 200, 100,
           350),
      make("fjord-us-central-mi300x-a", "fjord", "us-central", A::MI300X, 192, 8, 32, L::InfinityFabric, 896, F::RoCE,
           3200, 300, 420),
      make("granite-us-east-b200-a", "granite", "us-east", A::B200, 192, 8, 24, L::NVSwitch, 1800, F::InfiniBand, 3200,
           500, 380),
      make("harbor-us-west-h100-b", "harbor", "us-west", A::H100, 80, 8, 128, L::NVSwitch, 900, F::InfiniBand, 3200,
           800, 250),
      make("ionic-ap-northeast-h100-a", "ionic", "ap-northeast", A::H100, 80, 8, 32, L::NVSwitch, 900, F::RoCE, 3200,
           200, 460),
      make("juniper-eu-west-l40s-a", "juniper", "eu-west", A::L40S, 48, 4, 40, L::PCIe, 64, F::Ethernet, 100, 50, 60),
      make("kestrel-us-east-rtx4090-a", "kestrel", "us-east", A::RTX4090, 24, 8, 60, L::PCIe, 32, F::Ethernet, 25, 20,
           380),
      make("aurora-us-south-gb200-a", "aurora", "us-south", A::GB200, 186, 72, 4, L::NVSwitch, 1800, F::InfiniBand,
           28800, 1000, 410),
      make("borealis-eu-north-h100-b", "borealis", "eu-north", A::H100, 80, 8, 64, L::NVSwitch, 900, F::InfiniBand,
           3200, 400, 40),
      make("cobalt-eu-central-a100-b", "cobalt", "eu-central", A::A100, 40, 8, 32, L::NVSwitch, 600, F::RoCE, 800, 100,
           350),
      make("lumen-us-west-mi300x-b", "lumen", "us-west", A::MI300X, 192, 8, 48, L::InfinityFabric, 896, F::RoCE, 3200,
           300, 250),
      make("harbor-us-central-h200-b", "harbor", "us-central", A::H200, 141, 8, 32, L::NVSwitch, 900, F::InfiniBand,
           3200, 400, 120),
      make("meridian-ap-southeast-a100-a", "meridian", "ap-southeast", A::A100, 80, 8, 24, L::NVSwitch, 600,
           F::Ethernet, 400, 100, 500),
      make("granite-eu-north-b200-b", "granite", "eu-north", A::B200, 192, 8, 16, L::NVSwitch, 1800, F::InfiniBand,
           3200, 300, 30),
      make("kestrel-eu-west-rtx4090-b", "kestrel", "eu-west", A::RTX4090, 24, 8, 40, L::PCIe, 32, F::Ethernet, 25, 20,
           60),
      // Leased whole (supplyOf): the capacity a 512- to 2048-GPU training run buys.
      make("summit-us-central-h100-w", "summit", "us-central", A::H100, 80, 8, 256, L::NVSwitch, 900, F::InfiniBand,
           3200, 2000, 420),
      make("tundra-eu-north-h200-w", "tundra", "eu-north", A::H200, 141, 8, 128, L::NVSwitch, 900, F::InfiniBand, 3200,
           1500, 30),
      make("vega-us-east-b200-w", "vega", "us-east", A::B200, 192, 8, 128, L::NVSwitch, 1800, F::InfiniBand, 3200, 1500,
           380),
  };
  if (all.size() != kSimulatedClusterCount) throw std::logic_error("kSimulatedClusterCount is stale");
  count = std::clamp<std::size_t>(count, 1, all.size());
  all.resize(count);
  for (std::size_t i = 0; i < all.size(); ++i) all[i].id = static_cast<ClusterId>(i + 1);
  return all;
}

ClusterSupply supplyOf(const Cluster& c) {
  // The 2048-GPU cluster goes as two halves, so two runs of 1024 can lease it side by side.
  if (c.name == "summit-us-central-h100-w") return {SupplyStyle::WholeCluster, 2};
  if (c.name == "tundra-eu-north-h200-w" || c.name == "vega-us-east-b200-w") return {SupplyStyle::WholeCluster, 1};
  return {};
}

InterruptibleSupply interruptibleSupplyOf(const Cluster& c) {
  // A quarter of the nodes of two H100 sites, an A100 site and an MI300X site, with one or two
  // hours' notice: what spot and preemptible offers look like at GPU clouds today.
  const int quarter = std::max(1, c.nodeCount / 4);
  if (c.name == "aurora-us-east-h100-a" || c.name == "fjord-us-central-mi300x-a") return {1, quarter};
  if (c.name == "cobalt-us-west-a100-a" || c.name == "harbor-us-west-h100-b") return {2, quarter};
  return {};
}

std::vector<Cluster> interruptibleClusters(const std::vector<Cluster>& firm) {
  std::vector<Cluster> out;
  for (const Cluster& c : firm) {
    const InterruptibleSupply supply = interruptibleSupplyOf(c);
    if (supply.noticeHours <= 0 || c.interruptible()) continue;
    Cluster i = c;
    i.id = static_cast<ClusterId>(firm.size() + out.size() + 1);
    i.name = c.name + "-int";
    i.interruptibleOf = c.id;
    i.noticeHours = supply.noticeHours;
    out.push_back(std::move(i));
  }
  return out;
}

Price referencePrice(const Cluster& c) {
  // Dollars per GPU-hour around public on-demand and marketplace figures (H100 about $1.50 to
  // $3.00, newer parts dearer, older and inference parts cheaper).
  double usd = 2.20;
  switch (c.accelerator) {
    case Accelerator::A100: usd = c.gpuMemoryGb >= 80 ? 1.35 : 1.10; break;
    case Accelerator::H100: usd = 2.20; break;
    case Accelerator::H200: usd = 3.10; break;
    case Accelerator::B200: usd = 4.60; break;
    case Accelerator::GB200: usd = 5.80; break;
    case Accelerator::MI300X: usd = 1.95; break;
    case Accelerator::L40S: usd = 0.85; break;
    case Accelerator::RTX4090: usd = 0.40; break;
  }
  if (c.region.rfind("eu-north", 0) == 0)
    usd *= 0.95;  // cheap, clean power
  else if (c.region.rfind("eu-", 0) == 0)
    usd *= 1.04;
  else if (c.region.rfind("ap-", 0) == 0)
    usd *= 1.12;
  if (c.fabric == FabricClass::InfiniBand) usd *= 1.04;  // training-grade interconnect
  return static_cast<Price>(std::llround(usd * 1000.0)) * 1000;
}

}  // namespace tessera::backtest
