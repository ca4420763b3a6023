#include "core/cost/Interruption.h"

#include "core/cost/CostReport.h"

namespace tessera::cost {

double reclaimsPerDay(const ReclaimObservation& seen) {
  const double days = seen.contractedHours > 0 ? seen.contractedHours / 24.0 : 0.0;
  const double reclaims = seen.reclaims > 0 ? static_cast<double>(seen.reclaims) : 0.0;
  return (reclaims + 1.0) / (days + 1.0);
}

Offer asInterruptible(Offer o, double perDay) {
  o.preemptionsPerDay += perDay > 0 ? perDay : 0.0;
  return o;
}

std::string_view toString(CapacityKind k) { return k == CapacityKind::Firm ? "firm" : "interruptible"; }

CapacityChoice chooseCapacity(const WorkloadProfile& w, const Topology& t, const Offer& firm,
                              const Offer& interruptible, double perDay) {
  CapacityChoice c;
  c.firm = evaluate(w, t, firm);
  c.interruptible = evaluate(w, t, asInterruptible(interruptible, perDay));
  const auto* f = std::get_if<CostBreakdown>(&c.firm);
  const auto* i = std::get_if<CostBreakdown>(&c.interruptible);
  if (f && !f->fitsWindow) f = nullptr;
  if (i && !i->fitsWindow) i = nullptr;
  if (!f && !i) {
    c.reason = "neither capacity can run the workload";
    return c;
  }
  if (!i) {
    c.cheaper = CapacityKind::Firm;
    c.reason = "interruptible capacity cannot run the workload at this reclaim rate";
    return c;
  }
  if (!f) {
    c.cheaper = CapacityKind::Interruptible;
    c.reason = "firm capacity cannot run the workload";
    return c;
  }
  const double firmCost = f->terms.total();
  const double spotCost = i->terms.total();
  c.cheaper = spotCost < firmCost ? CapacityKind::Interruptible : CapacityKind::Firm;
  c.saving = spotCost < firmCost ? firmCost - spotCost : spotCost - firmCost;
  c.reason = std::string(toString(*c.cheaper)) + " saves " + money(c.saving) + ": interruptible loses " +
             money(i->terms.failedWork + i->terms.migrationOrRestart) + " to " +
             std::to_string(static_cast<long long>(i->expectedInterruptions + 0.5)) + " expected reclaims and failures";
  return c;
}

}  // namespace tessera::cost
