#pragma once
// Firm or interruptible capacity for one workload. Interruptible capacity is cheaper by the
// hour, but its provider may reclaim it (docs/protocol.md, "Interruptible capacity"): each
// reclaim costs the job the work since its last checkpoint (half an interval on average) and a
// restart, at the rate reclaims are observed on that provider. The effective-cost model prices a
// reclaim as a preemption (docs/cost-model.md, "Failures, preemption, checkpoints"); this file
// turns observed reclaims into that rate and says which capacity is cheaper for the workload.
#include "core/cost/EffectiveCostModel.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera::cost {

// Reclaims seen on one provider's interruptible capacity over some contracted hours.
struct ReclaimObservation {
  std::int64_t reclaims = 0;
  double contractedHours = 0;
};

// Reclaims per day of contracted time, (reclaims + 1) / (days + 1): before anything is observed
// one reclaim a day is assumed, so capacity nobody has watched is never taken for risk-free, and
// the observations outweigh the assumption as they accumulate.
double reclaimsPerDay(const ReclaimObservation& seen);

// `o` as interruptible capacity reclaimed `perDay` times a day.
Offer asInterruptible(Offer o, double perDay);

enum class CapacityKind : std::uint8_t { Firm, Interruptible };
std::string_view toString(CapacityKind k);

struct CapacityChoice {
  CostResult firm;
  CostResult interruptible;             // priced with the reclaim rate
  std::optional<CapacityKind> cheaper;  // unset: neither can run the workload
  double saving = 0;                    // dollars the cheaper one saves over the other (0 if only one can)
  std::string reason;                   // for a person
};

// The workload's effective cost on firm capacity at `firm` and on interruptible capacity at
// `interruptible` reclaimed `perDay` times a day, on the same topology, and which is cheaper.
CapacityChoice chooseCapacity(const WorkloadProfile& w, const Topology& t, const Offer& firm,
                              const Offer& interruptible, double perDay);

}  // namespace tessera::cost
