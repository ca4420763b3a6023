#pragma once
// The reclaim rule: which contracts a provider's reclaim of interruptible capacity takes GPUs
// from when the reclaim names a cluster and hours rather than a contract (a simulated provider's
// reclaim, a recorded reclaim replayed against contracts that differ from the recorded ones).
// Lowest contract id first, each over its own hours inside the window, as many GPUs as it can
// give until the reclaim's GPUs are taken. The embedded exchange (core/net/SettlementDesk) and
// the backtest's replay (backtest/Replay) resolve reclaims through this one function.
#include "core/engine/Events.h"

#include <functional>
#include <vector>

namespace tessera {

// What a reclaim takes of one contract: `gpus` of its GPUs in every hour of [start, end).
struct ReclaimShare {
  ContractId contract = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  bool operator==(const ReclaimShare&) const = default;
};

// `contracts`: the provider's contracts on the interruptible cluster, any order (sorted here by
// id); `takeable(contract, start, end)`: the GPUs of that contract the reclaim may take in every
// hour of [start, end) (after earlier reclaims, and what its buyer still holds). Contracts with
// no hour in [from, end) or nothing takeable are skipped. The shares' GPUs sum to at most `gpus`.
[[nodiscard]] std::vector<ReclaimShare> spreadReclaim(
    std::vector<Contract> contracts, GpuCount gpus, Hour from, Hour end,
    const std::function<GpuCount(const Contract&, Hour, Hour)>& takeable);

}  // namespace tessera
