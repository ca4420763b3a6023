#include "core/auction/CallAuction.h"

#include "core/auction/HourlyClearing.h"
#include "core/auction/PriceProgramme.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

namespace tessera::auction {

__extension__ using Wide = __int128;  // sums of notionals can exceed int64

namespace {

struct Cleared {
  BlockSelectionResult selection;
  HourlyClearing hours;
};

// The fills of a priced clearing: per order, each hour, merged into runs.
std::vector<CallFill> fillsOf(const ClearingProblem& p, const std::vector<char>& accepted, const HourlyClearing& hc,
                              const std::vector<Price>& prices) {
  struct PerHour {
    ClusterId cluster;
    Hour hour;
    GpuCount gpus;
  };
  std::vector<std::vector<PerHour>> byOrder(p.orders.size());
  for (const StepTrade& t : hc.trades) {
    const Step& s = (t.side == Side::Buy ? p.bidSteps : p.askSteps)[t.step];
    byOrder[s.order].push_back(PerHour{p.rows[t.row].cluster, p.rows[t.row].hour, t.gpus});
  }
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    if (!accepted[b]) continue;
    const Block& k = p.blocks[b];
    for (Hour h = k.start; h < k.end; ++h) byOrder[k.order].push_back(PerHour{k.cluster, h, k.gpus});
  }
  std::vector<CallFill> fills;
  for (std::size_t o = 0; o < byOrder.size(); ++o) {
    auto& hs = byOrder[o];
    std::sort(hs.begin(), hs.end(), [](const PerHour& a, const PerHour& b) {
      return std::tie(a.cluster, a.hour) < std::tie(b.cluster, b.hour);
    });
    for (const PerHour& h : hs) {
      const Price price = prices[p.row(h.cluster, h.hour)];
      if (!fills.empty()) {
        CallFill& last = fills.back();
        if (last.order == p.orders[o].id && last.cluster == h.cluster && last.end == h.hour && last.gpus == h.gpus &&
            last.price == price) {
          last.end = h.hour + 1;
          continue;
        }
      }
      fills.push_back(CallFill{p.orders[o].id, p.orders[o].account, p.orders[o].side, h.cluster, h.hour, h.hour + 1,
                               h.gpus, price});
    }
  }
  return fills;
}

}  // namespace

Money welfareOf(const ClearingProblem& p, const std::vector<CallFill>& fills) {
  std::map<OrderId, std::size_t> index;
  for (std::size_t o = 0; o < p.orders.size(); ++o) index[p.orders[o].id] = o;
  // Limits per order: every step and block of an order has the order's limit.
  std::vector<Price> limit(p.orders.size(), 0);
  for (const Step& s : p.bidSteps) limit[s.order] = s.limit;
  for (const Step& s : p.askSteps) limit[s.order] = s.limit;
  for (const Block& b : p.blocks) limit[b.order] = b.limit;
  Wide w = 0;
  for (const CallFill& f : fills) {
    const std::size_t o = index.at(f.order);
    const Wide v = static_cast<Wide>(limit[o]) * f.gpus * (f.end - f.start);
    w += f.side == Side::Buy ? v : -v;
  }
  if (w > INT64_MAX || w < INT64_MIN) throw std::overflow_error("call auction: welfare beyond 64 bits");
  return static_cast<Money>(w);
}

CallResult clearCall(const ClearingProblem& problem, const CallOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  const SolveClock clock(options.solver.threadCpuTime);
  CallResult out;
  out.expired = problem.expired;
  SelectionCuts cuts;
  cuts.forbidden.assign(problem.blocks.size(), 0);
  std::vector<Price> prices;
  std::vector<char> accepted;
  HourlyClearing hours;
  std::optional<BlockSelector> selector;
  if (!problem.blocks.empty()) selector.emplace(problem, options.solver.seed);
  for (int round = 0;; ++round) {
    BlockSelectionResult sel;
    if (problem.blocks.empty()) {
      sel.optimal = true;  // no integer choice: the hourly clearing is the optimum
    } else {
      // The time limit is the whole call's: a later round gets what is left (at least a tenth).
      SolverLimits limits = options.solver;
      const double spent = clock.seconds();
      limits.seconds = std::max(options.solver.seconds - spent, options.solver.seconds / 10);
      limits.heuristics = options.solver.heuristics && round == 0;
      sel = selector->select(cuts, limits);
    }
    if (sel.accepted.empty()) sel.accepted.assign(problem.blocks.size(), 0);
    auto hc = clearHours(problem, sel.accepted);
    if (!hc) throw std::logic_error("call auction: the solver chose blocks that cannot balance");
    // A round that only forbids blocks has the last selection without them as a candidate: a
    // solve that ran out of time and found worse keeps that one instead.
    if (round > 0 && !sel.optimal && !accepted.empty()) {
      std::vector<char> previous = accepted;
      for (std::size_t b = 0; b < previous.size(); ++b)
        if (cuts.forbidden[b]) previous[b] = 0;
      bool excluded = false;
      for (const auto& s : cuts.excluded) excluded = excluded || s == previous;
      auto prevHc = excluded ? std::nullopt : clearHours(problem, previous);
      if (prevHc && selectionWelfare(problem, previous, *prevHc) > selectionWelfare(problem, sel.accepted, *hc)) {
        sel.accepted = std::move(previous);
        hc = std::move(prevHc);
      }
    }
    accepted = sel.accepted;
    out.optimal = out.optimal && sel.optimal;
    out.stoppedOnTime = out.stoppedOnTime || sel.stoppedOnTime;
    out.rounds = round + 1;
    if (round == 0) {
      const std::vector<Price> targets = [&] {
        std::vector<Price> t;
        for (const RowClearing& r : hc->rows) t.push_back(r.target);
        return t;
      }();
      out.firstRoundWelfare = welfareOf(problem, fillsOf(problem, accepted, *hc, targets));
      out.bound = problem.blocks.empty() ? static_cast<double>(out.firstRoundWelfare) * 1e-6 : sel.bound;
      const double w = static_cast<double>(out.firstRoundWelfare) * 1e-6;
      out.gap = std::max(0.0, out.bound - w) / std::max(std::abs(w), 1e-6);
    }
    auto p = solvePrices(problem, accepted, *hc);
    if (p) {
      prices = std::move(*p);
      hours = std::move(*hc);
      break;
    }
    if (round < options.exactPabRounds) {
      cuts.excluded.push_back(accepted);
      continue;
    }
    // Forbid every accepted block that loses at the targets; if none does, the one that loses
    // most (ties: the later order). Each round forbids at least one block, so the loop ends.
    std::vector<Price> targets;
    for (const RowClearing& r : hc->rows) targets.push_back(r.target);
    std::size_t worst = problem.blocks.size();
    Money worstLoss = 0;
    bool any = false;
    for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
      if (!accepted[b]) continue;
      const Money loss = blockLoss(problem, b, targets);
      if (loss > 0) cuts.forbidden[b] = 1, any = true;
      if (worst == problem.blocks.size() || loss >= worstLoss) worst = b, worstLoss = loss;
    }
    if (!any) cuts.forbidden[worst] = 1;
  }

  for (std::size_t r = 0; r < problem.rows.size(); ++r) {
    if (!hours.rows[r].divisible && hours.rows[r].volume == 0) continue;
    out.prices.push_back(HourPrice{problem.rows[r].cluster, problem.rows[r].hour, prices[r], hours.rows[r].volume});
  }
  for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
    if (!accepted[b]) continue;
    const Block& k = problem.blocks[b];
    out.blocks.push_back(AcceptedBlock{problem.orders[k.order].id, k.cluster, k.start, k.end, k.gpus});
  }
  out.fills = fillsOf(problem, accepted, hours, prices);
  out.welfare = welfareOf(problem, out.fills);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string toJson(const CallResult& r) {
  nlohmann::ordered_json j;
  j["welfare"] = r.welfare;
  j["first_round_welfare"] = r.firstRoundWelfare;
  j["bound"] = r.bound;
  j["gap"] = r.gap;
  j["optimal"] = r.optimal;
  j["stopped_on_time"] = r.stoppedOnTime;
  j["rounds"] = r.rounds;
  auto& prices = j["prices"] = nlohmann::ordered_json::array();
  for (const HourPrice& p : r.prices)
    prices.push_back({{"cluster", p.cluster}, {"hour", p.hour}, {"price", p.price}, {"volume", p.volume}});
  auto& blocks = j["blocks"] = nlohmann::ordered_json::array();
  for (const AcceptedBlock& b : r.blocks)
    blocks.push_back(
        {{"order", b.order}, {"cluster", b.cluster}, {"start", b.start}, {"end", b.end}, {"gpus", b.gpus}});
  auto& fills = j["fills"] = nlohmann::ordered_json::array();
  for (const CallFill& f : r.fills)
    fills.push_back({{"order", f.order},
                     {"account", f.account},
                     {"side", f.side == Side::Buy ? "buy" : "sell"},
                     {"cluster", f.cluster},
                     {"start", f.start},
                     {"end", f.end},
                     {"gpus", f.gpus},
                     {"price", f.price}});
  j["expired"] = r.expired;
  return j.dump();
}

}  // namespace tessera::auction
