#pragma once
// Builds small histories by hand for the replay and strategy tests: times in microseconds
// after the start hour, so a test reads like a timeline.
#include "backtest/History.h"
#include "backtest/SimulatedClusters.h"

namespace tessera::testing {

class HandMadeHistory {
 public:
  static constexpr Hour kStart = 490'992;  // 2026-01-05 00:00 UTC
  static constexpr std::int64_t kT0 = kStart * 3'600'000'000LL;

  HandMadeHistory() { add(0, ClockAdvance{kStart}); }

  Cluster cluster(ClusterId id, Accelerator acc, int nodes, FabricClass fabric = FabricClass::InfiniBand,
                  int perNode = 8) {
    Cluster c;
    c.id = id;
    c.name = "c" + std::to_string(id);
    c.provider = "p" + std::to_string(id);
    c.region = "us-east";
    c.accelerator = acc;
    c.gpusPerNode = perNode;
    c.nodeCount = nodes;
    c.fabric = fabric;
    if (acc == Accelerator::L40S) {
      c.gpuMemoryGb = 48;
      c.intraNodeLink = IntraNodeLink::PCIe;
      c.intraNodeGBps = 64;
    }
    add(0, c);
    add(0, CapacityGrant{account(c.provider), id, c.totalGpus(), kStart, kStart + 24 * 30});
    return c;
  }

  AccountId account(const std::string& name) { return h.accounts.intern(name); }

  void add(std::int64_t atMicros, InputEvent e) {
    h.inputs.push_back({static_cast<std::int64_t>(h.inputs.size()) + 1, kT0 + atMicros, std::move(e)});
  }

  OrderId order(std::int64_t at, const std::string& who, Side side, ClusterId c, GpuCount gpus, Hour from, Hour to,
                double dollars, FillStyle fill = FillStyle::Divisible, TimeInForce tif = TimeInForce::GTC) {
    OrderRequest o;
    o.id = nextId++;
    o.account = account(who);
    o.side = side;
    o.cluster = c;
    o.gpus = gpus;
    o.start = kStart + from;
    o.end = kStart + to;
    o.limit = static_cast<Price>(dollars * 1e6 + 0.5);
    o.fill = fill;
    o.tif = tif;
    add(at, o);
    return o.id;
  }

  // `provider` lost `lost` GPUs of cluster `c` in hours [from, to) after the start, reported at
  // `at` (after the inputs added so far).
  void outage(std::int64_t at, const std::string& provider, ClusterId c, Hour from, Hour to, GpuCount lost) {
    h.outages.push_back(
        {static_cast<std::int64_t>(h.inputs.size()), kT0 + at, account(provider), c, kStart + from, kStart + to, lost});
  }

  void clock(std::int64_t at, Hour hoursAfterStart) { add(at, ClockAdvance{kStart + hoursAfterStart}); }

  // A strategy's buy order (no id or account: the replay gives them), hours after the start.
  static OrderRequest buy(ClusterId c, GpuCount gpus, Hour from, Hour to, double dollars,
                          TimeInForce tif = TimeInForce::GTC) {
    OrderRequest o;
    o.side = Side::Buy;
    o.cluster = c;
    o.gpus = gpus;
    o.start = kStart + from;
    o.end = kStart + to;
    o.limit = static_cast<Price>(dollars * 1e6 + 0.5);
    o.tif = tif;
    return o;
  }

  backtest::History h;
  OrderId nextId = 1;
};

}  // namespace tessera::testing
