#include "core/auction/HourlyClearing.h"

#include "core/engine/MarketLimits.h"

#include <algorithm>
#include <stdexcept>

namespace tessera::auction {

namespace {

struct Entry {
  std::size_t step;
  Price limit;
  GpuCount gpus;
  GpuCount traded = 0;
};

}  // namespace

std::optional<HourlyClearing> clearHours(const ClearingProblem& problem, const std::vector<char>& accepted) {
  const std::size_t nRows = problem.rows.size();
  std::vector<std::vector<Entry>> bids(nRows), asks(nRows);
  std::vector<std::int64_t> blockDemand(nRows, 0);  // accepted block bids minus block asks
  std::vector<std::int64_t> blockBought(nRows, 0);  // accepted block bids
  std::vector<Price> minLimit(nRows, limits::kMaxPrice), maxLimit(nRows, 1);
  auto touch = [&](std::size_t r, Price limit) {
    minLimit[r] = std::min(minLimit[r], limit);
    maxLimit[r] = std::max(maxLimit[r], limit);
  };
  // Steps are listed in arrival order, so appending keeps the earlier order first among equals.
  auto list = [&](const std::vector<Step>& steps, std::vector<std::vector<Entry>>& into) {
    for (std::size_t i = 0; i < steps.size(); ++i) {
      const Step& s = steps[i];
      const std::size_t r0 = problem.row(s.cluster, s.start);
      for (Hour h = s.start; h < s.end; ++h) {
        into[r0 + static_cast<std::size_t>(h - s.start)].push_back(Entry{i, s.limit, s.gpus});
        touch(r0 + static_cast<std::size_t>(h - s.start), s.limit);
      }
    }
  };
  list(problem.bidSteps, bids);
  list(problem.askSteps, asks);
  for (std::size_t b = 0; b < problem.blocks.size(); ++b) {
    const Block& k = problem.blocks[b];
    const bool bid = problem.orders[k.order].side == Side::Buy;
    const std::size_t r0 = problem.row(k.cluster, k.start);
    for (Hour h = k.start; h < k.end; ++h) {
      const std::size_t r = r0 + static_cast<std::size_t>(h - k.start);
      touch(r, k.limit);
      if (accepted[b]) blockDemand[r] += bid ? k.gpus : -std::int64_t{k.gpus};
      if (accepted[b] && bid) blockBought[r] += k.gpus;
    }
  }

  HourlyClearing out;
  out.rows.resize(nRows);
  for (std::size_t r = 0; r < nRows; ++r) {
    auto& b = bids[r];
    auto& a = asks[r];
    std::stable_sort(b.begin(), b.end(), [](const Entry& x, const Entry& y) { return x.limit > y.limit; });
    std::stable_sort(a.begin(), a.end(), [](const Entry& x, const Entry& y) { return x.limit < y.limit; });
    // Accepted blocks first: they are inelastic at this row.
    std::int64_t need = blockDemand[r];
    std::int64_t volume = blockBought[r];  // GPUs bought: blocks, then divisible bids
    std::size_t i = 0, j = 0;
    if (need > 0) {
      for (; j < a.size() && need > 0; ++j) {
        const GpuCount q = static_cast<GpuCount>(std::min<std::int64_t>(need, a[j].gpus));
        a[j].traded = q;
        need -= q;
        if (a[j].traded < a[j].gpus) break;
      }
    } else if (need < 0) {
      for (; i < b.size() && need < 0; ++i) {
        const GpuCount q = static_cast<GpuCount>(std::min<std::int64_t>(-need, b[i].gpus));
        b[i].traded = q;
        need += q;
        volume += q;
        if (b[i].traded < b[i].gpus) break;
      }
    }
    if (need != 0) return std::nullopt;
    // Then the curves cross: dearest bid against cheapest ask while the bid's limit reaches.
    while (i < b.size() && j < a.size() && b[i].limit >= a[j].limit) {
      const GpuCount q = std::min(b[i].gpus - b[i].traded, a[j].gpus - a[j].traded);
      b[i].traded += q;
      a[j].traded += q;
      volume += q;
      if (b[i].traded == b[i].gpus) ++i;
      if (a[j].traded == a[j].gpus) ++j;
    }
    // The row's duals: complementary slackness with this clearing.
    Price low = 1, high = limits::kMaxPrice;
    bool lowOpen = true, highOpen = true;
    for (const Entry& e : a) {
      if (e.traded > 0) low = std::max(low, e.limit), lowOpen = false;
      if (e.traded < e.gpus) high = std::min(high, e.limit), highOpen = false;
    }
    for (const Entry& e : b) {
      if (e.traded < e.gpus) low = std::max(low, e.limit), lowOpen = false;
      if (e.traded > 0) high = std::min(high, e.limit), highOpen = false;
    }
    if (low > high) throw std::logic_error("call auction: an hourly clearing without supporting prices");
    const Price tLow = lowOpen ? minLimit[r] : low;
    const Price tHigh = highOpen ? maxLimit[r] : high;
    Price target = tLow + (tHigh - tLow) / 2;
    if (tHigh < tLow) target = tLow;
    RowClearing& rc = out.rows[r];
    rc.volume = static_cast<GpuCount>(volume);
    rc.low = low;
    rc.high = high;
    rc.target = std::clamp(target, low, high);
    rc.divisible = !a.empty() || !b.empty();
    for (const Entry& e : b)
      if (e.traded > 0) out.trades.push_back(StepTrade{e.step, Side::Buy, r, e.traded});
    for (const Entry& e : a)
      if (e.traded > 0) out.trades.push_back(StepTrade{e.step, Side::Sell, r, e.traded});
  }
  return out;
}

Money selectionWelfare(const ClearingProblem& p, const std::vector<char>& accepted, const HourlyClearing& hc) {
  __extension__ using Wide = __int128;
  Wide w = 0;
  for (const StepTrade& t : hc.trades) {
    const Step& s = (t.side == Side::Buy ? p.bidSteps : p.askSteps)[t.step];
    w += (t.side == Side::Buy ? 1 : -1) * static_cast<Wide>(s.limit) * t.gpus;
  }
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    if (!accepted[b]) continue;
    const Block& k = p.blocks[b];
    w += (p.orders[k.order].side == Side::Buy ? 1 : -1) * static_cast<Wide>(k.limit) * k.gpus * (k.end - k.start);
  }
  if (w > INT64_MAX || w < INT64_MIN) throw std::overflow_error("call auction: welfare beyond 64 bits");
  return static_cast<Money>(w);
}

}  // namespace tessera::auction
