#include "backtest/OptionReplay.h"

#include <algorithm>
#include <cstdlib>

namespace tessera::backtest {

using namespace tessera::indexoptions;

OptionReplay::OptionReplay(AccountId strategy, AccountId dealer, Money strategyCash,
                           OptionDealerSettings dealerSettings)
    : strategy_(strategy), dealer_(dealer), dealerSettings_(dealerSettings), market_(ledger_) {
  if (strategyCash > 0)
    ledger_.postChecked({strategy_, Book::External}, {strategy_, Book::Cash}, strategyCash, "deposit");
  if (dealerSettings_.cash > 0)
    ledger_.postChecked({dealer_, Book::External}, {dealer_, Book::Cash}, dealerSettings_.cash, "deposit");
}

void OptionReplay::submit(const OptionOrder& o, Hour now, Money free, std::vector<OptionUpdate>& out) {
  ++summary_.orders;
  std::vector<OptionMarketEvent> events;
  market_.submit(o, now, free, events);
  translate(events, out);
}

void OptionReplay::cancel(std::uint64_t id, std::vector<OptionUpdate>& out) {
  std::vector<OptionMarketEvent> events;
  market_.cancel(id, strategy_, events);
  translate(events, out);
}

void OptionReplay::advance(Hour now, const std::map<Accelerator, ClassIndex>& index, std::vector<OptionUpdate>& out) {
  std::vector<OptionMarketEvent> events;
  market_.advance(now, index, events);
  translate(events, out);
  for (const auto& [a, c] : index)
    if (c.nextDay > 0) lastIndex_[a] = c.nextDay;
  if (active_)
    for (const auto& [a, level] : lastIndex_) requote(a, level, out);
}

void OptionReplay::activate(std::vector<OptionUpdate>& out) {
  if (active_) return;
  active_ = true;
  for (const auto& [a, level] : lastIndex_) requote(a, level, out);
}

void OptionReplay::requote(Accelerator a, Price level, std::vector<OptionUpdate>& out) {
  const auto curve = market_.curve(a);
  const auto periods = listedPeriods(market_.now());
  if (!curve || periods.empty()) return;
  const Hour first = periods.front().start;
  if (auto it = quotedAt_.find(a);
      it != quotedAt_.end() && it->second.second == first &&
      std::llabs(level - it->second.first) * 1'000'000 < it->second.first * dealerSettings_.requotePpm)
    return;
  quotedAt_[a] = {level, first};
  std::vector<OptionMarketEvent> events;
  for (std::uint64_t id : std::vector<std::uint64_t>(dealerWorking_.begin(), dealerWorking_.end())) {
    const auto w = market_.working(id);
    if (!w) {
      dealerWorking_.erase(id);
      continue;
    }
    if (w->series.accelerator != a) continue;
    market_.cancel(id, dealer_, events);
    dealerWorking_.erase(id);
  }
  const std::map<PeriodKind, int> wanted{{PeriodKind::Month, dealerSettings_.months},
                                         {PeriodKind::Quarter, dealerSettings_.quarters},
                                         {PeriodKind::Year, dealerSettings_.years}};
  std::map<PeriodKind, int> taken;
  for (const DeliveryPeriod& p : periods) {
    const auto forward = periodForward(*curve, a, p, market_.now());
    if (!forward || taken[p.kind] >= wanted.at(p.kind)) continue;
    ++taken[p.kind];
    // The chain's ladder (OptionDesk::chainJson) and, of it, the strikes nearest the forward.
    const auto strikes =
        nearestStrikes(strikeLadder(*forward, 3), static_cast<Price>(*forward * 1e6), dealerSettings_.strikes);
    for (Price strike : strikes)
      for (OptionKind kind : {OptionKind::Call, OptionKind::Put}) {
        const OptionSeries s{a, kind, p.kind, p.start, strike};
        const auto v = market_.reference(s);
        if (!v) continue;
        const TwoSidedQuote q = quoteAround(v->value, dealerSettings_.spread);
        for (Side side : {Side::Buy, Side::Sell}) {
          const std::optional<Price> premium = side == Side::Buy ? q.bid : q.ask;
          if (!premium) continue;
          const OptionOrder o{nextDealerId_++, dealer_, side, s, dealerSettings_.gpuHours, *premium};
          market_.submit(o, market_.now(), ledger_.balance({dealer_, Book::Cash}), events);
          if (market_.working(o.id)) dealerWorking_.insert(o.id);
        }
      }
  }
  translate(events, out);
}

void OptionReplay::translate(const std::vector<OptionMarketEvent>& events, std::vector<OptionUpdate>& out) {
  for (const OptionMarketEvent& e : events) {
    OptionUpdate u;
    if (const auto* a = std::get_if<OptionAccepted>(&e)) {
      if (a->account != strategy_) continue;
      u.kind = OptionUpdate::Kind::Accepted;
      u.order = a->order;
      if (const auto w = market_.working(a->order)) u.series = w->series;
    } else if (const auto* r = std::get_if<OptionRejected>(&e)) {
      if (r->account != strategy_) continue;
      ++summary_.rejected;
      u.kind = OptionUpdate::Kind::Rejected;
      u.order = r->order;
      u.text = std::string(toString(r->reason)) + ": " + r->detail;
    } else if (const auto* t = std::get_if<OptionTrade>(&e)) {
      if (t->buyer != strategy_ && t->writer != strategy_) continue;
      u.kind = OptionUpdate::Kind::Filled;
      u.isLong = t->buyer == strategy_;
      u.order = u.isLong ? t->buyOrder : t->sellOrder;
      u.position = t->position;
      u.series = t->series;
      u.gpuHours = t->gpuHours;
      u.premium = t->premium;
      u.amount = (u.isLong ? -1 : 1) * t->premium * t->gpuHours;
      ++summary_.fills;
      if (u.isLong) {
        summary_.boughtGpuHours += t->gpuHours;
        summary_.premiumPaid -= u.amount;
      } else {
        summary_.writtenGpuHours += t->gpuHours;
        summary_.premiumReceived += u.amount;
      }
      cash_ += u.amount;
    } else if (const auto* c = std::get_if<OptionCancelled>(&e)) {
      if (c->account != strategy_) continue;
      u.kind = OptionUpdate::Kind::Cancelled;
      u.order = c->order;
      u.gpuHours = c->cancelledGpuHours;
      u.text = c->reason;
    } else if (const auto* n = std::get_if<OptionNotice>(&e)) {
      if (n->buyer != strategy_ && n->writer != strategy_) continue;
      const auto p = market_.positions().position(n->position);
      if (!p) continue;
      u.kind = OptionUpdate::Kind::Notice;
      u.position = p->id;
      u.isLong = p->buyer == strategy_;
      u.series = p->series;
      u.gpuHours = p->gpuHours;
      u.premium = p->premium;
      u.text = n->what;
      // A margin call moves the writer's cash into its margin, not to anybody: no P&L.
      if (p->status != OptionStatus::Open && closedSeen_.insert(p->id).second) {
        u.amount = (u.isLong ? 1 : -1) * p->paid;
        if (u.isLong)
          summary_.payoffReceived += p->paid;
        else
          summary_.payoffPaid += p->paid;
        cash_ += u.amount;
      }
    } else {
      continue;  // OptionSettlement: the notices of the positions it settled follow
    }
    out.push_back(std::move(u));
  }
}

OptionQuote OptionReplay::quote(const OptionSeries& s) const {
  OptionQuote q;
  if (const auto b = market_.depth(s, Side::Buy, 1); !b.empty()) q.bid = b.front().premium;
  if (const auto a = market_.depth(s, Side::Sell, 1); !a.empty()) q.ask = a.front().premium;
  if (const auto v = market_.reference(s)) q.value = v->value;
  return q;
}

Money OptionReplay::committed() const { return market_.held(strategy_) + ledger_.balance({strategy_, Book::Margin}); }

Money OptionReplay::openValue() const {
  Money v = 0;
  for (const OptionPosition& p : market_.positions().positionsOf(strategy_))
    if (p.status == OptionStatus::Open) v += (p.buyer == strategy_ ? 1 : -1) * p.lastValue * p.gpuHours;
  return v;
}

OptionSummary OptionReplay::summary() const {
  OptionSummary s = summary_;
  s.openValue = openValue();
  s.marginHeld = ledger_.balance({strategy_, Book::Margin});
  s.pnl = s.premiumReceived - s.premiumPaid + s.payoffReceived - s.payoffPaid + s.openValue;
  return s;
}

}  // namespace tessera::backtest
