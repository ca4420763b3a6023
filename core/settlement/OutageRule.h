#pragma once
// The outage rule (docs/settlement.md): in every hour the GPUs a provider lost on a cluster are
// spread over all the GPUs it has there, its contracts' and its unsold holding, in proportion to
// their size (largest remainder, ties to the contract given first, the holding last), so a
// provider can neither dump a failure on its buyers nor hide it in idle capacity. The exchange
// (core/net/SettlementDesk) and the backtest's replay (backtest/Replay) apply outages through
// this one function.
#include "core/engine/Events.h"

#include <functional>
#include <vector>

namespace tessera {

// What an outage takes of one contract: `lostGpus` of its GPUs in every hour of [start, end).
struct OutageShare {
  ContractId contract = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount lostGpus = 0;
  bool operator==(const OutageShare&) const = default;
};

// `contracts`: the provider's contracts on the cluster with hours in [from, end), lowest
// contract id first; `unsold(h)`: the provider's GPUs on the cluster in hour h that no contract
// holds. Returns each contract's share as runs of hours with the same loss, contract by contract
// in the order given, hours ascending. Runs losing nothing are left out unless `listUnharmed`
// (a degraded link or power: every contract in the hours is affected, whatever it lost).
[[nodiscard]] std::vector<OutageShare> spreadOutage(const std::vector<Contract>& contracts, GpuCount lostGpus,
                                                    Hour from, Hour end, const std::function<GpuCount(Hour)>& unsold,
                                                    bool listUnharmed);

}  // namespace tessera
