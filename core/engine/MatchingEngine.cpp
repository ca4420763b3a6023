#include "core/engine/MatchingEngine.h"

#include "core/engine/MarketLimits.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace tessera {
namespace {

constexpr std::size_t side(Side s) { return static_cast<std::size_t>(s); }

// Calls f(first, sum) for every window of `d` consecutive hours of `perHour` (a cost per hour,
// or -1 where the hour cannot be had) whose sum is within `budget`, in order of their first
// hour, until f returns false.
template <typename F>
void forEachWindowWithin(const std::vector<Money>& perHour, Hour d, Money budget, F&& f) {
  Money window = 0;
  Hour run = 0;
  for (std::size_t i = 0; i < perHour.size(); ++i) {
    if (perHour[i] < 0) {
      run = 0;
      window = 0;
      continue;
    }
    window += perHour[i];
    if (++run > d) {
      window -= perHour[i - static_cast<std::size_t>(d)];
      run = d;
    }
    if (run == d && window <= budget && !f(i + 1 - static_cast<std::size_t>(d), window)) return;
  }
}

}  // namespace

std::unique_ptr<Matcher> makeMatchingEngine() { return std::make_unique<MatchingEngine>(); }

MatchingEngine::MatchingEngine() = default;

void MatchingEngine::apply(const InputEvent& in, std::vector<Event>& out) {
  if (state_.applyNonOrder(in, out)) return;
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, OrderRequest>) submit(e, out);
        else if constexpr (std::is_same_v<T, CancelRequest>) cancel(e, out);
        else if constexpr (std::is_same_v<T, AmendRequest>) amend(e, out);
        else if constexpr (std::is_same_v<T, ClockAdvance>) advance(e, out);
      },
      in);
}

// ---- book storage -------------------------------------------------------------------------

MatchingEngine::Book& MatchingEngine::book(ClusterId c) { return books_[c]; }

const MatchingEngine::Book* MatchingEngine::findBook(ClusterId c) const {
  auto it = books_.find(c);
  return it == books_.end() ? nullptr : &it->second;
}

MatchingEngine::Cell& MatchingEngine::cell(Book& b, Hour h) {
  // Every order starts at or after the clock, and the clock only moves forward, so a book that
  // starts at the clock of its first order never needs hours in front of it; validation bounds
  // how far past the clock it can reach.
  if (b.cells.empty()) b.base = state_.now;
  if (h < b.base) throw std::logic_error("book cell before the exchange clock");
  if (h >= b.base + static_cast<Hour>(b.cells.size())) {
    b.cells.resize(static_cast<std::size_t>(h - b.base + 1));
  }
  return b.cells[static_cast<std::size_t>(h - b.base)];
}

MatchingEngine::Cell* MatchingEngine::findCell(Book& b, Hour h) {
  if (h < b.base || h >= b.base + static_cast<Hour>(b.cells.size())) return nullptr;
  return &b.cells[static_cast<std::size_t>(h - b.base)];
}

const MatchingEngine::Cell* MatchingEngine::findCell(const Book& b, Hour h) {
  return findCell(const_cast<Book&>(b), h);
}

GpuCount& MatchingEngine::remainingRef(Order& o, Hour h) {
  if (o.qty.empty()) {
    o.qtyBase = o.liveFrom;
    o.qty.assign(static_cast<std::size_t>(o.req.end - o.liveFrom), o.req.gpus);
  }
  return o.qty[static_cast<std::size_t>(h - o.qtyBase)];
}

namespace {
// Adds up consecutive hours that change an account's offer by the same amount, so a 168-hour
// listing returns its offer in one inventory call instead of 168.
class OfferReturn {
 public:
  OfferReturn(Inventory& inv, AccountId account, ClusterId cluster)
      : inv_(inv), account_(account), cluster_(cluster) {}
  ~OfferReturn() { flush(); }
  void add(Hour h, GpuCount gpus) {
    if (gpus != gpus_ || h != end_) {
      flush();
      start_ = h;
      gpus_ = gpus;
    }
    end_ = h + 1;
  }

 private:
  void flush() {
    if (gpus_ != 0 && end_ > start_) inv_.offer(account_, cluster_, start_, end_, -gpus_);
    gpus_ = 0;
  }
  Inventory& inv_;
  AccountId account_;
  ClusterId cluster_;
  Hour start_ = 0, end_ = 0;
  GpuCount gpus_ = 0;
};
}  // namespace

void MatchingEngine::retireEntries(const Order& o) {
  Book& b = book(*o.req.cluster);
  const std::size_t sd = side(o.req.side);
  OfferReturn offers(state_.inventory, o.req.account, *o.req.cluster);
  for (Hour h = o.liveFrom; h < o.req.end; ++h) {
    const GpuCount q = storedAt(o, h);
    if (q == 0) continue;
    RestingLadder& l = findCell(b, h)->ladders[sd];
    l.gpus -= q;
    l.noteDeath();
    l.compactIfSparse([this, h](const Entry& e) { return isLive(e, h); });
    if (o.req.side == Side::Sell) offers.add(h, q);
  }
}

void MatchingEngine::clearPastCells() {
  for (auto& [id, b] : books_) {
    const Hour until = std::min(state_.now, b.base + static_cast<Hour>(b.cells.size()));
    for (Hour h = std::max(b.cleared, b.base); h < until; ++h)
      for (RestingLadder& l : b.cells[static_cast<std::size_t>(h - b.base)].ladders) l.clear();
    b.cleared = std::max(b.cleared, until);
  }
}

// ---- divisible matching -------------------------------------------------------------------

bool MatchingEngine::wouldTrade(const Order& o, Price limit, Hour from,
                                const std::vector<GpuCount>& need) const {
  const Book* b = findBook(*o.req.cluster);
  if (!b) return false;
  const Side other = opposite(o.req.side);
  for (std::size_t i = 0; i < need.size(); ++i) {
    if (need[i] <= 0) continue;
    const Hour h = from + static_cast<Hour>(i);
    const Cell* c = findCell(*b, h);
    if (!c || !crosses(o.req.side, limit, keyOf(other, c->ladders[side(other)].keyBound()))) continue;
    bool trades = false;
    c->ladders[side(other)].forEachBestFirst([&](const Entry& e) {
      if (!isLive(e, h)) return true;
      trades = crosses(o.req.side, limit, keyOf(other, e.key));
      return false;
    });
    if (trades) return true;
  }
  return false;
}

bool MatchingEngine::fillOrKillPossible(const Order& o, Hour from, const std::vector<GpuCount>& need) const {
  const Book* b = findBook(*o.req.cluster);
  const Side other = opposite(o.req.side);
  for (std::size_t i = 0; i < need.size(); ++i) {
    if (need[i] <= 0) continue;
    const Hour h = from + static_cast<Hour>(i);
    const Cell* c = b ? findCell(*b, h) : nullptr;
    if (!c || !crosses(o.req.side, o.req.limit, keyOf(other, c->ladders[side(other)].keyBound()))) return false;
    std::int64_t available = 0;
    c->ladders[side(other)].forEachBestFirst([&](const Entry& e) {
      if (available >= need[i]) return false;
      if (!isLive(e, h)) return true;
      if (!crosses(o.req.side, o.req.limit, keyOf(other, e.key))) return false;
      const Order& r = orders_[e.slot];
      if (r.req.account != o.req.account) available += remainingAt(r, h);
      return true;
    });
    if (available < need[i]) return false;
  }
  return true;
}

void MatchingEngine::matchAndRest(Slot s, Hour from, std::vector<GpuCount>& need, std::vector<Event>& out) {
  Order& o = orders_[s];
  const Side mySide = o.req.side;
  const Side other = opposite(mySide);
  const AccountId me = o.req.account;
  const bool skipOwn = o.req.tif == TimeInForce::FOK;
  bool cancelIncoming = false;
  std::vector<Event> selfTradeCancels;
  Book& b = book(*o.req.cluster);
  state_.recorder.begin(*o.req.cluster, {o.req.id, me}, mySide, o.req.id);

  // Takes what it can from resting order r in hour h, at r's price. Returns true if that used
  // up r's entry there.
  auto take = [&](RestingLadder& l, Order& r, Hour h, GpuCount& want) {
    GpuCount& rest = remainingRef(r, h);
    const GpuCount q = std::min(want, rest);
    want -= q;
    rest -= q;
    l.gpus -= q;
    r.filled += q;
    r.leaves -= q;
    o.filled += q;
    o.leaves -= q;
    if (r.leaves == 0) r.status = OrderStatus::Filled;
    state_.recorder.add({r.req.id, r.req.account}, h, q, r.req.limit);
    if (rest == 0) l.noteDeath();
  };

  // Memory is loaded in two stages, hours ahead of the walk: first the best end of each ladder
  // it may cross, then, once that has arrived, the order its best entry names, which the walk
  // reads to tell whether the entry is live and what it still wants.
  constexpr std::size_t kLadderAhead = 4;
  constexpr std::size_t kOrderAhead = 2;
  auto crossable = [&](std::size_t i) -> const RestingLadder* {
    if (i >= need.size()) return nullptr;
    const Cell* c = findCell(b, from + static_cast<Hour>(i));
    if (!c || !crosses(mySide, o.req.limit, keyOf(other, c->ladders[side(other)].keyBound()))) return nullptr;
    return &c->ladders[side(other)];
  };
  for (std::size_t i = 0; i < kLadderAhead; ++i)
    if (const RestingLadder* l = crossable(i)) l->prefetchBest();
  for (std::size_t i = 0; i < need.size() && !cancelIncoming; ++i) {
    if (const RestingLadder* l = crossable(i + kLadderAhead)) l->prefetchBest();
    if (const RestingLadder* l = crossable(i + kOrderAhead))
      if (const Entry* e = l->best()) prefetchOrder(orders_[e->slot]);
    if (need[i] == 0) continue;
    const Hour h = from + static_cast<Hour>(i);
    Cell* c = findCell(b, h);
    if (!c) continue;
    RestingLadder& l = c->ladders[side(other)];
    if (!crosses(mySide, o.req.limit, keyOf(other, l.keyBound()))) continue;
    auto live = [this, h](const Entry& e) { return isLive(e, h); };
    if (!skipOwn) {
      while (need[i] > 0) {
        const Entry* e = l.bestLive(live);
        if (!e || !crosses(mySide, o.req.limit, keyOf(other, e->key))) break;
        const Slot rs = e->slot;
        Order& r = orders_[rs];
        if (r.req.account == me) {
          if (o.req.stp == SelfTradePrevention::CancelIncoming) {
            cancelIncoming = true;
            break;
          }
          removeRemaining(rs, CancelReason::SelfTrade, selfTradeCancels);
          continue;
        }
        take(l, r, h, need[i]);
      }
    } else {
      l.forEachBestFirst([&](const Entry& e) {
        if (need[i] == 0) return false;
        if (!live(e)) return true;
        if (!crosses(mySide, o.req.limit, keyOf(other, e.key))) return false;
        Order& r = orders_[e.slot];
        if (r.req.account != me) take(l, r, h, need[i]);
        return true;
      });
    }
  }

  if (o.leaves == 0) {
    o.status = OrderStatus::Filled;
  } else if (!cancelIncoming) {
    const bool uniform = std::all_of(need.begin(), need.end(), [&](GpuCount q) { return q == o.req.gpus; });
    if (uniform) {
      o.qty.clear();
    } else {
      o.qty.assign(need.begin(), need.end());
      o.qtyBase = from;
    }
    const Entry e{o.seq, entryKey(mySide, o.req.limit), s};
    for (std::size_t i = 0; i < need.size(); ++i) {
      if (need[i] == 0) continue;
      RestingLadder& l = cell(b, from + static_cast<Hour>(i)).ladders[side(mySide)];
      l.insert(e);
      l.gpus += need[i];
    }
  }
  flushTrades(out);
  for (auto& e : selfTradeCancels) out.push_back(std::move(e));
  if (cancelIncoming && o.leaves > 0) {
    if (mySide == Side::Sell)
      for (std::size_t i = 0; i < need.size(); ++i)
        if (need[i] > 0) {
          const Hour h = from + static_cast<Hour>(i);
          state_.inventory.offer(me, *o.req.cluster, h, h + 1, -need[i]);
        }
    out.emplace_back(OrderCancelled{o.req.id, me, CancelReason::SelfTrade, o.leaves, 0});
    o.leaves = 0;
    o.status = OrderStatus::Cancelled;
  }
}

void MatchingEngine::flushTrades(std::vector<Event>& out) {
  state_.recorder.flush(out, state_.inventory, state_.contracts, state_.lastContract,
                        [this](OrderId id) { return orders_[slotOf_.at(id)].leaves; },
                        [this](OrderId id) -> const OfferTerms& { return orders_[slotOf_.at(id)].req.terms; });
}

// ---- all-or-none ----------------------------------------------------------------------------

bool MatchingEngine::mayFit(const Book& b, GpuCount gpus, Hour d, Money budget, Hour from, Hour to,
                            std::vector<Money>& bound) {
  // Per hour, a lower bound on the cost of `gpus` GPUs: the ladder's best-price bound times
  // `gpus`, or -1 if the ladder does not even hold that many (reading no entry). A window whose
  // bounds already exceed the budget cannot be feasible.
  for (Hour h = from; h < to; ++h) {
    const Cell* c = findCell(b, h);
    const RestingLadder* l = c ? &c->ladders[side(Side::Sell)] : nullptr;
    bound[static_cast<std::size_t>(h - from)] =
        l && l->gpus >= gpus ? static_cast<Money>(l->keyBound()) * gpus : -1;
  }
  bool fits = false;
  forEachWindowWithin(bound, d, budget, [&](std::size_t, Money) {
    fits = true;
    return false;  // one is enough
  });
  return fits;
}

std::optional<MatchingEngine::Placement> MatchingEngine::bestPlacement(
    const Order& o, GpuCount gpus, Price limit, const std::vector<ClusterId>& candidates,
    const NewAsks* onlyNear) const {
  std::optional<Placement> best;
  const Hour d = o.req.hours();
  const Money budget = limit * gpus * d;
  Hour from = std::max(o.req.start, state_.now);
  Hour to = o.req.end;
  if (onlyNear) {
    // Only placements that use some of the new asks' hours.
    from = std::max(from, onlyNear->start - d + 1);
    to = std::min(to, onlyNear->end + d - 1);
  }
  if (to - from < d) return best;
  std::vector<Money> cost(static_cast<std::size_t>(to - from));
  for (ClusterId cid : candidates) {
    if (onlyNear && cid != onlyNear->cluster) continue;
    const Book* b = findBook(cid);
    if (!b || !mayFit(*b, gpus, d, budget, from, to, cost)) continue;
    // Cost of the cheapest `gpus` GPUs of other accounts in each hour, or -1 if too few.
    for (Hour h = from; h < to; ++h) {
      Money& ch = cost[static_cast<std::size_t>(h - from)];
      ch = -1;
      const Cell* c = findCell(*b, h);
      if (!c || c->ladders[side(Side::Sell)].gpus < gpus) continue;
      GpuCount want = gpus;
      Money sum = 0;
      c->ladders[side(Side::Sell)].forEachBestFirst([&](const Entry& e) {
        if (want == 0) return false;
        if (!isLive(e, h)) return true;
        const Order& r = orders_[e.slot];
        if (r.req.account == o.req.account) return true;
        const GpuCount q = std::min(want, remainingAt(r, h));
        sum += e.key * static_cast<Money>(q);
        want -= q;
        return true;
      });
      if (want == 0) ch = sum;
    }
    // Cheapest window of d consecutive feasible hours; the earliest wins a tie.
    forEachWindowWithin(cost, d, budget, [&](std::size_t first, Money window) {
      const RankedCost rank = rankedCost(o.req, cid, window);
      if (!best || rank < best->rank) best = Placement{cid, from + static_cast<Hour>(first), window, rank};
      return true;
    });
  }
  return best;
}

void MatchingEngine::fillAllOrNone(Slot s, const Placement& p, OrderId aggressor, std::vector<Event>& out) {
  Order& o = orders_[s];
  Book& b = book(p.cluster);
  const Hour d = o.req.hours();
  state_.recorder.begin(p.cluster, {o.req.id, o.req.account}, Side::Buy, aggressor);
  for (Hour h = p.start; h < p.start + d; ++h) {
    RestingLadder& l = findCell(b, h)->ladders[side(Side::Sell)];
    GpuCount want = o.req.gpus;
    l.forEachBestFirst([&](const Entry& e) {
      if (want == 0) return false;
      if (!isLive(e, h)) return true;
      Order& r = orders_[e.slot];
      if (r.req.account == o.req.account) return true;
      GpuCount& rest = remainingRef(r, h);
      const GpuCount q = std::min(want, rest);
      want -= q;
      rest -= q;
      l.gpus -= q;
      r.filled += q;
      r.leaves -= q;
      if (r.leaves == 0) r.status = OrderStatus::Filled;
      state_.recorder.add({r.req.id, r.req.account}, h, q, r.req.limit);
      if (rest == 0) l.noteDeath();
      return true;
    });
  }
  o.filled = static_cast<std::int64_t>(o.req.gpus) * d;
  o.leaves = 0;
  o.status = OrderStatus::Filled;
  unlistAllOrNone(s);
  flushTrades(out);
}

void MatchingEngine::restAllOrNone(Slot s) {
  Order& o = orders_[s];
  for (ClusterId c : o.candidates) book(c).allOrNoneBids.push_back(s);
  o.listed = true;
}

void MatchingEngine::unlistAllOrNone(Slot s) {
  Order& o = orders_[s];
  if (!o.listed) return;
  for (ClusterId c : o.candidates) {
    auto& v = book(c).allOrNoneBids;
    v.erase(std::find(v.begin(), v.end(), s));
  }
  o.listed = false;
}

std::vector<MatchingEngine::Slot> MatchingEngine::allOrNoneBidsTouching(ClusterId cluster, Hour start, Hour end) {
  std::vector<Slot> bids;
  for (Slot s : book(cluster).allOrNoneBids) {
    const Order& o = orders_[s];
    if (o.status == OrderStatus::Working && o.req.start < end && start < o.req.end) bids.push_back(s);
  }
  std::sort(bids.begin(), bids.end(), [this](Slot a, Slot b) {
    const Order& x = orders_[a];
    const Order& y = orders_[b];
    return x.req.limit != y.req.limit ? x.req.limit > y.req.limit : x.seq < y.seq;
  });
  return bids;
}

bool MatchingEngine::sellWouldCompleteAllOrNone(const Order& o) {
  const std::vector<Slot> bids = allOrNoneBidsTouching(*o.req.cluster, o.req.start, o.req.end);
  if (bids.empty()) return false;
  const Slot probe = static_cast<Slot>(orders_.size());
  orders_.push_back(o);
  orders_.back().seq = lastSeq_ + 1;
  Book& b = book(*o.req.cluster);
  const Entry entry{lastSeq_ + 1, entryKey(Side::Sell, o.req.limit), probe};
  const NewAsks added{*o.req.cluster, o.req.start, o.req.end};
  for (Hour h = o.req.start; h < o.req.end; ++h) {
    RestingLadder& l = cell(b, h).ladders[side(Side::Sell)];
    l.insert(entry);
    l.gpus += o.req.gpus;
  }
  bool completes = false;
  for (Slot s : bids) {
    const Order& bid = orders_[s];
    if ((completes = bestPlacement(bid, bid.req.gpus, bid.req.limit, bid.candidates, &added).has_value())) break;
  }
  for (Hour h = o.req.start; h < o.req.end; ++h) {
    RestingLadder& l = findCell(b, h)->ladders[side(Side::Sell)];
    l.erase(entry.key, entry.seq);
    l.gpus -= o.req.gpus;
  }
  orders_.pop_back();
  return completes;
}

void MatchingEngine::recheckAllOrNone(Slot askSlot, std::vector<Event>& out) {
  const OrderRequest& ask = orders_[askSlot].req;
  const OrderId askId = ask.id;
  const NewAsks added{*ask.cluster, ask.start, ask.end};
  for (Slot s : allOrNoneBidsTouching(*ask.cluster, ask.start, ask.end)) {
    const Order& o = orders_[s];
    if (auto p = bestPlacement(o, o.req.gpus, o.req.limit, o.candidates, &added)) fillAllOrNone(s, *p, askId, out);
  }
}

// ---- removal --------------------------------------------------------------------------------

void MatchingEngine::removeRemaining(Slot s, CancelReason reason, std::vector<Event>& out) {
  Order& o = orders_[s];
  const std::int64_t cancelled = o.leaves;
  if (o.aon()) {
    unlistAllOrNone(s);
  }
  o.leaves = 0;
  o.status = OrderStatus::Cancelled;
  if (!o.aon()) retireEntries(o);
  out.emplace_back(OrderCancelled{o.req.id, o.req.account, reason, cancelled, 0});
}

// ---- inputs ---------------------------------------------------------------------------------

void MatchingEngine::submit(const OrderRequest& req, std::vector<Event>& out) {
  std::vector<ClusterId> candidates;
  if (auto r = validateNewOrder(req, slotOf_.contains(req.id), state_.view(), candidates)) {
    out.emplace_back(std::move(*r));
    return;
  }
  Order o;
  o.req = req;
  o.accepted = candidates;
  o.candidates = std::move(candidates);
  o.liveFrom = req.start;
  const bool aon = o.aon();
  std::vector<GpuCount>& need = scratchNeed_;
  if (!aon) need.assign(static_cast<std::size_t>(req.end - req.start), req.gpus);
  if (req.postOnly) {
    const bool trades = aon ? bestPlacement(o, req.gpus, req.limit, o.candidates).has_value()
                            : wouldTrade(o, req.limit, req.start, need) ||
                                  (req.side == Side::Sell && sellWouldCompleteAllOrNone(o));
    if (trades) {
      out.emplace_back(OrderRejected{req.id, req.account, RejectReason::PostOnlyWouldTrade,
                                     "a post-only order must not trade on arrival"});
      return;
    }
  }
  o.seq = ++lastSeq_;
  o.leaves = static_cast<std::int64_t>(req.gpus) * (aon ? req.hours() : req.end - req.start);
  const Slot s = static_cast<Slot>(orders_.size());
  orders_.push_back(std::move(o));
  slotOf_.insert(req.id, s);
  working_.push_back(s);
  out.emplace_back(OrderAccepted{req.id, req.account});
  if (req.side == Side::Sell) state_.inventory.offer(req.account, *req.cluster, req.start, req.end, req.gpus);

  if (aon) {
    Order& order = orders_[s];
    if (auto p = bestPlacement(order, req.gpus, req.limit, order.candidates)) fillAllOrNone(s, *p, req.id, out);
    else if (req.tif == TimeInForce::IOC) removeRemaining(s, CancelReason::ImmediateOrCancel, out);
    else if (req.tif == TimeInForce::FOK) removeRemaining(s, CancelReason::FillOrKill, out);
    else restAllOrNone(s);
    return;
  }
  if (req.tif == TimeInForce::FOK && !fillOrKillPossible(orders_[s], req.start, need)) {
    Order& order = orders_[s];
    if (req.side == Side::Sell) state_.inventory.offer(req.account, *req.cluster, req.start, req.end, -req.gpus);
    out.emplace_back(OrderCancelled{req.id, req.account, CancelReason::FillOrKill, order.leaves, 0});
    order.leaves = 0;
    order.status = OrderStatus::Cancelled;
    return;
  }
  matchAndRest(s, req.start, need, out);
  if (orders_[s].status == OrderStatus::Working && req.side == Side::Sell) recheckAllOrNone(s, out);
  if (orders_[s].status == OrderStatus::Working && req.tif == TimeInForce::IOC)
    removeRemaining(s, CancelReason::ImmediateOrCancel, out);
}

const OrderRequest* MatchingEngine::workingRequest(std::optional<Slot> s) const {
  return s && orders_[*s].status == OrderStatus::Working ? &orders_[*s].req : nullptr;
}

void MatchingEngine::cancel(const CancelRequest& c, std::vector<Event>& out) {
  const auto slot = slotOf_.find(c.id);
  if (auto r = validateOwnWorkingOrder(c.id, c.account, workingRequest(slot))) {
    out.emplace_back(std::move(*r));
    return;
  }
  removeRemaining(*slot, CancelReason::User, out);
}

void MatchingEngine::amend(const AmendRequest& a, std::vector<Event>& out) {
  auto reject = [&](RejectReason r, std::string d) {
    out.emplace_back(OrderRejected{a.id, a.account, r, std::move(d)});
  };
  const auto slot = slotOf_.find(a.id);
  if (auto r = validateOwnWorkingOrder(a.id, a.account, workingRequest(slot))) {
    out.emplace_back(std::move(*r));
    return;
  }
  const Slot s = *slot;
  Order& o = orders_[s];
  Price limit = 0;
  GpuCount gpus = 0;
  std::vector<ClusterId> candidates;
  if (auto r = validateAmend(a, o.req, o.accepted, state_.view(), limit, gpus, candidates)) {
    out.emplace_back(std::move(*r));
    return;
  }
  const bool keepPriority = limit == o.req.limit && gpus <= o.req.gpus;

  if (o.aon()) {
    const auto placement = bestPlacement(o, gpus, limit, candidates);
    if (o.req.postOnly && placement) return reject(RejectReason::PostOnlyWouldTrade, "a post-only order must not trade");
    unlistAllOrNone(s);
    o.req.limit = limit;
    o.req.gpus = gpus;
    o.candidates = std::move(candidates);
    o.leaves = static_cast<std::int64_t>(gpus) * o.req.hours();
    if (!keepPriority) o.seq = ++lastSeq_;
    out.emplace_back(OrderAmended{o.req.id, o.req.account, limit, gpus, keepPriority});
    if (placement) fillAllOrNone(s, *placement, o.req.id, out);
    else restAllOrNone(s);
    return;
  }

  const GpuCount delta = gpus - o.req.gpus;
  const Hour from = std::max(o.req.start, state_.now);
  const auto hours = static_cast<std::size_t>(o.req.end - from);
  std::vector<GpuCount> current(hours), next(hours);
  std::int64_t nextTotal = 0;
  for (std::size_t i = 0; i < hours; ++i) {
    current[i] = remainingAt(o, from + static_cast<Hour>(i));
    next[i] = std::max(0, current[i] + delta);
    nextTotal += next[i];
  }
  if (nextTotal == 0) return reject(RejectReason::InvalidGpuCount, "the order has already filled that many GPUs in every hour");
  if (o.req.side == Side::Sell && delta > 0)
    for (std::size_t i = 0; i < hours; ++i) {
      const Hour h = from + static_cast<Hour>(i);
      const GpuCount extra = next[i] - current[i];
      if (extra > 0 && !state_.inventory.canOffer(o.req.account, *o.req.cluster, h, h + 1, extra))
        return reject(RejectReason::InsufficientHoldings, "the account does not own or hold these GPU-hours");
    }
  if (o.req.postOnly && !keepPriority && wouldTrade(o, limit, from, next))
    return reject(RejectReason::PostOnlyWouldTrade, "a post-only order must not trade");

  Book& b = book(*o.req.cluster);
  for (std::size_t i = 0; i < hours; ++i) {
    const Hour h = from + static_cast<Hour>(i);
    if (o.req.side == Side::Sell && next[i] != current[i])
      state_.inventory.offer(o.req.account, *o.req.cluster, h, h + 1, next[i] - current[i]);
    if (current[i] == 0) continue;
    RestingLadder& l = findCell(b, h)->ladders[side(o.req.side)];
    if (keepPriority && next[i] > 0) {
      l.gpus += next[i] - current[i];
    } else {
      l.gpus -= current[i];
      l.noteDeath();  // kept priority: its quantity there is now 0; else: the new sequence
    }
  }
  // An order that still wants the same in every hour stays implicit: its new `gpus` says it.
  if (keepPriority && !o.qty.empty())
    for (std::size_t i = 0; i < hours; ++i) o.qty[static_cast<std::size_t>(from - o.qtyBase) + i] = next[i];
  o.req.limit = limit;
  o.req.gpus = gpus;
  o.leaves = nextTotal;
  if (!keepPriority) o.seq = ++lastSeq_;
  out.emplace_back(OrderAmended{o.req.id, o.req.account, limit, gpus, keepPriority});
  if (keepPriority) return;
  matchAndRest(s, from, next, out);
  if (orders_[s].status == OrderStatus::Working && orders_[s].req.side == Side::Sell) recheckAllOrNone(s, out);
}

void MatchingEngine::advance(const ClockAdvance& c, std::vector<Event>& out) {
  if (c.now <= state_.now) {
    out.emplace_back(OrderRejected{0, 0, RejectReason::InvalidWindow, "the exchange clock only moves forward"});
    return;
  }
  state_.now = c.now;
  out.emplace_back(ClockAdvanced{c.now});
  for (Slot s : working_) {
    Order& o = orders_[s];
    if (o.status != OrderStatus::Working) continue;
    const bool gtdExpired = o.req.tif == TimeInForce::GTD && *o.req.expireAt <= c.now;
    if (gtdExpired || (o.aon() && o.req.end - o.req.hours() < c.now)) {
      removeRemaining(s, CancelReason::Expired, out);
      continue;
    }
    if (o.aon() || o.liveFrom >= c.now) continue;
    // The cells of these hours are cleared below, so only the order and the inventory change.
    std::int64_t removed = 0;
    const Hour until = std::min(c.now, o.req.end);
    {
      OfferReturn offers(state_.inventory, o.req.account, *o.req.cluster);
      for (Hour h = o.liveFrom; h < until; ++h) {
        const GpuCount q = storedAt(o, h);
        if (q == 0) continue;
        removed += q;
        if (o.req.side == Side::Sell) offers.add(h, q);
      }
    }
    o.liveFrom = until;
    if (removed == 0) continue;
    o.leaves -= removed;
    if (o.leaves == 0) o.status = OrderStatus::Cancelled;
    out.emplace_back(OrderCancelled{o.req.id, o.req.account, CancelReason::Expired, removed, o.leaves});
  }
  std::erase_if(working_, [this](Slot s) { return orders_[s].status != OrderStatus::Working; });
  clearPastCells();
}

// ---- queries --------------------------------------------------------------------------------

std::optional<OrderView> MatchingEngine::order(OrderId id) const {
  const auto slot = slotOf_.find(id);
  if (!slot) return std::nullopt;
  return view(orders_[*slot]);
}

std::vector<OrderView> MatchingEngine::workingOrders(AccountId account) const {
  std::vector<OrderView> out;
  for (Slot s : working_) {
    const Order& o = orders_[s];
    if (o.status == OrderStatus::Working && o.req.account == account) out.push_back(view(o));
  }
  std::sort(out.begin(), out.end(), [](const OrderView& a, const OrderView& b) { return a.request.id < b.request.id; });
  return out;
}

std::vector<BookLevel> MatchingEngine::depth(ClusterId cluster, Hour hour, Side s, std::size_t maxLevels) const {
  std::vector<BookLevel> out;
  const Book* b = findBook(cluster);
  const Cell* c = b ? findCell(*b, hour) : nullptr;
  if (!c) return out;
  c->ladders[side(s)].forEachBestFirst([&](const Entry& e) {
    if (!isLive(e, hour)) return true;
    const Order& o = orders_[e.slot];
    const Price price = keyOf(s, e.key);
    if (out.empty() || out.back().price != price) {
      if (out.size() == maxLevels) return false;
      out.push_back(BookLevel{price, 0, 0, o.req.terms});
    }
    out.back().gpus += remainingAt(o, hour);
    out.back().orders += 1;
    return true;
  });
  return out;
}

std::vector<OrderView> MatchingEngine::allOrNoneBids(ClusterId cluster) const {
  std::vector<const Order*> bids;
  if (const Book* b = findBook(cluster))
    for (Slot s : b->allOrNoneBids)
      if (orders_[s].status == OrderStatus::Working) bids.push_back(&orders_[s]);
  std::sort(bids.begin(), bids.end(), [](const Order* a, const Order* b) {
    return a->req.limit != b->req.limit ? a->req.limit > b->req.limit : a->seq < b->seq;
  });
  std::vector<OrderView> out;
  for (const Order* o : bids) out.push_back(view(*o));
  return out;
}

}  // namespace tessera
