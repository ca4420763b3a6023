#include "core/cost/PlanSearch.h"

#include "core/cost/CostReport.h"
#include "core/cost/MarketOffers.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::cost {

namespace {

// The asks of one cluster hour by hour from `from` on, for a job of `gpus` GPUs: how many GPUs
// each hour offers and what the cheapest `gpus` of them cost, as prefix sums so that any
// window's shortfall and price is two subtractions. Extended lazily, since the look-ahead
// past L is only needed when nothing serves inside [E, L].
class AskScan {
 public:
  AskScan(const Matcher& book, ClusterId cluster, GpuCount gpus, Hour from)
      : book_(book), cluster_(cluster), gpus_(gpus), from_(from) {}

  void extendTo(Hour end) {
    for (Hour h = from_ + static_cast<Hour>(offered_.size()); h < end; ++h) {
      GpuCount offered = 0;
      std::int64_t cost = 0;
      GpuCount left = gpus_;
      // Deep enough for any realistic book (as offerFromBook): a level per order at worst.
      for (const BookLevel& level : book_.depth(cluster_, h, Side::Sell, 4096)) {
        offered += level.gpus;
        const GpuCount take = std::min(left, level.gpus);
        cost += static_cast<std::int64_t>(take) * level.price;
        left -= take;
      }
      offered_.push_back(offered);
      shortBefore_.push_back(shortBefore_.back() + (offered < gpus_ ? 1 : 0));
      costBefore_.push_back(costBefore_.back() + (offered < gpus_ ? 0 : cost));
    }
  }
  Hour hoursShort(Hour start, Hour end) {
    extendTo(end);
    return shortBefore_[index(end)] - shortBefore_[index(start)];
  }
  // Micro-dollars for `gpus` GPUs over [start, end); only meaningful when no hour is short.
  std::int64_t costMicros(Hour start, Hour end) {
    extendTo(end);
    return costBefore_[index(end)] - costBefore_[index(start)];
  }
  GpuCount fewestOffered(Hour start, Hour end) {
    extendTo(end);
    return *std::min_element(offered_.begin() + static_cast<std::ptrdiff_t>(index(start)),
                             offered_.begin() + static_cast<std::ptrdiff_t>(index(end)));
  }

 private:
  std::size_t index(Hour h) const { return static_cast<std::size_t>(h - from_); }

  const Matcher& book_;
  ClusterId cluster_;
  GpuCount gpus_;
  Hour from_;
  std::vector<GpuCount> offered_;
  std::vector<Hour> shortBefore_{0};
  std::vector<std::int64_t> costBefore_{0};
};

std::string acceleratorList(const std::vector<Accelerator>& kinds) {
  std::string s;
  for (Accelerator a : kinds) s += (s.empty() ? "" : ", ") + std::string(toString(a));
  return s;
}

std::string plural(std::int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Everything the search knows about one cluster that can host the workload at all.
struct Candidate {
  Cluster cluster;
  Topology topology;
  Placement placement;
  Hour windowHours = 0;
  double dollarsPerAskDollar = 0;  // effective cost = dollarsPerAskDollar * average ask + fixed
  double fixedDollars = 0;
  std::optional<AskScan> asks;
  std::optional<Hour> bestStart;      // cheapest start in [E, L] with supply in every hour
  std::optional<Hour> earliestStart;  // earliest start in [E, L] with supply, within budget
};

double averageAskDollars(std::int64_t micros, GpuCount gpus, Hour hours) {
  return static_cast<double>(micros) / (static_cast<double>(gpus) * static_cast<double>(hours)) /
         static_cast<double>(kMicrosPerDollar);
}

}  // namespace

std::string_view toString(Unfit u) {
  switch (u) {
    case Unfit::Kind: return "kind";
    case Unfit::TooFewGpus: return "too-few-gpus";
    case Unfit::Model: return "model";
    case Unfit::ShortOfSupply: return "short-of-supply";
    case Unfit::OverBudget: return "over-budget";
  }
  return "?";
}

std::string validate(const PlanRequest& r) {
  if (auto problem = validate(r.workload)) return "workload: " + *problem;
  if (r.latestStart < r.earliestStart) return "the latest start is before the earliest start";
  if (r.budgetDollars && !(*r.budgetDollars > 0)) return "the budget must be a positive number of dollars";
  if (r.lookAheadHours < 0) return "the look-ahead must not be negative";
  return {};
}

PlanResult planPlacements(const Matcher& book, const PlanRequest& request,
                          const std::function<Topology(const Cluster&)>& topologyOf) {
  PlanResult result;
  result.problem = validate(request);
  if (!result.problem.empty()) return result;
  const WorkloadProfile& w = request.workload;
  const GpuCount gpus = w.gpus();
  const Hour first = request.earliestStart;
  const Hour last = request.latestStart;

  std::vector<Candidate> candidates;
  for (const Cluster& c : book.clusters()) {
    ClusterUnfit unfit;
    unfit.cluster = c;
    if (!request.accelerators.empty() && std::find(request.accelerators.begin(), request.accelerators.end(),
                                                   c.accelerator) == request.accelerators.end()) {
      unfit.why = Unfit::Kind;
      unfit.reason =
          "a " + std::string(toString(c.accelerator)) + " cluster; asked for " + acceleratorList(request.accelerators);
      result.unfit.push_back(std::move(unfit));
      continue;
    }
    Topology topology = topologyOf(c);
    auto placement = packPlacement(topology, gpus);
    if (!placement) {
      unfit.why = Unfit::TooFewGpus;
      unfit.reason = "too few GPUs: the cluster has " + std::to_string(topology.totalGpus()) + ", the workload needs " +
                     std::to_string(gpus);
      result.unfit.push_back(std::move(unfit));
      continue;
    }
    // The wall clock does not depend on the price and the effective cost is linear in it, so
    // two evaluations give the window and the cost of any average ask.
    Offer free;
    free.label = c.name;
    free.gpus = gpus;
    Offer dollar = free;
    dollar.pricePerGpuHour = 1;
    const CostResult atZero = evaluate(w, topology, *placement, free);
    const CostResult atOne = evaluate(w, topology, *placement, dollar);
    if (const auto* err = std::get_if<CostError>(&atZero)) {
      unfit.why = Unfit::Model;
      unfit.reason = err->message;
      result.unfit.push_back(std::move(unfit));
      continue;
    }
    const auto& zero = std::get<CostBreakdown>(atZero);
    const auto& one = std::get<CostBreakdown>(atOne);
    Candidate k;
    k.cluster = c;
    k.topology = std::move(topology);
    k.placement = std::move(*placement);
    k.windowHours = std::max<Hour>(1, static_cast<Hour>(std::ceil(zero.wallClockHours - 1e-9)));
    k.fixedDollars = zero.terms.total();
    k.dollarsPerAskDollar = one.terms.total() - zero.terms.total();
    k.asks.emplace(book, c.id, gpus, first);
    candidates.push_back(std::move(k));
  }

  auto withinBudget = [&](const Candidate& k, std::int64_t micros) {
    if (!request.budgetDollars) return true;
    const double ask = averageAskDollars(micros, gpus, k.windowHours);
    return k.dollarsPerAskDollar * ask + k.fixedDollars <= *request.budgetDollars;
  };

  for (Candidate& k : candidates) {
    std::int64_t bestMicros = std::numeric_limits<std::int64_t>::max();
    Hour leastShort = std::numeric_limits<Hour>::max();
    Hour leastShortStart = first;
    for (Hour s = first; s <= last; ++s) {
      const Hour e = s + k.windowHours;
      const Hour missing = k.asks->hoursShort(s, e);
      if (missing > 0) {
        if (missing < leastShort) {
          leastShort = missing;
          leastShortStart = s;
        }
        continue;
      }
      const std::int64_t micros = k.asks->costMicros(s, e);
      if (micros < bestMicros) {
        bestMicros = micros;
        k.bestStart = s;
      }
      if (!k.earliestStart && withinBudget(k, micros)) k.earliestStart = s;
    }
    ClusterUnfit unfit;
    unfit.cluster = k.cluster;
    unfit.windowHours = k.windowHours;
    if (!k.bestStart) {
      unfit.why = Unfit::ShortOfSupply;
      unfit.hoursShort = leastShort;
      unfit.fewestOffered = k.asks->fewestOffered(leastShortStart, leastShortStart + k.windowHours);
      unfit.reason = "short of supply: the best start still leaves " + std::to_string(leastShort) + " of the " +
                     plural(k.windowHours, "hour", "hours") + " it needs with fewer than " + std::to_string(gpus) +
                     " GPUs on offer (as few as " + std::to_string(unfit.fewestOffered) + ")";
      result.unfit.push_back(std::move(unfit));
      continue;
    }
    PlannedPlacement p;
    p.cluster = k.cluster;
    p.topology = k.topology;
    p.placement = k.placement;
    p.start = *k.bestStart;
    p.end = p.start + k.windowHours;
    p.gpus = gpus;
    p.offer.label = k.cluster.name;
    p.offer.gpus = gpus;
    p.offer.windowHours = static_cast<double>(k.windowHours);
    p.offer.pricePerGpuHour = averageAskDollars(bestMicros, gpus, k.windowHours);
    p.cost = std::get<CostBreakdown>(evaluate(w, p.topology, p.placement, p.offer));
    if (request.budgetDollars && p.cost.terms.total() > *request.budgetDollars) {
      unfit.why = Unfit::OverBudget;
      unfit.overBudgetBy = p.cost.terms.total() - *request.budgetDollars;
      unfit.reason = "over budget: the cheapest window costs " + money(p.cost.terms.total()) + ", " +
                     money(unfit.overBudgetBy) + " more than " + money(*request.budgetDollars);
      result.unfit.push_back(std::move(unfit));
      continue;
    }
    const std::int64_t averageMicros = (bestMicros + static_cast<std::int64_t>(gpus) * k.windowHours - 1) /
                                       (static_cast<std::int64_t>(gpus) * k.windowHours);
    // Up to the cent: the ticket and the CLI show and send limits in cents, so a limit on a finer
    // tick would be shown, and sent, below the average and rest instead of filling.
    p.limit = (averageMicros + 9'999) / 10'000 * 10'000;
    p.costFactor = {k.cluster.id, costFactorPpm(p.cost)};
    result.placements.push_back(std::move(p));
  }

  std::stable_sort(result.placements.begin(), result.placements.end(),
                   [](const PlannedPlacement& a, const PlannedPlacement& b) {
                     if (a.cost.terms.total() != b.cost.terms.total())
                       return a.cost.terms.total() < b.cost.terms.total();
                     if (a.start != b.start) return a.start < b.start;
                     return a.cluster.id < b.cluster.id;
                   });
  std::stable_sort(result.unfit.begin(), result.unfit.end(),
                   [](const ClusterUnfit& a, const ClusterUnfit& b) { return a.cluster.id < b.cluster.id; });

  // The earliest feasible start: inside [E, L] from the scan above, else hour by hour past L.
  for (const Candidate& k : candidates)
    if (k.earliestStart && (!result.earliestFeasible || *k.earliestStart < result.earliestFeasible->start))
      result.earliestFeasible = EarliestStart{k.cluster, *k.earliestStart};
  for (Hour s = last + 1; !result.earliestFeasible && s <= last + request.lookAheadHours; ++s) {
    for (Candidate& k : candidates) {
      const Hour e = s + k.windowHours;
      if (k.asks->hoursShort(s, e) == 0 && withinBudget(k, k.asks->costMicros(s, e))) {
        result.earliestFeasible = EarliestStart{k.cluster, s};
        break;
      }
    }
  }
  return result;
}

}  // namespace tessera::cost
