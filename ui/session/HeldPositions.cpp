#include "ui/session/HeldPositions.h"

#include <algorithm>

namespace tessera::ui {

GpuCount HeldContract::heldGpusAt(Hour h) const {
  for (const HeldStep& s : held)
    if (h >= s.start && h < s.end) return s.gpus;
  return 0;
}

const HeldContract* HeldPositions::find(ContractId id) const {
  const auto it = std::lower_bound(contracts.begin(), contracts.end(), id,
                                   [](const HeldContract& c, ContractId x) { return c.contract < x; });
  return it != contracts.end() && it->contract == id ? &*it : nullptr;
}

HeldPositions heldPositions(const std::vector<Contract>& contracts, AccountId me, Hour now,
                            const MarkPrice& markPrice) {
  std::vector<const Contract*> bought, sold;
  for (const Contract& c : contracts) {
    if (c.buyer == me)
      bought.push_back(&c);
    else if (c.seller == me)
      sold.push_back(&c);
  }
  const auto byId = [](const Contract* a, const Contract* b) { return a->id < b->id; };
  std::sort(bought.begin(), bought.end(), byId);
  std::sort(sold.begin(), sold.end(), byId);

  // GPUs still held of each bought contract, hour by hour over its window.
  std::vector<std::vector<GpuCount>> perHour(bought.size());
  HeldPositions out;
  out.contracts.resize(bought.size());
  for (std::size_t i = 0; i < bought.size(); ++i) {
    perHour[i].assign(static_cast<std::size_t>(std::max<Hour>(0, bought[i]->end - bought[i]->start)), bought[i]->gpus);
    out.contracts[i].contract = bought[i]->id;
  }

  for (const Contract* s : sold) {
    for (Hour h = s->start; h < s->end; ++h) {
      GpuCount left = s->gpus;
      // Oldest first, and only purchases made before this sale.
      for (std::size_t i = 0; i < bought.size() && left > 0 && bought[i]->id < s->id; ++i) {
        const Contract& b = *bought[i];
        if (b.cluster != s->cluster || h < b.start || h >= b.end) continue;
        GpuCount& held = perHour[i][static_cast<std::size_t>(h - b.start)];
        const GpuCount take = std::min(held, left);
        if (take == 0) continue;
        held -= take;
        left -= take;
        HeldContract& hc = out.contracts[i];
        hc.soldGpuHours += take;
        hc.realisedPnl += static_cast<Money>(take) * (s->price - b.price);
        if (h >= now) hc.soldOnCost += static_cast<Money>(take) * b.price;
      }
      out.totals.realisedPnl += static_cast<Money>(left) * s->price;  // own capacity: no cost
    }
  }

  for (std::size_t i = 0; i < bought.size(); ++i) {
    const Contract& b = *bought[i];
    HeldContract& hc = out.contracts[i];
    for (Hour h = b.start; h < b.end; ++h) {
      const GpuCount g = perHour[i][static_cast<std::size_t>(h - b.start)];
      if (!hc.held.empty() && hc.held.back().gpus == g)
        hc.held.back().end = h + 1;
      else
        hc.held.push_back(HeldStep{h, h + 1, g});
      if (h >= now && g > 0) {
        hc.markValue += static_cast<Money>(g) * markPrice(b.cluster, h, b.price);
        hc.remainingCost += static_cast<Money>(g) * b.price;
      }
    }
    out.totals.realisedPnl += hc.realisedPnl;
    out.totals.markValue += hc.markValue;
    out.totals.remainingCost += hc.remainingCost;
    out.totals.soldOnCost += hc.soldOnCost;
  }
  return out;
}

}  // namespace tessera::ui
