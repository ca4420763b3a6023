#pragma once
// What an account holds of each contract it bought once its sales are taken out, as a step
// function of GPUs over the contract's hours, and the money of it: the P&L realised on what was
// sold, and the remaining held hours marked to the book.
//
// The exchange keeps holdings per (account, cluster, hour), not per contract (docs/matching.md
// "Holdings"): the GPU-hours of one cluster and hour are interchangeable, and a sell-back that
// names a contract only has to lie inside it. So each GPU-hour sold is taken, hour by hour, from
// the contracts the account bought on that cluster before the sale, oldest first (first in,
// first out). A sold GPU-hour with no earlier purchase under it came from the account's own
// capacity (a provider's grant) and has no cost: its whole price is realised.
#include "core/engine/Events.h"

#include <functional>
#include <vector>

namespace tessera::ui {

// `gpus` held in every hour of [start, end).
struct HeldStep {
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  bool operator==(const HeldStep&) const = default;
};

struct HeldContract {
  ContractId contract = 0;
  std::vector<HeldStep> held;     // over the whole window, runs of equal GPUs; 0 GPUs where all was sold
  std::int64_t soldGpuHours = 0;  // taken out of this contract by sales
  Money realisedPnl = 0;          // (sale price - contract price) over the GPU-hours sold from it
  Money markValue = 0;            // held GPU-hours still to come (hours >= now) at the book's marks
  Money remainingCost = 0;        // the same GPU-hours at the contract price
  Money soldOnCost = 0;           // GPU-hours still to come that were sold on, at the contract price
  GpuCount heldGpusAt(Hour h) const;
  Money pnl() const { return markValue - remainingCost; }
};

struct HeldPositionsTotals {
  Money realisedPnl = 0;  // every sale, including sales of own capacity
  Money markValue = 0;
  Money remainingCost = 0;
  Money soldOnCost = 0;  // what the account's escrow still pays for GPU-hours it sold on
};

struct HeldPositions {
  std::vector<HeldContract> contracts;  // one per contract `me` bought, by contract id
  HeldPositionsTotals totals;
  const HeldContract* find(ContractId id) const;
};

// The price an hour of a cluster would sell for now; `fallback` when the market gives none.
using MarkPrice = std::function<Price(ClusterId cluster, Hour hour, Price fallback)>;

// `contracts`: every contract of the account `me` (bought and sold). Hours before `now` are
// delivered or settling: they are in the shape but neither marked nor counted as remaining.
[[nodiscard]] HeldPositions heldPositions(const std::vector<Contract>& contracts, AccountId me, Hour now,
                                          const MarkPrice& markPrice);

}  // namespace tessera::ui
