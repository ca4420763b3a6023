#include "EngineScript.h"

namespace tessera::testing {

Cluster makeCluster(ClusterId id, Accelerator a, const char* region, int nodes, FabricClass fabric) {
  Cluster c;
  c.id = id;
  c.name = "cluster-" + std::to_string(id);
  c.provider = "test";
  c.region = region;
  c.accelerator = a;
  c.gpusPerNode = 8;
  c.nodeCount = nodes;
  c.fabric = fabric;
  return c;
}

namespace {
OrderRequest order(OrderId id, AccountId who, Side side, ClusterId c, GpuCount gpus, Hour start, Hour end,
                   Price limit) {
  OrderRequest o;
  o.id = id;
  o.account = who;
  o.side = side;
  o.cluster = c;
  o.gpus = gpus;
  o.start = start;
  o.end = end;
  o.limit = limit;
  return o;
}
}  // namespace

OrderRequest ask(OrderId id, AccountId who, ClusterId c, GpuCount gpus, Hour start, Hour end, Price limit) {
  return order(id, who, Side::Sell, c, gpus, start, end, limit);
}
OrderRequest bid(OrderId id, AccountId who, ClusterId c, GpuCount gpus, Hour start, Hour end, Price limit) {
  return order(id, who, Side::Buy, c, gpus, start, end, limit);
}
OrderRequest allOrNone(OrderId id, AccountId who, ClusterId c, GpuCount gpus, Hour start, Hour end, Price limit) {
  OrderRequest o = order(id, who, Side::Buy, c, gpus, start, end, limit);
  o.fill = FillStyle::AllOrNone;
  return o;
}

std::vector<Event> EngineHarness::send(const InputEvent& in) {
  std::vector<Event> out;
  m_->apply(in, out);
  all_.insert(all_.end(), out.begin(), out.end());
  return out;
}

std::vector<Contract> EngineHarness::contractsFor(OrderId buyOrder) const {
  std::vector<Contract> out;
  for (const auto& k : eventsOf<ContractCreated>(all_))
    if (k.contract.buyOrder == buyOrder) out.push_back(k.contract);
  return out;
}

}  // namespace tessera::testing
