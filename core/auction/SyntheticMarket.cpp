#include "core/auction/SyntheticMarket.h"

#include <algorithm>
#include <random>

namespace tessera::auction {

SyntheticMarket generateMarket(const SyntheticMarketOptions& o, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {  // inclusive
    return lo + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  auto chance = [&rng](double p) { return static_cast<double>(rng() % 1'000'000) < p * 1e6; };
  SyntheticMarket m;
  m.now = o.now;
  const Accelerator kinds[] = {Accelerator::H100, Accelerator::H200, Accelerator::A100};
  std::vector<Price> base;
  for (int c = 0; c < o.clusters; ++c) {
    Cluster cl;
    cl.id = static_cast<ClusterId>(c + 1);
    cl.name = "call-" + std::to_string(c + 1);
    cl.accelerator = kinds[c % 3];
    cl.gpuMemoryGb = standardGpuMemoryGb(cl.accelerator);
    cl.region = c % 2 == 0 ? "us-east" : "eu-north";
    cl.nodeCount = 100'000;  // large enough that every generated ask can be granted
    m.clusters.push_back(cl);
    base.push_back(uniform(1'500'000, 3'000'000));
  }
  const Hour window = std::min(o.maxWindow, o.hours);
  for (int i = 0; i < o.orders; ++i) {
    OrderRequest r;
    r.id = static_cast<OrderId>(i + 1);
    r.account = static_cast<AccountId>(i + 1);
    const ClusterId cluster = static_cast<ClusterId>(uniform(1, o.clusters));
    const Price ref = base[cluster - 1];
    const Hour len = uniform(1, window);
    r.start = o.now + uniform(0, o.hours - len);
    r.end = r.start + len;
    r.gpus = static_cast<GpuCount>(uniform(1, o.maxGpus));
    const double kind = static_cast<double>(rng() % 1'000'000) / 1e6;
    if (kind < o.blockAskShare) {
      r.side = Side::Sell;
      r.fill = FillStyle::AllOrNone;
      r.cluster = cluster;
      r.gpus = static_cast<GpuCount>(uniform(o.maxGpus, 4 * o.maxGpus));
      r.limit = ref * uniform(70, 110) / 100;
    } else if (kind < o.blockAskShare + o.blockBidShare) {
      r.side = Side::Buy;
      r.fill = FillStyle::AllOrNone;
      r.limit = ref * uniform(85, 140) / 100;
      if (chance(o.flexibleShare)) {
        const Hour slack = uniform(1, std::max<Hour>(1, o.maxSlack));
        r.duration = len;
        r.end = std::min(o.now + o.hours, r.start + len + slack);
        r.start = std::max(o.now, r.end - len - slack);
      }
      if (chance(o.constraintShare)) {
        ClusterConstraints k;
        k.accelerators = {kinds[cluster % 3], kinds[(cluster + 1) % 3]};
        r.constraints = k;
      } else {
        r.cluster = cluster;
      }
    } else if (chance(0.5)) {
      r.side = Side::Sell;
      r.cluster = cluster;
      r.limit = ref * uniform(60, 120) / 100;
      r.gpus = static_cast<GpuCount>(uniform(1, 2 * o.maxGpus));
    } else {
      r.side = Side::Buy;
      r.cluster = cluster;
      r.limit = ref * uniform(80, 130) / 100;
    }
    m.orders.push_back(r);
  }
  return m;
}

}  // namespace tessera::auction
