#include "core/engine/ReferenceMatcher.h"

#include "core/engine/MarketLimits.h"

#include <algorithm>
#include <utility>

namespace tessera {

std::unique_ptr<Matcher> makeReferenceMatcher() { return std::make_unique<ReferenceMatcher>(); }

std::int64_t ReferenceMatcher::Order::leaves() const {
  if (status != OrderStatus::Working) return 0;
  if (aon()) return static_cast<std::int64_t>(req.gpus) * req.hours();
  std::int64_t sum = 0;
  for (const auto& [h, q] : remaining) sum += q;
  return sum;
}

void ReferenceMatcher::apply(const InputEvent& in, std::vector<Event>& out) {
  if (state_.applyNonOrder(in, out)) return;
  std::visit(
      [&](const auto& e) {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, OrderRequest>)
          submit(e, out);
        else if constexpr (std::is_same_v<T, CancelRequest>)
          cancel(e, out);
        else if constexpr (std::is_same_v<T, AmendRequest>)
          amend(e, out);
        else if constexpr (std::is_same_v<T, ClockAdvance>)
          advance(e, out);
      },
      in);
}

// Working divisible orders of one side in one cell, best first: price, then time.
std::vector<const ReferenceMatcher::Order*> ReferenceMatcher::ladder(ClusterId cluster, Hour hour, Side side) const {
  std::vector<const Order*> out;
  for (const auto& [id, o] : orders_) {
    if (o.status != OrderStatus::Working || o.aon() || o.req.side != side || *o.req.cluster != cluster) continue;
    auto it = o.remaining.find(hour);
    if (it != o.remaining.end() && it->second > 0) out.push_back(&o);
  }
  std::sort(out.begin(), out.end(), [side](const Order* a, const Order* b) {
    if (a->req.limit != b->req.limit)
      return side == Side::Sell ? a->req.limit < b->req.limit : a->req.limit > b->req.limit;
    return a->seq < b->seq;
  });
  return out;
}

std::vector<ReferenceMatcher::Order*> ReferenceMatcher::ladder(ClusterId cluster, Hour hour, Side side) {
  std::vector<Order*> out;
  for (const Order* o : std::as_const(*this).ladder(cluster, hour, side)) out.push_back(const_cast<Order*>(o));
  return out;
}

bool ReferenceMatcher::wouldTrade(const Order& o, Price limit, const std::map<Hour, GpuCount>& need) const {
  for (const auto& [h, q] : need) {
    if (q <= 0) continue;
    for (const Order* r : ladder(*o.req.cluster, h, opposite(o.req.side)))
      if (crosses(o.req.side, limit, r->req.limit)) return true;
  }
  return false;
}

bool ReferenceMatcher::fillOrKillPossible(const Order& o) const {
  for (const auto& [h, q] : o.remaining) {
    std::int64_t available = 0;
    for (const Order* r : ladder(*o.req.cluster, h, opposite(o.req.side)))
      if (r->req.account != o.req.account && crosses(o.req.side, o.req.limit, r->req.limit))
        available += r->remaining.at(h);
    if (available < q) return false;
  }
  return true;
}

void ReferenceMatcher::flushTrades(std::vector<Event>& out) {
  state_.recorder.flush(
      out, state_.inventory, state_.contracts, state_.lastContract,
      [this](OrderRef o) { return orders_.at(o.order).leaves(); },
      [this](OrderRef o) -> const OfferTerms& { return orders_.at(o.order).req.terms; });
}

void ReferenceMatcher::removeRemaining(Order& o, OrderStatus status, CancelReason reason, std::vector<Event>& out) {
  const std::int64_t cancelled = o.leaves();
  if (o.req.side == Side::Sell)
    for (const auto& [h, q] : o.remaining) state_.inventory.offer(o.req.account, *o.req.cluster, h, h + 1, -q);
  o.remaining.clear();
  o.status = status;
  out.emplace_back(OrderCancelled{o.req.id, o.req.account, reason, cancelled, 0});
}

void ReferenceMatcher::matchDivisible(Order& o, std::vector<Event>& out) {
  const Side other = opposite(o.req.side);
  const bool skipOwn = o.req.tif == TimeInForce::FOK;
  std::vector<Event> selfTradeCancels;
  bool cancelIncoming = false;
  state_.recorder.begin(*o.req.cluster, {o.req.id, o.req.account}, o.req.side, o.req.id);
  for (auto& [h, need] : o.remaining) {
    while (need > 0 && !cancelIncoming) {
      Order* best = nullptr;
      for (Order* r : ladder(*o.req.cluster, h, other)) {
        if (!crosses(o.req.side, o.req.limit, r->req.limit)) break;
        if (skipOwn && r->req.account == o.req.account) continue;
        best = r;
        break;
      }
      if (!best) break;
      if (best->req.account == o.req.account) {
        if (o.req.stp == SelfTradePrevention::CancelIncoming) {
          cancelIncoming = true;
        } else {
          removeRemaining(*best, OrderStatus::Cancelled, CancelReason::SelfTrade, selfTradeCancels);
        }
        continue;
      }
      GpuCount& theirs = best->remaining.at(h);
      const GpuCount q = std::min(need, theirs);
      need -= q;
      theirs -= q;
      o.filled += q;
      best->filled += q;
      if (theirs == 0) best->remaining.erase(h);
      if (best->remaining.empty()) best->status = OrderStatus::Filled;
      state_.recorder.add({best->req.id, best->req.account}, h, q, best->req.limit);
    }
    if (cancelIncoming) break;
  }
  std::erase_if(o.remaining, [](const auto& hq) { return hq.second == 0; });
  if (o.remaining.empty()) o.status = OrderStatus::Filled;
  flushTrades(out);
  for (auto& e : selfTradeCancels) out.push_back(std::move(e));
  if (cancelIncoming && o.status == OrderStatus::Working)
    removeRemaining(o, OrderStatus::Cancelled, CancelReason::SelfTrade, out);
}

std::optional<ReferenceMatcher::Placement> ReferenceMatcher::bestPlacement(const Order& o) const {
  std::optional<Placement> best;
  const Hour d = o.req.hours();
  const Money budget = o.req.limit * o.req.gpus * d;
  for (ClusterId c : o.candidates) {
    for (Hour t = std::max(o.req.start, state_.now); t + d <= o.req.end; ++t) {
      Money total = 0;
      bool feasible = true;
      for (Hour h = t; h < t + d && feasible; ++h) {
        GpuCount take = o.req.gpus;
        for (const Order* r : ladder(c, h, Side::Sell)) {
          if (r->req.account == o.req.account) continue;
          const GpuCount q = std::min(take, r->remaining.at(h));
          total += r->req.limit * q;
          take -= q;
          if (take == 0) break;
        }
        feasible = take == 0;
      }
      if (feasible && total <= budget) {
        const RankedCost rank = rankedCost(o.req, c, total);
        if (!best || rank < best->rank) best = Placement{c, t, total, rank};
      }
    }
  }
  return best;
}

void ReferenceMatcher::fillAllOrNone(Order& o, const Placement& p, OrderId aggressor, std::vector<Event>& out) {
  state_.recorder.begin(p.cluster, {o.req.id, o.req.account}, Side::Buy, aggressor);
  for (Hour h = p.start; h < p.start + o.req.hours(); ++h) {
    GpuCount take = o.req.gpus;
    for (Order* r : ladder(p.cluster, h, Side::Sell)) {
      if (r->req.account == o.req.account) continue;
      GpuCount& theirs = r->remaining.at(h);
      const GpuCount q = std::min(take, theirs);
      theirs -= q;
      take -= q;
      r->filled += q;
      if (theirs == 0) r->remaining.erase(h);
      if (r->remaining.empty()) r->status = OrderStatus::Filled;
      state_.recorder.add({r->req.id, r->req.account}, h, q, r->req.limit);
      if (take == 0) break;
    }
  }
  o.filled = static_cast<std::int64_t>(o.req.gpus) * o.req.hours();
  o.status = OrderStatus::Filled;
  flushTrades(out);
}

std::vector<ReferenceMatcher::Order*> ReferenceMatcher::allOrNoneBidsTouching(ClusterId c, Hour start, Hour end) {
  std::vector<Order*> bids;
  for (auto& [id, o] : orders_) {
    if (o.status != OrderStatus::Working || !o.aon()) continue;
    if (std::find(o.candidates.begin(), o.candidates.end(), c) == o.candidates.end()) continue;
    if (o.req.start < end && start < o.req.end) bids.push_back(&o);
  }
  std::sort(bids.begin(), bids.end(), [](const Order* a, const Order* b) {
    return a->req.limit != b->req.limit ? a->req.limit > b->req.limit : a->seq < b->seq;
  });
  return bids;
}

bool ReferenceMatcher::sellWouldCompleteAllOrNone(const Order& o) {
  const auto bids = allOrNoneBidsTouching(*o.req.cluster, o.req.start, o.req.end);
  Order probe = o;
  probe.seq = lastSeq_ + 1;
  // An amended order is in the book already: the probe stands in for it (its re-entry replaces
  // it), and it is put back afterwards.
  auto [it, isNew] = orders_.try_emplace(o.req.id);
  Order kept = std::exchange(it->second, std::move(probe));
  bool completes = false;
  for (const Order* b : bids)
    if ((completes = bestPlacement(*b).has_value())) break;
  if (isNew)
    orders_.erase(it);
  else
    it->second = std::move(kept);
  return completes;
}

void ReferenceMatcher::recheckAllOrNone(const Order& ask, std::vector<Event>& out) {
  for (Order* b : allOrNoneBidsTouching(*ask.req.cluster, ask.req.start, ask.req.end))
    if (auto p = bestPlacement(*b)) fillAllOrNone(*b, *p, ask.req.id, out);
}

void ReferenceMatcher::submit(const OrderRequest& req, std::vector<Event>& out) {
  std::vector<ClusterId> candidates;
  if (auto r = validateNewOrder(req, orders_.count(req.id) > 0, state_.view(), candidates)) {
    out.emplace_back(std::move(*r));
    return;
  }
  Order o;
  o.req = req;
  o.accepted = candidates;
  o.candidates = std::move(candidates);
  if (!o.aon())
    for (Hour h = req.start; h < req.end; ++h) o.remaining[h] = req.gpus;
  if (req.postOnly) {
    const bool trades =
        o.aon() ? bestPlacement(o).has_value()
                : wouldTrade(o, req.limit, o.remaining) || (req.side == Side::Sell && sellWouldCompleteAllOrNone(o));
    if (trades) {
      out.emplace_back(OrderRejected{req.id, req.account, RejectReason::PostOnlyWouldTrade,
                                     "a post-only order must not trade on arrival"});
      return;
    }
  }
  o.seq = ++lastSeq_;
  Order& order = orders_.emplace(req.id, std::move(o)).first->second;
  arrival_.push_back(req.id);
  out.emplace_back(OrderAccepted{req.id, req.account});
  if (req.side == Side::Sell) state_.inventory.offer(req.account, *req.cluster, req.start, req.end, req.gpus);

  if (order.aon()) {
    if (auto p = bestPlacement(order))
      fillAllOrNone(order, *p, req.id, out);
    else if (req.tif == TimeInForce::IOC)
      removeRemaining(order, OrderStatus::Cancelled, CancelReason::ImmediateOrCancel, out);
    else if (req.tif == TimeInForce::FOK)
      removeRemaining(order, OrderStatus::Cancelled, CancelReason::FillOrKill, out);
    return;
  }
  if (req.tif == TimeInForce::FOK && !fillOrKillPossible(order)) {
    removeRemaining(order, OrderStatus::Cancelled, CancelReason::FillOrKill, out);
    return;
  }
  matchDivisible(order, out);
  if (order.status == OrderStatus::Working && req.side == Side::Sell) recheckAllOrNone(order, out);
  if (order.status == OrderStatus::Working && req.tif == TimeInForce::IOC)
    removeRemaining(order, OrderStatus::Cancelled, CancelReason::ImmediateOrCancel, out);
}

const OrderRequest* ReferenceMatcher::workingRequest(std::map<OrderId, Order>::const_iterator it) const {
  return it != orders_.end() && it->second.status == OrderStatus::Working ? &it->second.req : nullptr;
}

void ReferenceMatcher::cancel(const CancelRequest& c, std::vector<Event>& out) {
  auto it = orders_.find(c.id);
  if (auto r = validateOwnWorkingOrder(c.id, c.account, workingRequest(it))) {
    out.emplace_back(std::move(*r));
    return;
  }
  removeRemaining(it->second, OrderStatus::Cancelled, CancelReason::User, out);
}

void ReferenceMatcher::amend(const AmendRequest& a, std::vector<Event>& out) {
  auto reject = [&](RejectReason r, std::string d) {
    out.emplace_back(OrderRejected{a.id, a.account, r, std::move(d)});
  };
  auto it = orders_.find(a.id);
  if (auto r = validateOwnWorkingOrder(a.id, a.account, workingRequest(it))) {
    out.emplace_back(std::move(*r));
    return;
  }
  Order& o = it->second;
  Price limit = 0;
  GpuCount gpus = 0;
  std::vector<ClusterId> candidates;
  if (auto r = validateAmend(a, o.req, o.accepted, state_.view(), limit, gpus, candidates)) {
    out.emplace_back(std::move(*r));
    return;
  }
  const bool keepPriority = limit == o.req.limit && gpus <= o.req.gpus;

  if (o.aon()) {
    Order trial = o;
    trial.req.limit = limit;
    trial.req.gpus = gpus;
    trial.candidates = candidates;
    const auto placement = bestPlacement(trial);
    if (o.req.postOnly && placement)
      return reject(RejectReason::PostOnlyWouldTrade, "a post-only order must not trade");
    o.req = trial.req;
    o.candidates = std::move(candidates);
    if (!keepPriority) o.seq = ++lastSeq_;
    out.emplace_back(OrderAmended{o.req.id, o.req.account, limit, gpus, keepPriority});
    if (placement) fillAllOrNone(o, *placement, o.req.id, out);
    return;
  }

  const GpuCount delta = gpus - o.req.gpus;
  std::map<Hour, GpuCount> next;
  for (Hour h = std::max(o.req.start, state_.now); h < o.req.end; ++h) {
    auto r = o.remaining.find(h);
    const GpuCount now = r == o.remaining.end() ? 0 : r->second;
    if (const GpuCount q = std::max(0, now + delta); q > 0) next[h] = q;
  }
  if (next.empty())
    return reject(RejectReason::InvalidGpuCount, "the order has already filled that many GPUs in every hour");
  if (o.req.side == Side::Sell && delta > 0)
    for (const auto& [h, q] : next) {
      auto r = o.remaining.find(h);
      const GpuCount extra = q - (r == o.remaining.end() ? 0 : r->second);
      if (extra > 0 && !state_.inventory.canOffer(o.req.account, *o.req.cluster, h, h + 1, extra))
        return reject(RejectReason::InsufficientHoldings, "the account does not own or hold these GPU-hours");
    }
  if (o.req.postOnly && !keepPriority) {
    Order reentered = o;
    reentered.req.limit = limit;
    reentered.req.gpus = gpus;
    reentered.remaining = next;
    if (wouldTrade(o, limit, next) || (o.req.side == Side::Sell && sellWouldCompleteAllOrNone(reentered)))
      return reject(RejectReason::PostOnlyWouldTrade, "a post-only order must not trade");
  }
  if (o.req.side == Side::Sell) {
    for (const auto& [h, q] : o.remaining) state_.inventory.offer(o.req.account, *o.req.cluster, h, h + 1, -q);
    for (const auto& [h, q] : next) state_.inventory.offer(o.req.account, *o.req.cluster, h, h + 1, q);
  }
  o.remaining = std::move(next);
  o.req.limit = limit;
  o.req.gpus = gpus;
  if (!keepPriority) o.seq = ++lastSeq_;
  out.emplace_back(OrderAmended{o.req.id, o.req.account, limit, gpus, keepPriority});
  if (keepPriority) return;
  matchDivisible(o, out);
  if (o.status == OrderStatus::Working && o.req.side == Side::Sell) recheckAllOrNone(o, out);
}

void ReferenceMatcher::advance(const ClockAdvance& c, std::vector<Event>& out) {
  if (c.now <= state_.now) {
    out.emplace_back(OrderRejected{0, 0, RejectReason::InvalidWindow, "the exchange clock only moves forward"});
    return;
  }
  state_.now = c.now;
  out.emplace_back(ClockAdvanced{c.now});
  for (OrderId id : arrival_) {
    auto found = orders_.find(id);
    if (found == orders_.end()) continue;  // forgotten once finished
    Order& o = found->second;
    if (o.status != OrderStatus::Working) continue;
    const bool gtdExpired = o.req.tif == TimeInForce::GTD && *o.req.expireAt <= c.now;
    if (gtdExpired || (o.aon() && o.req.end - o.req.hours() < c.now)) {
      removeRemaining(o, OrderStatus::Cancelled, CancelReason::Expired, out);
      continue;
    }
    if (o.aon()) continue;
    std::int64_t removed = 0;
    for (auto it = o.remaining.begin(); it != o.remaining.end() && it->first < c.now;) {
      removed += it->second;
      if (o.req.side == Side::Sell)
        state_.inventory.offer(o.req.account, *o.req.cluster, it->first, it->first + 1, -it->second);
      it = o.remaining.erase(it);
    }
    if (removed == 0) continue;
    if (o.remaining.empty()) o.status = OrderStatus::Cancelled;
    out.emplace_back(OrderCancelled{o.req.id, o.req.account, CancelReason::Expired, removed, o.leaves()});
  }
}

OrderView ReferenceMatcher::view(const Order& o) const { return OrderView{o.req, o.status, o.filled, o.leaves()}; }

std::optional<OrderView> ReferenceMatcher::order(OrderId id) const {
  auto it = orders_.find(id);
  if (it == orders_.end()) return std::nullopt;
  return view(it->second);
}

std::vector<OrderView> ReferenceMatcher::workingOrders(AccountId account) const {
  std::vector<OrderView> out;
  for (const auto& [id, o] : orders_)
    if (o.status == OrderStatus::Working && o.req.account == account) out.push_back(view(o));
  return out;
}

std::vector<BookLevel> ReferenceMatcher::depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const {
  std::vector<BookLevel> out;
  for (const Order* o : ladder(cluster, hour, side)) {
    if (out.empty() || out.back().price != o->req.limit) {
      if (out.size() == maxLevels) break;
      out.push_back(BookLevel{o->req.limit, 0, 0, o->req.terms});
    }
    out.back().gpus += o->remaining.at(hour);
    out.back().orders += 1;
  }
  return out;
}

std::vector<OrderView> ReferenceMatcher::allOrNoneBids(ClusterId cluster) const {
  std::vector<const Order*> bids;
  for (const auto& [id, o] : orders_)
    if (o.status == OrderStatus::Working && o.aon() &&
        std::find(o.candidates.begin(), o.candidates.end(), cluster) != o.candidates.end())
      bids.push_back(&o);
  std::sort(bids.begin(), bids.end(), [](const Order* a, const Order* b) {
    return a->req.limit != b->req.limit ? a->req.limit > b->req.limit : a->seq < b->seq;
  });
  std::vector<OrderView> out;
  for (const Order* o : bids) out.push_back(view(*o));
  return out;
}

void ReferenceMatcher::forget(OrderId id) {
  auto it = orders_.find(id);
  if (it == orders_.end() || it->second.status == OrderStatus::Working)
    throw std::logic_error("only a finished order is forgotten");
  orders_.erase(it);
}

}  // namespace tessera
