#include "core/procure/Procurement.h"

#include "core/domain/HourText.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <algorithm>
#include <map>

namespace tessera {

bool ProcurementTarget::counts(const Cluster& c) const {
  if (cluster) return c.id == *cluster;
  return constraints.matches(c);
}

std::vector<GpuCount> heldShape(const std::vector<HeldContract>& contracts,
                                const std::function<bool(ClusterId)>& counted, Hour from, Hour to) {
  std::vector<GpuCount> shape(static_cast<std::size_t>(std::max<Hour>(0, to - from)), 0);
  std::map<ContractId, const HeldContract*> byId;
  for (const HeldContract& c : contracts) byId[c.id] = &c;
  auto add = [&](const HeldContract& c, Hour start, Hour end, GpuCount gpus) {
    if (!counted(c.cluster)) return;
    for (Hour h = std::max(start, from); h < std::min(end, to); ++h) shape[static_cast<std::size_t>(h - from)] += gpus;
  };
  for (const HeldContract& c : contracts) {
    add(c, c.start, c.end, c.bought ? c.gpus : -c.gpus);
    if (c.bought)
      for (const ContractSettlement::LostRun& l : c.lost)
        add(c, std::max(l.start, c.start), std::min(l.end, c.end), -l.gpus);
    // The replaced GPUs of the original are this contract's now: count them once.
    if (c.bought && c.replaces != 0) {
      const auto it = byId.find(c.replaces);
      if (it != byId.end() && it->second->bought) add(*it->second, c.start, c.end, -c.gpus);
    }
  }
  return shape;
}

std::vector<HeldStep> heldSteps(const std::vector<GpuCount>& shape, Hour from) {
  std::vector<HeldStep> steps;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const Hour h = from + static_cast<Hour>(i);
    if (!steps.empty() && steps.back().gpus == shape[i])
      steps.back().end = h + 1;
    else
      steps.push_back({h, h + 1, shape[i]});
  }
  return steps;
}

OrderRequest ProcurementOrder::request() const {
  OrderRequest o;
  o.side = side;
  o.cluster = cluster;
  o.gpus = gpus;
  o.start = start;
  o.end = end;
  o.limit = limit;
  o.fill = FillStyle::Divisible;
  o.tif = TimeInForce::IOC;
  if (sellBack != 0) o.sellBack = sellBack;
  return o;
}

namespace {

// GPUs resting on `side` at a price an order at `limit` would take.
GpuCount takeable(const std::vector<BookLevel>& levels, Side resting, Price limit) {
  GpuCount n = 0;
  for (const BookLevel& l : levels)
    if (resting == Side::Sell ? l.price <= limit : l.price >= limit) n += l.gpus;
  return n;
}

// Runs of equal positive amounts of `perHour` (index 0 is hour `from`).
template <class Emit>
void runsOf(const std::vector<GpuCount>& perHour, Hour from, Emit emit) {
  std::size_t i = 0;
  while (i < perHour.size()) {
    if (perHour[i] <= 0) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < perHour.size() && perHour[j] == perHour[i]) ++j;
    emit(from + static_cast<Hour>(i), from + static_cast<Hour>(j), perHour[i]);
    i = j;
  }
}

}  // namespace

ProcurementRound planProcurement(const ProcurementTarget& target, Hour now, const std::vector<Cluster>& clusters,
                                 const std::vector<HeldContract>& held, const RestingLevels& book) {
  ProcurementRound r;
  r.target = target.gpus;
  r.limit = target.limit;
  r.sellFloor = target.sellFloor;
  r.from = now + target.leadHours;
  r.to = r.from + target.horizonHours;
  const std::size_t n = static_cast<std::size_t>(target.horizonHours);
  std::vector<ClusterId> candidates;
  for (const Cluster& c : clusters)
    if (target.counts(c)) candidates.push_back(c.id);
  auto isCandidate = [&](ClusterId id) {
    return std::find(candidates.begin(), candidates.end(), id) != candidates.end();
  };
  r.held = heldShape(held, isCandidate, r.from, r.to);

  std::vector<GpuCount> buying(n, 0), selling(n, 0), unbuyable(n, 0), keptOver(n, 0);
  std::map<ClusterId, std::vector<GpuCount>> buyOn;      // per cluster, per hour
  std::map<ContractId, std::vector<GpuCount>> sellFrom;  // per contract, per hour
  std::map<ClusterId, std::vector<GpuCount>> heldOn;     // per cluster, per hour (for sell-backs)
  for (ClusterId c : candidates)
    heldOn[c] = heldShape(
        held, [c](ClusterId id) { return id == c; }, r.from, r.to);
  // Sell-backs come from the newest contracts first: the ones bought last are the least needed.
  std::vector<const HeldContract*> bought;
  for (const HeldContract& c : held)
    if (c.bought && isCandidate(c.cluster)) bought.push_back(&c);
  std::sort(bought.begin(), bought.end(), [](const auto* a, const auto* b) { return a->id > b->id; });

  for (std::size_t i = 0; i < n; ++i) {
    const Hour h = r.from + static_cast<Hour>(i);
    const GpuCount have = r.held[i];
    if (have < target.gpus) {
      GpuCount need = target.gpus - have;
      r.missingGpuHours += need;
      // Cheapest cluster first (its best ask within the limit), then the lower id.
      std::vector<std::pair<Price, ClusterId>> order;
      std::map<ClusterId, GpuCount> offered;
      for (ClusterId c : candidates) {
        const auto levels = book(c, h, Side::Sell);
        const GpuCount g = takeable(levels, Side::Sell, target.limit);
        if (g > 0) {
          offered[c] = g;
          order.emplace_back(levels.front().price, c);
        }
      }
      std::sort(order.begin(), order.end());
      for (const auto& [price, c] : order) {
        const GpuCount take = std::min(need, offered[c]);
        if (take <= 0) break;
        auto& v = buyOn[c];
        v.resize(n, 0);
        v[i] += take;
        buying[i] += take;
        need -= take;
      }
      unbuyable[i] = need;
    } else if (have > target.gpus) {
      GpuCount over = have - target.gpus;
      r.overGpuHours += over;
      if (target.sellFloor) {
        std::map<ClusterId, GpuCount> bids;
        for (const HeldContract* c : bought) {
          if (over == 0) break;
          if (c->start > h || c->end <= h) continue;
          if (!bids.count(c->cluster))
            bids[c->cluster] = takeable(book(c->cluster, h, Side::Buy), Side::Buy, *target.sellFloor);
          GpuCount& room = bids[c->cluster];
          GpuCount& left = heldOn[c->cluster][i];  // what the account still holds there this hour
          const GpuCount sell = std::min({over, c->gpus, room, left});
          if (sell <= 0) continue;
          auto& v = sellFrom[c->id];
          v.resize(n, 0);
          v[i] += sell;
          selling[i] += sell;
          room -= sell;
          left -= sell;
          over -= sell;
        }
      }
      keptOver[i] = over;
    }
  }

  for (const auto& [cluster, perHour] : buyOn)
    runsOf(perHour, r.from, [&, c = cluster](Hour s, Hour e, GpuCount g) {
      r.orders.push_back({Side::Buy, c, g, s, e, target.limit, 0});
    });
  std::map<ContractId, const HeldContract*> byId;
  for (const HeldContract* c : bought) byId[c->id] = c;
  for (const auto& [contract, perHour] : sellFrom)
    runsOf(perHour, r.from, [&, k = contract](Hour s, Hour e, GpuCount g) {
      r.orders.push_back({Side::Sell, byId[k]->cluster, g, s, e, *target.sellFloor, k});
    });

  for (std::size_t i = 0; i < n; ++i) {
    const Hour h = r.from + static_cast<Hour>(i);
    const ProcurementStep s{h, h + 1, r.held[i], buying[i], selling[i], unbuyable[i], keptOver[i]};
    if (!r.steps.empty()) {
      ProcurementStep& last = r.steps.back();
      if (last.end == h && last.held == s.held && last.buying == s.buying && last.selling == s.selling &&
          last.unbuyable == s.unbuyable && last.keptOver == s.keptOver) {
        last.end = h + 1;
        continue;
      }
    }
    r.steps.push_back(s);
  }
  return r;
}

std::vector<std::string> ProcurementRound::describe(const std::vector<Cluster>& clusters) const {
  auto name = [&](ClusterId id) {
    for (const Cluster& c : clusters)
      if (c.id == id) return std::to_string(id) + " (" + c.name + ")";
    return std::to_string(id);
  };
  auto span = [](Hour s, Hour e) { return isoHour(s) + " to " + isoHour(e) + " UTC (" + withThousands(e - s) + " h)"; };
  std::vector<std::string> lines;
  lines.push_back("horizon " + span(from, to) + ": target " + withThousands(target) + " GPUs in every hour; short " +
                  withThousands(missingGpuHours) + " GPU-hours, over " + withThousands(overGpuHours) + " GPU-hours");
  for (const ProcurementStep& s : steps) {
    std::string line = "  " + span(s.start, s.end) + ": hold " + withThousands(s.held);
    if (s.held == target) line += ", on target";
    if (s.buying > 0) line += "; buying " + withThousands(s.buying);
    if (s.unbuyable > 0)
      line += "; " + withThousands(s.unbuyable) + " short with nothing more offered at or below " + toDollars(limit);
    if (s.selling > 0) line += "; selling back " + withThousands(s.selling);
    if (s.keptOver > 0)
      line +=
          "; keeping " + withThousands(s.keptOver) + " over the target" +
          (sellFloor ? " (no bid at or above " + toDollars(*sellFloor) + ")" : " (no --sell-floor-usd: never sells)");
    lines.push_back(line);
  }
  for (const ProcurementOrder& o : orders) {
    std::string line = o.side == Side::Buy ? "  order: buy " : "  order: sell back ";
    line += withThousands(o.gpus) + " GPUs on cluster " + name(o.cluster) + ", " + span(o.start, o.end);
    if (o.sellBack != 0) line += ", from contract " + std::to_string(o.sellBack);
    line += (o.side == Side::Buy ? ", paying at most " : ", for at least ") + toDollars(o.limit) +
            "/GPU-h, immediate or cancel";
    lines.push_back(line);
  }
  if (orders.empty()) lines.push_back("  nothing to order this round");
  return lines;
}

}  // namespace tessera
