#include "MarketLoad.h"

#include "core/engine/Matcher.h"

#include <algorithm>
#include <random>
#include <unordered_map>

namespace tessera::bench {

const char* toString(InputKind k) {
  switch (k) {
    case InputKind::Add: return "add";
    case InputKind::Cancel: return "cancel";
    case InputKind::Crossing: return "crossing, divisible";
    case InputKind::CrossingAllOrNone: return "crossing, all-or-none";
  }
  return "?";
}

Load makeLoad(const LoadShape& s) {
  Load load;
  std::mt19937_64 rng(s.seed);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  constexpr AccountId kProviders = 3;
  constexpr AccountId kTraders = 200;
  const Accelerator kinds[] = {Accelerator::H100, Accelerator::H200, Accelerator::A100, Accelerator::B200,
                               Accelerator::MI300X};
  const Price basePrice[] = {2'200'000, 3'100'000, 1'300'000, 4'500'000, 1'900'000};
  for (int c = 1; c <= s.clusters; ++c) {
    Cluster k;
    k.id = static_cast<ClusterId>(c);
    k.name = "bench-" + std::to_string(c);
    k.accelerator = kinds[(c - 1) % 5];
    k.gpusPerNode = 8;
    k.nodeCount = 3 * 4096;  // big enough that capacity never runs out in a benchmark run
    load.setup.emplace_back(k);
    for (AccountId p = 1; p <= kProviders; ++p)
      load.setup.emplace_back(CapacityGrant{p, k.id, k.totalGpus() / 3, 0, s.horizon});
  }

  auto engine = makeMatchingEngine();
  std::vector<Event> out;
  for (const auto& e : load.setup) engine->apply(e, out);

  std::vector<Price> mid(static_cast<std::size_t>(s.clusters) + 1);
  for (int c = 1; c <= s.clusters; ++c) mid[static_cast<std::size_t>(c)] = basePrice[(c - 1) % 5];
  constexpr Price kTick = 10'000;  // one cent
  std::vector<std::pair<OrderId, AccountId>> working;
  std::unordered_map<OrderId, std::size_t> workingIndex;
  OrderId nextId = 1;
  auto forget = [&](OrderId id) {
    auto it = workingIndex.find(id);
    if (it == workingIndex.end()) return;
    const std::size_t i = it->second;
    workingIndex.erase(it);
    if (i + 1 != working.size()) {
      working[i] = working.back();
      workingIndex[working[i].first] = i;
    }
    working.pop_back();
  };
  auto canSell = [&](AccountId a, ClusterId c, Hour start, Hour end, GpuCount q) {
    for (Hour h = start; h < end; ++h) {
      const Holding hd = engine->holding(a, c, h);
      if (hd.held - hd.offered < q) return false;
    }
    return true;
  };

  load.events.reserve(static_cast<std::size_t>(s.events));
  load.kinds.reserve(static_cast<std::size_t>(s.events));
  while (static_cast<int>(load.events.size()) < s.events) {
    const auto roll = uniform(1, 100);
    InputEvent in;
    InputKind kind = InputKind::Add;
    if (roll > s.addPercent && roll <= s.addPercent + s.cancelPercent) {
      if (working.empty()) continue;
      const auto& [id, account] =
          working[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(working.size()) - 1))];
      in = CancelRequest{id, account};
      kind = InputKind::Cancel;
    } else {
      const bool crossing = roll > s.addPercent + s.cancelPercent;
      OrderRequest o;
      o.id = nextId++;
      const auto c = static_cast<ClusterId>(uniform(1, s.clusters));
      Price& m = mid[c];
      m = std::clamp<Price>(m + uniform(-1, 1) * kTick, 500'000, 9'000'000);
      o.cluster = c;
      const Hour len = uniform(s.minHours, s.maxHours);
      o.start = uniform(0, s.horizon - len);
      o.end = o.start + len;
      o.gpus = static_cast<GpuCount>(uniform(1, 32));
      o.side = uniform(0, 1) ? Side::Buy : Side::Sell;
      const Price away = uniform(1, 40) * kTick;
      if (crossing) {
        o.limit = o.side == Side::Buy ? m + away : std::max<Price>(kTick, m - away);
        if (o.side == Side::Buy && uniform(1, 100) <= s.allOrNonePercentOfCrossing) o.fill = FillStyle::AllOrNone;
        kind = o.fill == FillStyle::AllOrNone ? InputKind::CrossingAllOrNone : InputKind::Crossing;
      } else {
        o.limit = o.side == Side::Buy ? std::max<Price>(kTick, m - away) : m + away;
        if (s.passiveAdds) {
          const Side other = o.side == Side::Buy ? Side::Sell : Side::Buy;
          for (Hour h = o.start; h < o.end; ++h) {
            const auto best = engine->depth(c, h, other, 1);
            if (best.empty()) continue;
            o.limit = o.side == Side::Buy ? std::min(o.limit, best.front().price - kTick)
                                          : std::max(o.limit, best.front().price + kTick);
          }
          if (o.limit < kTick) continue;  // no room under the asks here: draw again
        }
      }
      if (o.side == Side::Buy) {
        o.account = static_cast<AccountId>(uniform(kProviders + 1, kProviders + kTraders));
      } else {
        // Holders resell about half the time; providers list the rest.
        AccountId who = static_cast<AccountId>(uniform(1, kProviders));
        const auto trader = static_cast<AccountId>(uniform(kProviders + 1, kProviders + kTraders));
        if (uniform(0, 1) && canSell(trader, c, o.start, o.end, o.gpus)) who = trader;
        if (!canSell(who, c, o.start, o.end, o.gpus)) continue;
        o.account = who;
      }
      in = o;
    }
    out.clear();
    engine->apply(in, out);
    for (const auto& e : out) {
      if (const auto* a = std::get_if<OrderAccepted>(&e)) {
        workingIndex[a->order] = working.size();
        working.emplace_back(a->order, a->account);
      } else if (const auto* f = std::get_if<Fill>(&e)) {
        if (f->leavesGpuHours == 0) forget(f->order);
      } else if (const auto* x = std::get_if<OrderCancelled>(&e)) {
        if (x->leavesGpuHours == 0) forget(x->order);
      }
    }
    load.events.push_back(std::move(in));
    load.kinds.push_back(kind);
  }
  return load;
}

}  // namespace tessera::bench
