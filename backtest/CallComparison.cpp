#include "backtest/CallComparison.h"

#include "core/auction/CallMarket.h"
#include "core/engine/Matcher.h"

#include <cmath>
#include <map>

namespace tessera::backtest {

namespace {

// Volume-weighted average price per (cluster, delivery hour) -> volatility of its log changes.
struct PriceSeries {
  std::map<std::pair<ClusterId, Hour>, std::pair<double, double>> cells;  // notional, GPUs
  void add(ClusterId c, Hour start, Hour end, GpuCount gpus, Price price) {
    for (Hour h = start; h < end; ++h) {
      auto& [notional, volume] = cells[{c, h}];
      notional += static_cast<double>(price) * gpus;
      volume += gpus;
    }
  }
  double volatility() const {
    double sum = 0, sumSq = 0;
    int n = 0;
    const std::pair<ClusterId, Hour>* prevKey = nullptr;
    double prev = 0;
    for (const auto& [key, nv] : cells) {
      const double p = nv.first / nv.second;
      if (prevKey && prevKey->first == key.first && prevKey->second + 1 == key.second) {
        const double r = std::log(p / prev);
        sum += r;
        sumSq += r * r;
        ++n;
      }
      prevKey = &key;
      prev = p;
    }
    if (n < 2) return 0.0;
    const double mean = sum / n;
    return std::sqrt(std::max(0.0, sumSq / n - mean * mean));
  }
};

}  // namespace

CallComparison compareCallAndContinuous(const SimulatedMarketConfig& config, Hour hours,
                                        const auction::CallOptions& options) {
  AccountDirectory accounts;
  SimulatedMarket market(config, accounts);
  auto engine = makeMatchingEngine();
  auction::CallMarket calls(options);
  std::map<OrderId, OrderRequest> orders;  // as last amended, for limits and fill styles
  PriceSeries contPrices, callPrices;
  CallComparison out;
  std::vector<Event> events;
  const std::uint64_t steps = 1 + static_cast<std::uint64_t>(hours) * static_cast<std::uint64_t>(config.ticksPerHour);
  for (std::uint64_t s = 0; s < steps; ++s) {
    for (const InputEvent& in : market.step()) {
      if (const auto* o = std::get_if<OrderRequest>(&in)) {
        orders.emplace(o->id, *o);
        if (o->side == Side::Buy && o->fill == FillStyle::AllOrNone)
          out.blockGpuHoursSubmitted += std::int64_t{o->gpus} * o->hours();
      }
      events.clear();
      engine->apply(in, events);
      for (const Event& e : events) {
        if (const auto* a = std::get_if<OrderAmended>(&e)) {
          orders[a->order].limit = a->limit;
          orders[a->order].gpus = a->gpus;
        } else if (const auto* c = std::get_if<ContractCreated>(&e)) {
          const Contract& k = c->contract;
          if (k.buyOrder == 0 || k.sellOrder == 0) continue;  // a capacity transfer, not a trade
          const std::int64_t gh = std::int64_t{k.gpus} * (k.end - k.start);
          out.continuous.welfare += (orders.at(k.buyOrder).limit - orders.at(k.sellOrder).limit) * gh;
          out.continuous.gpuHours += gh;
          if (orders.at(k.buyOrder).fill == FillStyle::AllOrNone) out.continuous.blockGpuHours += gh;
          contPrices.add(k.cluster, k.start, k.end, k.gpus, k.price);
        }
      }
      if (auto r = calls.apply(in)) {
        ++out.calls;
        out.call.welfare += r->welfare;
        out.solveSeconds += r->seconds;
        out.worstGap = std::max(out.worstGap, r->gap);
        out.callsNotOptimal += r->optimal ? 0 : 1;
        for (const auction::CallFill& f : r->fills) {
          if (f.side != Side::Buy) continue;
          const std::int64_t gh = std::int64_t{f.gpus} * (f.end - f.start);
          out.call.gpuHours += gh;
          if (orders.at(f.order).fill == FillStyle::AllOrNone) out.call.blockGpuHours += gh;
          callPrices.add(f.cluster, f.start, f.end, f.gpus, f.price);
        }
      }
    }
  }
  const double submitted = static_cast<double>(std::max<std::int64_t>(1, out.blockGpuHoursSubmitted));
  out.continuous.blockShare = static_cast<double>(out.continuous.blockGpuHours) / submitted;
  out.call.blockShare = static_cast<double>(out.call.blockGpuHours) / submitted;
  out.continuous.volatility = contPrices.volatility();
  out.call.volatility = callPrices.volatility();
  return out;
}

}  // namespace tessera::backtest
