#include "core/engine/MatchingEngine.h"

#include "core/engine/EventJson.h"
#include "core/engine/MarketLimits.h"
#include "core/engine/SnapshotCodec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace tessera {
namespace {

constexpr std::size_t side(Side s) { return static_cast<std::size_t>(s); }

// Calls f(first, sum) for every window of `d` consecutive hours of `perHour` (a cost per hour,
// or -1 where the hour cannot be had) whose sum is within `budget`, in order of their first
// hour, until f returns false.
template <typename F>
void forEachWindowWithin(const std::vector<Money>& perHour, Hour d, Money budget, F&& f) {
  // The window's cost and how many of its hours cannot be had are kept by adding the hour that
  // enters and taking out the one that leaves, instead of starting the window afresh after each
  // missing hour: that branch followed no pattern, and this runs over every hour of every
  // resting all-or-none bid an arriving ask may complete.
  const auto n = perHour.size();
  const auto w = static_cast<std::size_t>(d);
  if (w == 0 || n < w) return;
  Money window = 0;
  std::size_t missing = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Money in = perHour[i];
    window += std::max<Money>(in, 0);
    missing += in < 0;
    if (i >= w) {
      const Money out = perHour[i - w];
      window -= std::max<Money>(out, 0);
      missing -= out < 0;
    }
    if (i + 1 >= w && missing == 0 && window <= budget && !f(i + 1 - w, window)) return;
  }
}

}  // namespace

std::unique_ptr<Matcher> makeMatchingEngine(std::size_t prefaultBytes) {
  return std::make_unique<MatchingEngine>(prefaultBytes);
}

MatchingEngine::MatchingEngine(std::size_t prefaultBytes)
    : memory_(prefaultBytes), state_(&memory_), orders_(&memory_) {}

void MatchingEngine::apply(const InputEvent& in, std::vector<Event>& out) {
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
  releaseStopped();
}

// ---- order storage ------------------------------------------------------------------------

MatchingEngine::Slot MatchingEngine::store(Order&& o) {
  // Entries of stopped orders stay dead: every stored order has a new sequence, so none of them
  // matches it.
  Slot s = 0;
  if (freeSlots_.empty()) {
    s = static_cast<Slot>(orders_.size());
    if (s >= kFinishedTag) throw std::length_error("more than 2^31 working orders");
    orders_.push_back(std::move(o));
    liveSeq_.push_back(orders_[s].seq);
  } else {
    s = freeSlots_.back();
    freeSlots_.pop_back();
    orders_[s] = std::move(o);
    liveSeq_[s] = orders_[s].seq;
  }
  return s;
}

void MatchingEngine::stop(Slot s, OrderStatus status) {
  if (orders_[s].status != OrderStatus::Working) throw std::logic_error("an order stopped twice");
  orders_[s].status = status;
  liveSeq_[s] = 0;
  stopped_.push_back(s);
}

void MatchingEngine::releaseStopped() {
  for (Slot s : stopped_) {
    Order& o = orders_[s];
    if (o.leaves != 0) throw std::logic_error("an order stopped with GPU-hours left");
    slotOf_.assign(o.req.id, kFinishedTag | finished_.add(o.req, o.status, o.filled));
    // Its entries stay dead: liveSeq_ says 0 until the slot is reused, and then a newer sequence.
    releaseQty(o);
    o.accepted = {};
    o.candidates = {};
    o.req.costFactors = {};
    o.req.constraints.reset();
    freeSlots_.push_back(s);
  }
  stopped_.clear();
}

// ---- book storage -------------------------------------------------------------------------

MatchingEngine::Book& MatchingEngine::book(ClusterId c) {
  auto it = books_.find(c);
  if (it == books_.end()) it = books_.try_emplace(c, state_.now, &memory_).first;
  return it->second;
}

const MatchingEngine::Book* MatchingEngine::findBook(ClusterId c) const {
  auto it = books_.find(c);
  return it == books_.end() ? nullptr : &it->second;
}

GpuCount* MatchingEngine::explicitQty(Order& o) {
  if (!o.qty) {
    Entry& e = o.restsIn->entry(o.level, o.seq);
    // The entry's window ends where the order's does: read there, the end costs no line of
    // the order's a trade does not read anyway.
    const Resting r = o.restsIn->read(e);
    o.qtyBase = std::min(o.liveFrom, r.start);
    const auto n = static_cast<std::size_t>(r.end - o.qtyBase);
    std::fill_n(allocateQty(o, n), n, o.req.gpus);
    e.viewQuantities(o.qty + (r.start - o.qtyBase));
  }
  return o.qty;
}

GpuCount* MatchingEngine::allocateQty(Order& o, std::size_t hours) {
  releaseQty(o);
  o.qty = static_cast<GpuCount*>(memory_.allocate(hours * sizeof(GpuCount), alignof(GpuCount)));
  o.qtyHours = static_cast<std::uint32_t>(hours);
  return o.qty;
}

void MatchingEngine::releaseQty(Order& o) {
  if (o.qty) memory_.deallocate(o.qty, o.qtyHours * sizeof(GpuCount), alignof(GpuCount));
  o.qty = nullptr;
  o.qtyHours = 0;
}

namespace {
// Adds up consecutive hours that change an account's offer by the same amount, so a 168-hour
// listing returns its offer in one inventory call instead of 168.
class OfferReturn {
 public:
  explicit OfferReturn(Inventory::Series* holdings) : holdings_(holdings) {}
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
    if (gpus_ != 0 && end_ > start_) Inventory::offer(*holdings_, start_, end_, -gpus_);
    gpus_ = 0;
  }
  Inventory::Series* holdings_;
  Hour start_ = 0, end_ = 0;
  GpuCount gpus_ = 0;
};
}  // namespace

void MatchingEngine::retireEntries(const Order& o) {
  PriceLevels& levels = *o.restsIn;
  PriceLevels::Level& l = levels.at(o.level);
  Inventory::Series* held = sellHoldings(o);
  // The levels no longer count hours the clock has passed; the inventory still does.
  const Hour counted = std::max(state_.now, levels.base());
  const Hour from = std::max(o.liveFrom, counted);
  if (!o.qty) {
    // Nothing has traded against it: the same GPUs in every live hour, taken off in one sweep.
    if (from < o.req.end) levels.change(l, from, o.req.end, o.req.gpus, 0);
    if (held && o.liveFrom < o.req.end) Inventory::offer(*held, o.liveFrom, o.req.end, -o.req.gpus);
  } else {
    // Its quantities per hour, taken off as they are: an hour it no longer wants counts 0.
    if (from < o.req.end) levels.takeOut(l, from, o.req.end, o.qty + (from - o.qtyBase));
    if (held && o.liveFrom < o.req.end)
      Inventory::withdraw(*held, o.liveFrom, o.req.end, o.qty + (o.liveFrom - o.qtyBase));
  }
  retireEntry(o);
}

// ---- divisible matching -------------------------------------------------------------------

std::size_t MatchingEngine::nextCrossingLevel(const PriceLevels& levels, std::size_t rank, Side side,
                                              std::optional<Price> limit, Hour from, Hour to) {
  // From the ranks alone until a level may hold GPUs in the window.
  for (; rank < levels.levelCount(); ++rank) {
    if (limit && !crosses(side, *limit, keyOf(opposite(side), levels.keyAt(rank)))) return levels.levelCount();
    if (levels.anyInRank(rank, from, to)) break;
  }
  return rank;
}

void MatchingEngine::plan(const Order& o, const PriceLevels& levels, std::optional<Price> limit, Hour from,
                          std::vector<GpuCount>& need, OwnOrders own, Plan& p) const {
  p.takes.clear();
  p.stop.reset();
  p.own.clear();
  const Side mySide = o.req.side;
  const Side other = opposite(mySide);
  const AccountId me = o.req.account;
  std::size_t wanting = 0;
  for (GpuCount q : need) wanting += q > 0;
  // The hours still wanted lie in [from + first, from + last). A walk fills a window from its
  // edges inwards as often as not, and nearly half the hours an entry shared with the whole
  // window were hours already filled; levels and entries that offer only there are skipped too.
  std::size_t first = 0, last = need.size();
  auto trim = [&] {
    while (first < last && need[first] == 0) ++first;
    while (last > first && need[last - 1] == 0) --last;
  };
  trim();
  auto wantedFrom = [&] { return from + static_cast<Hour>(first); };
  auto wantedTo = [&] { return from + static_cast<Hour>(last); };
  auto nextLevel = [&](std::size_t rank) {
    return nextCrossingLevel(levels, rank, mySide, limit, wantedFrom(), wantedTo());
  };
  bool anyGpus = false;
  for (std::size_t rank = nextLevel(0), next = 0; rank < levels.levelCount() && wanting > 0; rank = next) {
    anyGpus = true;
    const PriceLevels::Level& l = levels.level(rank);
    // A level's walk reads only a few entries, so the first ones of the next level are asked for
    // now, while this one is walked, rather than when its walk starts.
    next = nextLevel(rank + 1);
    if (next < levels.levelCount()) {
      const PriceLevels::Level& n = levels.level(next);
      std::size_t cursor = n.head;
      for (int i = 0; i < 4; ++i) prefetchNextIn(levels, n, wantedFrom(), wantedTo(), cursor);
    }
    // The walk reads entries, not orders (the clock is at or before `from`, so the entries'
    // quantities are up to date in every hour it reads).
    forEachLiveIn(levels, l, wantedFrom(), wantedTo(), [&](const Resting& r) {
      const Hour lo = std::max(wantedFrom(), r.start);
      const Hour hi = std::min(wantedTo(), r.end);
      if (lo >= hi) return true;
      if (r.account == me) {
        if (own == OwnOrders::Skip) return true;
        // An hour-by-hour walk meets this order in the first hour where it still offers
        // something and the incoming order still wants something.
        for (Hour h = lo; h < hi; ++h) {
          if (need[static_cast<std::size_t>(h - from)] == 0 || r.wantsAt(h) == 0) continue;
          const WalkPoint at{h, l.key, r.seq};
          if (own == OwnOrders::Collect)
            p.own.emplace_back(at, r.slot);
          else if (!p.stop || at < *p.stop)
            p.stop = at;
          break;
        }
        return true;
      }
      // The run in scalars, not a Take: a Take built field by field on the stack and then
      // copied whole into the vector made each push wait for a store forward that fails.
      Hour runStart = 0, runEnd = 0;
      GpuCount runGpus = 0;
      auto push = [&] { p.takes.push_back(Take{r.slot, runStart, runEnd, runGpus, l.key, r.seq}); };
      // One loop for each way an entry says what it wants, so that an order nothing has traded
      // against (one count for every hour) is not asked per hour which way it is; `want` in a
      // local, which the compiler otherwise reloads from the vector after every store to it.
      GpuCount* const want = need.data();
      auto walkHours = [&](auto restAt) {
        for (Hour h = lo; h < hi; ++h) {
          GpuCount& n = want[h - from];
          const GpuCount rest = n == 0 ? 0 : restAt(h);
          if (rest == 0) continue;
          const GpuCount q = std::min(n, rest);
          n -= q;
          wanting -= n == 0;
          if (runGpus == q && runEnd == h) {
            runEnd = h + 1;
            continue;
          }
          if (runGpus > 0) push();
          runStart = h;
          runEnd = h + 1;
          runGpus = q;
        }
      };
      if (r.qty)
        walkHours([qty = r.qty, start = r.start](Hour h) { return qty[h - start]; });
      else
        walkHours([gpus = r.gpus](Hour) { return gpus; });
      if (runGpus > 0) push();
      trim();
      return wanting > 0;
    });
  }
  // No level that crosses holds GPUs anywhere in the window: the hours' bounds learn it, so the
  // next order like this one is turned away before a plan (matchAndRest).
  if (limit && !anyGpus && wanting > 0) {
    const std::int64_t worst = keyOf(other, *limit);  // the worst key that still crosses
    if (worst < PriceLevels::kNoKey) levels.raiseBounds(wantedFrom(), wantedTo(), static_cast<std::int32_t>(worst + 1));
  }
}

void MatchingEngine::cutAt(Plan& p, const WalkPoint& stop, Hour from, std::vector<GpuCount>& need) {
  // The walk takes every hour before the stop's, and in the stop's hour what ranks before it.
  std::erase_if(p.takes, [&](Take& t) {
    const bool before = WalkPoint{stop.hour, t.key, t.seq} < stop;
    const Hour keepTo = std::min(t.end, before ? stop.hour + 1 : stop.hour);
    for (Hour h = std::max(t.start, keepTo); h < t.end; ++h) need[static_cast<std::size_t>(h - from)] += t.gpus;
    t.end = keepTo;
    return t.end <= t.start;
  });
}

std::int64_t MatchingEngine::applyTakes(PriceLevels& levels, std::vector<Take>& takes) {
  // The plan read entries, not orders: the orders that trade are loaded here, and are cold. The
  // lines this and the trades' flush read of them are asked for all at once, before the sort,
  // so they arrive together instead of one order after another.
  for (std::size_t i = 0; i < takes.size(); ++i) {
    if (i > 0 && takes[i].slot == takes[i - 1].slot) continue;  // a plan lists an order's runs together
    const Order& r = orders_[takes[i].slot];
    __builtin_prefetch(&r.seq);
    __builtin_prefetch(&r.req.limit);
  }
  // An hour-by-hour walk starts each run in its first hour, in priority order there. A plan lists
  // its takes level by level, best first, each level's orders in time order and each order's
  // runs by hour: in (key, seq, start) order. So a stable sort by first hour alone gives the
  // walk's (start, key, seq), and a counting sort over the hours does that in two passes.
  std::vector<Take>& sorted = sortedTakes_;
  sortByStart(takes, sorted);
  std::int64_t taken = 0;
  for (const Take& t : sorted) {
    Order& r = orders_[t.slot];
    PriceLevels::Level& l = levels.at(r.level);
    levels.take(l, t.start, t.end, explicitQty(r) + (t.start - r.qtyBase), t.gpus);
    const std::int64_t q = static_cast<std::int64_t>(t.gpus) * (t.end - t.start);
    taken += q;
    r.filled += q;
    r.leaves -= q;
    state_.recorder.addRun({r.req.id, r.req.account, t.slot}, t.start, t.end, t.gpus, r.req.limit);
    if (r.leaves == 0) {
      stop(t.slot, OrderStatus::Filled);
      const bool atFront = l.fifo[l.head].slot == t.slot;
      retireEntry(r);
      if (atFront && l.live > 0) levels.skipDeadFront(l, [this](const Entry& e) { return isLive(e); });
    }
  }
  return taken;
}

void MatchingEngine::sortByStart(const std::vector<Take>& takes, std::vector<Take>& sorted) {
  sorted.resize(takes.size());
  if (takes.empty()) return;
  const auto [lo, hi] =
      std::minmax_element(takes.begin(), takes.end(), [](const Take& a, const Take& b) { return a.start < b.start; });
  const Hour first = lo->start;
  std::vector<std::uint32_t>& at = takesPerHour_;
  at.assign(static_cast<std::size_t>(hi->start - first) + 1, 0);
  for (const Take& t : takes) ++at[static_cast<std::size_t>(t.start - first)];
  std::uint32_t before = 0;
  for (std::uint32_t& n : at) before += std::exchange(n, before);  // each hour's first place
  for (const Take& t : takes) sorted[at[static_cast<std::size_t>(t.start - first)]++] = t;
}

bool MatchingEngine::wouldTrade(const Order& o, Price limit, Hour from, const std::vector<GpuCount>& need) const {
  const Book* b = findBook(*o.req.cluster);
  if (!b) return false;
  const Side other = opposite(o.req.side);
  const PriceLevels& levels = b->sides[side(other)];
  const Hour to = from + static_cast<Hour>(need.size());
  for (std::size_t rank = nextCrossingLevel(levels, 0, o.req.side, limit, from, to); rank < levels.levelCount();
       rank = nextCrossingLevel(levels, rank + 1, o.req.side, limit, from, to)) {
    const PriceLevels::Level& l = levels.level(rank);
    bool trades = false;
    forEachLiveIn(levels, l, from, to, [&](const Resting& r) {
      for (Hour h = std::max(from, r.start); h < std::min(to, r.end) && !trades; ++h)
        trades = need[static_cast<std::size_t>(h - from)] > 0 && r.wantsAt(h) > 0;
      return !trades;
    });
    if (trades) return true;
  }
  return false;
}

bool MatchingEngine::fillOrKillPossible(const Order& o, Hour from, const std::vector<GpuCount>& need) {
  const Book* b = findBook(*o.req.cluster);
  if (!b) return std::all_of(need.begin(), need.end(), [](GpuCount q) { return q == 0; });
  std::vector<GpuCount> left = need;
  plan(o, b->sides[side(opposite(o.req.side))], o.req.limit, from, left, OwnOrders::Skip, scratchPlan_);
  return std::all_of(left.begin(), left.end(), [](GpuCount q) { return q == 0; });
}

void MatchingEngine::matchAndRest(Slot s, Hour from, std::vector<GpuCount>& need, bool wantsEveryHour,
                                  std::vector<Event>& out) {
  Order& o = orders_[s];
  const Side mySide = o.req.side;
  const AccountId me = o.req.account;
  Book& b = book(*o.req.cluster);
  PriceLevels& theirs = b.sides[side(opposite(mySide))];
  state_.recorder.begin(*o.req.cluster, {o.req.id, me, s}, mySide, o.req.id);

  // FOK has been checked against other accounts' orders alone, and takes only those.
  const OwnOrders own = o.req.tif == TimeInForce::FOK                      ? OwnOrders::Skip
                        : o.req.stp == SelfTradePrevention::CancelIncoming ? OwnOrders::StopAtFirst
                                                                           : OwnOrders::Collect;
  // Most orders cross nothing: the other side's best level, and then the hours' bounds on its
  // best prices, say so without a plan (a plan would ask every crossing level for the window).
  const Hour to = o.req.end;
  const bool mayCross = theirs.levelCount() > 0 &&
                        crosses(mySide, o.req.limit, keyOf(opposite(mySide), theirs.level(0).key)) &&
                        theirs.mayHoldAtOrBetter(entryKey(opposite(mySide), o.req.limit), from, to);
  Plan& p = scratchPlan_;
  bool cancelIncoming = false;
  bool took = false;
  std::vector<Event> selfTradeCancels;
  if (mayCross) {
    if (wantsEveryHour) need.assign(static_cast<std::size_t>(to - from), o.req.gpus);
    plan(o, theirs, o.req.limit, from, need, own, p);
    cancelIncoming = p.stop.has_value();
    if (cancelIncoming) cutAt(p, *p.stop, from, need);
    if (!p.own.empty()) {
      // Cancelled in the order the walk meets them; they were never going to trade with o.
      std::sort(p.own.begin(), p.own.end());
      for (const auto& [at, rs] : p.own) removeRemaining(rs, CancelReason::SelfTrade, selfTradeCancels);
    }
    took = !p.takes.empty();
    if (took) {
      const std::int64_t taken = applyTakes(theirs, p.takes);
      o.filled += taken;
      o.leaves -= taken;
    }
  }

  if (o.leaves == 0) {
    stop(s, OrderStatus::Filled);
  } else if (!cancelIncoming) {
    // Every take lowers some hour below the order's GPUs, so an order that wanted them in every
    // hour and took nothing still does (what a self-trade cut gave back is what it had taken).
    const bool uniform = wantsEveryHour && !took;
    if (uniform) {
      releaseQty(o);
    } else {
      std::copy(need.begin(), need.end(), allocateQty(o, need.size()));
      o.qtyBase = from;
    }
    o.restsIn = &b.sides[side(mySide)];
    const Resting e{o.seq, from, o.req.end, s, me, o.qty, o.req.gpus};
    const std::int32_t key = entryKey(mySide, o.req.limit);
    o.level = uniform ? o.restsIn->add(key, e, from, o.req.end, o.req.gpus) : o.restsIn->add(key, e, from, need);
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
    stop(s, OrderStatus::Cancelled);
  }
}

void MatchingEngine::flushTrades(std::vector<Event>& out) {
  // Orders traded against are resting divisible orders, whose cluster is the pass's.
  auto holdingsOf = [this](OrderRef ref) -> Inventory::Series& {
    Order& o = orders_[ref.slot];
    if (!o.holdings) o.holdings = &state_.inventory.seriesOf(o.req.account, *o.req.cluster);
    return *o.holdings;
  };
  state_.recorder.flush(
      out, state_.inventory, state_.contracts, state_.lastContract,
      [this](OrderRef o) { return orders_[o.slot].leaves; },
      [this](OrderRef o) -> const OfferTerms& { return terms_.at(orders_[o.slot].terms); }, holdingsOf);
}

// ---- all-or-none ----------------------------------------------------------------------------

MatchingEngine::Fit MatchingEngine::mayFit(const Book& b, GpuCount gpus, Hour d, Money budget, Hour from, Hour to,
                                           std::vector<Money>& bound) {
  // Per hour, a lower bound on the cost of `gpus` GPUs: the best price resting in that hour
  // times `gpus`, or -1 if the hour does not even hold that many (reading no order). A window
  // whose bounds already exceed the budget cannot be feasible. Nearly every resting all-or-none
  // bid waits below the asks, so this is asked for each of them whenever an ask rests nearby,
  // and it must be cheap: first with the hours' cached bounds alone, then, if those leave room,
  // with each hour's best found in the levels (and cached for the next question).
  const PriceLevels& asks = b.sides[side(Side::Sell)];
  // Every hour costs at least the best ask there is.
  if (asks.levelCount() == 0 || static_cast<Money>(asks.level(0).key) * gpus * d > budget) return Fit::Not;
  auto fitsSomewhere = [&] {
    bool fits = false;
    forEachWindowWithin(bound, d, budget, [&](std::size_t, Money) {
      fits = true;
      return false;  // one is enough
    });
    return fits;
  };
  asks.lowerBoundCosts(from, to, gpus, bound.data());
  if (!fitsSomewhere()) return Fit::NotByHours;
  // Each hour's exact best: no level better than the hour's bound holds GPUs there, so the search
  // starts at the bound's level, which usually still holds some and ends it at once. Neighbouring
  // hours mostly share a bound, so its rank is looked up once per run of them.
  std::int32_t lastKey = PriceLevels::kNoKey;
  std::size_t lastRank = 0;
  for (Hour h = from; h < to; ++h) {
    Money& hourBound = bound[static_cast<std::size_t>(h - from)];
    if (hourBound < 0) continue;
    const std::int32_t key = asks.bestBound(h);
    if (key != lastKey) {
      lastKey = key;
      lastRank = asks.rankOf(key);
    }
    std::int32_t best = PriceLevels::kNoKey;
    for (std::size_t rank = lastRank; rank < asks.levelCount(); ++rank) {
      const PriceLevels::Level& l = asks.level(rank);
      if (l.holdsAt(h, asks.base())) {
        best = l.key;
        break;
      }
    }
    // GPUs in total but none at any level cannot be; kNoKey says no ask rests in the hour.
    hourBound = best == PriceLevels::kNoKey ? -1 : static_cast<Money>(best) * gpus;
    asks.tighten(h, best);
  }
  return fitsSomewhere() ? Fit::May : Fit::NotByHours;
}

std::pair<Hour, Hour> MatchingEngine::placementHours(Hour start, Hour end, Hour d, const NewAsks* onlyNear) const {
  Hour from = std::max(start, state_.now);
  Hour to = end;
  if (onlyNear) {
    // Only placements that use some of the new asks' hours.
    from = std::max(from, onlyNear->start - d + 1);
    to = std::min(to, onlyNear->end + d - 1);
  }
  return {from, to};
}

std::optional<MatchingEngine::Placement> MatchingEngine::bestPlacement(const Order& o, GpuCount gpus, Price limit,
                                                                       const std::vector<ClusterId>& candidates,
                                                                       const NewAsks* onlyNear) const {
  std::optional<Placement> best;
  const Hour d = o.req.hours();
  const Money budget = limit * gpus * d;
  // Not a structured binding: a lambda below uses the two, which clang before 16 (the fuzz
  // build's compiler) does not allow for bindings.
  const std::pair<Hour, Hour> span = placementHours(o.req.start, o.req.end, d, onlyNear);
  const Hour from = span.first, to = span.second;
  if (to - from < d) return best;
  const auto hours = static_cast<std::size_t>(to - from);
  std::vector<Money>& cost = scratchCost_;
  std::vector<GpuCount>& want = scratchWant_;
  cost.resize(hours);
  want.resize(hours);
  for (ClusterId cid : candidates) {
    if (onlyNear && cid != onlyNear->cluster) continue;
    const Book* b = findBook(cid);
    if (!b || mayFit(*b, gpus, d, budget, from, to, cost) != Fit::May) continue;
    // Cost of the cheapest `gpus` GPUs of other accounts in each hour, or -1 if too few: the
    // asks taken level by level, as an all-or-none fill takes them.
    const PriceLevels& asks = b->sides[side(Side::Sell)];
    std::size_t wanting = 0;
    for (std::size_t i = 0; i < hours; ++i) {
      const bool enough = asks.total(from + static_cast<Hour>(i)) >= gpus;
      want[i] = enough ? gpus : 0;
      cost[i] = enough ? 0 : -1;
      wanting += enough;
    }
    for (std::size_t rank = 0; rank < asks.levelCount() && wanting > 0; ++rank) {
      if (!asks.anyInRank(rank, from, to)) continue;
      const PriceLevels::Level& l = asks.level(rank);
      forEachLiveIn(asks, l, from, to, [&](const Resting& r) {
        if (r.account == o.req.account) return true;
        for (Hour h = std::max(from, r.start); h < std::min(to, r.end); ++h) {
          const auto i = static_cast<std::size_t>(h - from);
          if (want[i] == 0) continue;
          const GpuCount q = std::min(want[i], r.wantsAt(h));
          cost[i] += l.key * static_cast<Money>(q);
          want[i] -= q;
          wanting -= want[i] == 0;
        }
        return wanting > 0;
      });
    }
    for (std::size_t i = 0; i < hours; ++i)
      if (want[i] > 0) cost[i] = -1;
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
  const Order& o = orders_[s];
  const PriceLevels& asks = book(p.cluster).sides[side(Side::Sell)];
  std::vector<GpuCount> need(static_cast<std::size_t>(o.req.hours()), o.req.gpus);
  plan(o, asks, std::nullopt, p.start, need, OwnOrders::Skip, scratchPlan_);
  applyAllOrNoneFill(s, p.cluster, aggressor, out);
}

std::optional<bool> MatchingEngine::fillFixedAllOrNone(Slot s, std::vector<Event>& out) {
  const Order& o = orders_[s];
  const Hour d = o.req.hours();
  if (o.candidates.size() != 1 || d != o.req.end - o.req.start) return std::nullopt;
  // As bestPlacement for this one placement: its hours from now on, and mayFit's bounds first.
  const ClusterId cid = o.candidates.front();
  const Book* b = findBook(cid);
  const auto [from, to] = placementHours(o.req.start, o.req.end, d, nullptr);
  if (!b || to - from < d) return false;
  const Money budget = o.req.limit * o.req.gpus * d;
  scratchCost_.resize(static_cast<std::size_t>(d));
  if (mayFit(*b, o.req.gpus, d, budget, from, to, scratchCost_) != Fit::May) return false;
  std::vector<GpuCount>& need = scratchNeed_;
  need.assign(static_cast<std::size_t>(d), o.req.gpus);
  plan(o, b->sides[side(Side::Sell)], std::nullopt, from, need, OwnOrders::Skip, scratchPlan_);
  if (std::any_of(need.begin(), need.end(), [](GpuCount q) { return q > 0; })) return false;
  Money cost = 0;
  for (const Take& t : scratchPlan_.takes) cost += static_cast<Money>(t.key) * t.gpus * (t.end - t.start);
  if (cost > budget) return false;
  applyAllOrNoneFill(s, cid, o.req.id, out);
  return true;
}

void MatchingEngine::applyAllOrNoneFill(Slot s, ClusterId cluster, OrderId aggressor, std::vector<Event>& out) {
  Order& o = orders_[s];
  const Hour d = o.req.hours();
  state_.recorder.begin(cluster, {o.req.id, o.req.account, s}, Side::Buy, aggressor);
  applyTakes(book(cluster).sides[side(Side::Sell)], scratchPlan_.takes);
  o.filled = static_cast<std::int64_t>(o.req.gpus) * d;
  o.leaves = 0;
  stop(s, OrderStatus::Filled);
  unlistAllOrNone(s);
  flushTrades(out);
}

void MatchingEngine::restAllOrNone(Slot s) {
  Order& o = orders_[s];
  const ListedBid bid{o.req.limit, o.seq, o.req.start, o.req.end, o.req.hours(), o.req.gpus, s, {}};
  for (ClusterId c : o.candidates) {
    auto& v = book(c).allOrNoneBids;
    v.insert(
        std::upper_bound(v.begin(), v.end(), bid, [](const ListedBid& a, const ListedBid& b) { return a.before(b); }),
        bid);
  }
  o.listed = true;
}

void MatchingEngine::unlistAllOrNone(Slot s) {
  Order& o = orders_[s];
  if (!o.listed) return;
  for (ClusterId c : o.candidates) {
    auto& v = book(c).allOrNoneBids;
    v.erase(std::find_if(v.begin(), v.end(), [s](const ListedBid& b) { return b.slot == s; }));
  }
  o.listed = false;
}

std::vector<MatchingEngine::Slot> MatchingEngine::allOrNoneBidsTouching(ClusterId cluster, Hour start, Hour end) {
  // Listed bids are working: filling, cancelling and expiring one unlists it.
  std::vector<Slot> bids;
  for (const ListedBid& b : book(cluster).allOrNoneBids)
    if (b.touches(start, end)) bids.push_back(b.slot);
  return bids;
}

bool MatchingEngine::sellWouldCompleteAllOrNone(const OrderRequest& sell, std::optional<Slot> resting, Price limit,
                                                Hour from, const std::vector<GpuCount>& need) {
  const Hour to = sell.end;
  const std::vector<Slot> bids = allOrNoneBidsTouching(*sell.cluster, from, to);
  if (bids.empty()) return false;
  // A walk reads only the stand-in's entry and whether it is live (liveSeq_ of its slot), never
  // its order. An amended order lends its own slot: under the next sequence its resting entry,
  // which the re-entry replaces, is dead meanwhile. A new order has no slot yet and borrows one
  // past the end.
  const std::uint64_t seq = lastSeq_ + 1;
  const Slot probe = resting ? *resting : static_cast<Slot>(orders_.size());
  if (!resting) {
    orders_.emplace_back();
    liveSeq_.push_back(0);
  }
  const std::uint64_t liveBefore = std::exchange(liveSeq_[probe], seq);
  PriceLevels& asks = book(*sell.cluster).sides[side(Side::Sell)];
  const std::int32_t key = entryKey(Side::Sell, limit);
  const NewAsks added{*sell.cluster, from, to};
  asks.add(key, Resting{seq, from, to, probe, sell.account, need.data(), 0}, from, need);
  bool completes = false;
  for (Slot s : bids) {
    const Order& bid = orders_[s];
    if ((completes = bestPlacement(bid, bid.req.gpus, bid.req.limit, bid.candidates, &added).has_value())) break;
  }
  asks.removeNewest(key, from, need);
  liveSeq_[probe] = liveBefore;
  if (!resting) {
    orders_.pop_back();
    liveSeq_.pop_back();
  }
  return completes;
}

MatchingEngine::ListedBid::Shortfall MatchingEngine::shortfallOf(const std::vector<Money>& bound, Hour from,
                                                                 Money budget) {
  ListedBid::Shortfall f;  // no hour known short until one is found
  f.known = true;
  Money sum = 0;
  for (std::size_t i = 0; i < bound.size(); ++i) {
    const Money c = bound[i];
    if (c < 0) {
      const Hour h = from + static_cast<Hour>(i);
      if (f.missingFirst > f.missingLast) f.missingFirst = h;
      f.missingLast = h;
      continue;
    }
    sum += c;
    f.dearestHour = std::max(f.dearestHour, c);
  }
  f.excess = sum - budget;
  return f;
}

bool MatchingEngine::stillShort(ListedBid& bid, const OrderRequest& ask) {
  ListedBid::Shortfall& f = bid.shortfall;
  if (!f.known) return false;
  // The ask lowers the cost of each hour it shares with the bid to no less than its own price
  // for the bid's GPUs, and no other hour: the hours' lower bounds drop by at most this.
  const Hour shared = std::min(bid.end, ask.end) - std::max(bid.start, ask.start);
  const Money drop = shared * std::max<Money>(0, f.dearestHour - ask.limit * bid.gpus);
  // An hour that held too few GPUs stays short unless the ask rests there.
  auto covered = [&](Hour h) { return h >= ask.start && h < ask.end; };
  const bool missing = f.missingFirst <= f.missingLast;
  const bool missingElsewhere = missing && (!covered(f.missingFirst) || !covered(f.missingLast));
  if (!missingElsewhere && drop >= f.excess) return false;
  f.excess -= drop;
  // The hours known to be short are no longer known to be where the ask rests (a later ask may
  // fill the rest): only one it did not cover is kept.
  if (missing) {
    if (covered(f.missingFirst))
      f.missingFirst = f.missingLast;
    else if (covered(f.missingLast))
      f.missingLast = f.missingFirst;
    if (covered(f.missingFirst)) f.missingLast = f.missingFirst - 1;
  }
  return true;
}

void MatchingEngine::recheckAllOrNone(Slot askSlot, std::vector<Event>& out) {
  const OrderRequest& ask = orders_[askSlot].req;
  const OrderId askId = ask.id;
  const NewAsks added{*ask.cluster, ask.start, ask.end};
  // Nearly every bid re-checked here still cannot fill. The listing carries what mayFit needs to
  // say so, as bestPlacement would ask it for this cluster, so those bids' orders are not read.
  // Fills only take asks away, so a bid turned down here could not have filled after the fills
  // of the bids before it either.
  Book& b = book(*ask.cluster);
  std::vector<Slot> hopeful;
  for (ListedBid& bid : b.allOrNoneBids) {
    if (!bid.touches(ask.start, ask.end)) continue;
    if (stillShort(bid, ask)) continue;
    const Hour d = bid.hours;
    const auto [from, to] = placementHours(bid.start, bid.end, d, &added);
    if (to - from < d) continue;
    scratchCost_.resize(static_cast<std::size_t>(to - from));
    const Money budget = bid.limit * bid.gpus * d;
    const Fit fit = mayFit(b, bid.gpus, d, budget, from, to, scratchCost_);
    if (fit == Fit::May) hopeful.push_back(bid.slot);
    // A bid that must use every hour of its window (as most do) remembers why it fell short.
    bid.shortfall = {};
    if (fit == Fit::NotByHours && d == bid.end - bid.start && from == bid.start)
      bid.shortfall = shortfallOf(scratchCost_, from, budget);
  }
  for (Slot s : hopeful) {
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
  stop(s, OrderStatus::Cancelled);
  if (!o.aon()) retireEntries(o);
  out.emplace_back(OrderCancelled{o.req.id, o.req.account, reason, cancelled, 0});
}

// ---- inputs ---------------------------------------------------------------------------------

void MatchingEngine::submit(const OrderRequest& req, std::vector<Event>& out) {
  // A divisible order that does not fill rests: what resting writes is cold, and validating and
  // storing the order and (for a crossing one) planning come first, so it is asked for now, with
  // the other side's bounds that say whether it may cross. Before validation, so that a sell's
  // holdings and these arrive together; a request that turns out invalid only asked for lines.
  if (req.fill != FillStyle::AllOrNone && req.cluster)
    if (const Book* b = findBook(*req.cluster)) {
      b->sides[side(opposite(req.side))].prefetchBounds(req.start, req.end);
      b->sides[side(req.side)].prefetchAdd(entryKey(req.side, req.limit), req.start, req.end);
    }
  std::vector<ClusterId> candidates;
  if (auto r = validateNewOrder(req, slotOf_.contains(req.id), state_.view(), candidates)) {
    out.emplace_back(std::move(*r));
    return;
  }
  Order o;
  o.req = req;
  if (req.side == Side::Sell) o.terms = terms_.intern(req.terms);
  // Only an all-or-none order searches its candidates again; a divisible one trades on its one
  // cluster and keeps what amend validation reads (a copy here would be a heap allocation per add).
  if (o.aon()) o.candidates = candidates;
  o.accepted = std::move(candidates);
  o.liveFrom = req.start;
  const bool aon = o.aon();
  // What it wants per hour: matchAndRest fills it only if the order may cross, which most adds
  // do not; the checks before need it now.
  std::vector<GpuCount>& need = scratchNeed_;
  if (!aon && (req.postOnly || req.tif == TimeInForce::FOK))
    need.assign(static_cast<std::size_t>(req.end - req.start), req.gpus);
  if (req.postOnly) {
    const bool trades =
        aon ? bestPlacement(o, req.gpus, req.limit, o.candidates).has_value()
            : wouldTrade(o, req.limit, req.start, need) ||
                  (req.side == Side::Sell && sellWouldCompleteAllOrNone(req, std::nullopt, req.limit, req.start, need));
    if (trades) {
      out.emplace_back(OrderRejected{req.id, req.account, RejectReason::PostOnlyWouldTrade,
                                     "a post-only order must not trade on arrival"});
      return;
    }
  }
  o.seq = ++lastSeq_;
  o.arrival = o.seq;
  o.leaves = static_cast<std::int64_t>(req.gpus) * (aon ? req.hours() : req.end - req.start);
  const Slot s = store(std::move(o));
  slotOf_.insert(req.id, s);
  out.emplace_back(OrderAccepted{req.id, req.account});
  if (req.side == Side::Sell) {
    // Its holdings stay with it, for the trades against it and for taking its offer back.
    Inventory::Series& held = state_.inventory.seriesOf(req.account, *req.cluster);
    Inventory::offer(held, req.start, req.end, req.gpus);
    orders_[s].holdings = &held;
  }

  if (aon) {
    std::optional<bool> filled = fillFixedAllOrNone(s, out);
    if (!filled) {
      const Order& order = orders_[s];
      const auto p = bestPlacement(order, req.gpus, req.limit, order.candidates);
      if (p) fillAllOrNone(s, *p, req.id, out);
      filled = p.has_value();
    }
    if (*filled) return;
    if (req.tif == TimeInForce::IOC)
      removeRemaining(s, CancelReason::ImmediateOrCancel, out);
    else if (req.tif == TimeInForce::FOK)
      removeRemaining(s, CancelReason::FillOrKill, out);
    else
      restAllOrNone(s);
    return;
  }
  if (req.tif == TimeInForce::FOK && !fillOrKillPossible(orders_[s], req.start, need)) {
    Order& order = orders_[s];
    if (req.side == Side::Sell) state_.inventory.offer(req.account, *req.cluster, req.start, req.end, -req.gpus);
    out.emplace_back(OrderCancelled{req.id, req.account, CancelReason::FillOrKill, order.leaves, 0});
    order.leaves = 0;
    stop(s, OrderStatus::Cancelled);
    return;
  }
  matchAndRest(s, req.start, need, true, out);
  if (orders_[s].status == OrderStatus::Working && req.side == Side::Sell) recheckAllOrNone(s, out);
  if (orders_[s].status == OrderStatus::Working && req.tif == TimeInForce::IOC)
    removeRemaining(s, CancelReason::ImmediateOrCancel, out);
}

const OrderRequest* MatchingEngine::workingRequest(std::optional<Slot> s) const {
  return s && orders_[*s].status == OrderStatus::Working ? &orders_[*s].req : nullptr;
}

void MatchingEngine::cancel(const CancelRequest& c, std::vector<Event>& out) {
  const auto slot = liveSlot(c.id);
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
  const auto slot = liveSlot(a.id);
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
    if (o.req.postOnly && placement)
      return reject(RejectReason::PostOnlyWouldTrade, "a post-only order must not trade");
    unlistAllOrNone(s);
    o.req.limit = limit;
    o.req.gpus = gpus;
    o.candidates = std::move(candidates);
    o.leaves = static_cast<std::int64_t>(gpus) * o.req.hours();
    if (!keepPriority) setSeq(s, ++lastSeq_);
    out.emplace_back(OrderAmended{o.req.id, o.req.account, limit, gpus, keepPriority});
    if (placement)
      fillAllOrNone(s, *placement, o.req.id, out);
    else
      restAllOrNone(s);
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
  if (nextTotal == 0)
    return reject(RejectReason::InvalidGpuCount, "the order has already filled that many GPUs in every hour");
  if (o.req.side == Side::Sell && delta > 0)
    for (std::size_t i = 0; i < hours; ++i) {
      const Hour h = from + static_cast<Hour>(i);
      const GpuCount extra = next[i] - current[i];
      if (extra > 0 && !state_.inventory.canOffer(o.req.account, *o.req.cluster, h, h + 1, extra))
        return reject(RejectReason::InsufficientHoldings, "the account does not own or hold these GPU-hours");
    }
  if (o.req.postOnly && !keepPriority &&
      (wouldTrade(o, limit, from, next) ||
       (o.req.side == Side::Sell && sellWouldCompleteAllOrNone(o.req, s, limit, from, next))))
    return reject(RejectReason::PostOnlyWouldTrade, "a post-only order must not trade");

  PriceLevels& mine = *o.restsIn;
  PriceLevels::Level& l = mine.at(o.level);
  for (std::size_t i = 0; i < hours; ++i) {
    const Hour h = from + static_cast<Hour>(i);
    if (o.req.side == Side::Sell && next[i] != current[i])
      state_.inventory.offer(o.req.account, *o.req.cluster, h, h + 1, next[i] - current[i]);
    if (keepPriority)
      mine.change(l, h, current[i], next[i]);
    else if (current[i] != 0)
      mine.change(l, h, current[i], 0);
  }
  // Losing priority, the order re-enters with a new sequence (and maybe at a new level): its
  // entry here is dead.
  if (!keepPriority) {
    setSeq(s, ++lastSeq_);
    retireEntry(o);
  }
  // An order that still wants the same in every hour stays implicit: its new `gpus` says it (and
  // its entry's).
  if (keepPriority && o.qty)
    for (std::size_t i = 0; i < hours; ++i) o.qty[static_cast<std::size_t>(from - o.qtyBase) + i] = next[i];
  else if (keepPriority)
    o.restsIn->entry(o.level, o.seq).wantEveryHour(gpus);
  o.req.limit = limit;
  o.req.gpus = gpus;
  o.leaves = nextTotal;
  out.emplace_back(OrderAmended{o.req.id, o.req.account, limit, gpus, keepPriority});
  if (keepPriority) return;
  matchAndRest(s, from, next, std::all_of(next.begin(), next.end(), [gpus](GpuCount q) { return q == gpus; }), out);
  if (orders_[s].status == OrderStatus::Working && orders_[s].req.side == Side::Sell) recheckAllOrNone(s, out);
}

void MatchingEngine::advance(const ClockAdvance& c, std::vector<Event>& out) {
  if (c.now <= state_.now) {
    out.emplace_back(OrderRejected{0, 0, RejectReason::InvalidWindow, "the exchange clock only moves forward"});
    return;
  }
  state_.now = c.now;
  out.emplace_back(ClockAdvanced{c.now});
  // In arrival order, as the rules report expiry; slots are reused, so that is not slot order.
  std::vector<std::pair<std::uint64_t, Slot>> working;
  for (Slot s = 0; s < orders_.size(); ++s)
    if (orders_[s].status == OrderStatus::Working) working.emplace_back(orders_[s].arrival, s);
  std::sort(working.begin(), working.end());
  for (const auto& [arrival, s] : working) {
    Order& o = orders_[s];
    const bool gtdExpired = o.req.tif == TimeInForce::GTD && *o.req.expireAt <= c.now;
    if (gtdExpired || (o.aon() && o.req.end - o.req.hours() < c.now)) {
      removeRemaining(s, CancelReason::Expired, out);
      continue;
    }
    if (o.aon() || o.liveFrom >= c.now) continue;
    // Nothing reads the hours the clock has passed, so only the order and the inventory change.
    std::int64_t removed = 0;
    const Hour until = std::min(c.now, o.req.end);
    {
      OfferReturn offers(sellHoldings(o));
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
    if (o.leaves == 0) {
      stop(s, OrderStatus::Cancelled);
      retireEntry(o);
    }
    out.emplace_back(OrderCancelled{o.req.id, o.req.account, CancelReason::Expired, removed, o.leaves});
  }
  for (auto& [id, b] : books_)
    for (PriceLevels& levels : b.sides) levels.dropHoursBefore(state_.now);
}

// ---- queries --------------------------------------------------------------------------------

std::optional<OrderView> MatchingEngine::order(OrderId id) const {
  const auto v = slotOf_.find(id);
  if (!v) return std::nullopt;
  if (*v & kFinishedTag) return finished_.at(*v & ~kFinishedTag, id);
  return view(orders_[*v]);
}

void MatchingEngine::forget(OrderId id) {
  const auto v = slotOf_.find(id);
  if (!v || !(*v & kFinishedTag)) throw std::logic_error("only a finished order is forgotten");
  finished_.remove(*v & ~kFinishedTag);
  slotOf_.erase(id);
}

std::vector<OrderView> MatchingEngine::workingOrders(AccountId account) const {
  std::vector<OrderView> out;
  for (Slot s = 0; s < orders_.size(); ++s) {
    const Order& o = orders_[s];
    if (o.status == OrderStatus::Working && o.req.account == account) out.push_back(view(o));
  }
  std::sort(out.begin(), out.end(), [](const OrderView& a, const OrderView& b) { return a.request.id < b.request.id; });
  return out;
}

std::vector<BookLevel> MatchingEngine::depth(ClusterId cluster, Hour hour, Side s, std::size_t maxLevels) const {
  std::vector<BookLevel> out;
  const Book* b = findBook(cluster);
  if (!b || hour < state_.now) return out;
  const PriceLevels& levels = b->sides[side(s)];
  for (std::size_t rank = 0; rank < levels.levelCount() && out.size() < maxLevels; ++rank) {
    const PriceLevels::Level& l = levels.level(rank);
    if (!l.holdsAt(hour, levels.base())) continue;
    BookLevel level{keyOf(s, l.key), 0, 0, {}};
    forEachLiveIn(levels, l, hour, hour + 1, [&](const Resting& e) {
      const Order& o = orders_[e.slot];
      const GpuCount q = remainingAt(o, hour);
      if (q == 0) return true;
      if (level.orders == 0) level.terms = o.req.terms;
      level.gpus += q;
      level.orders += 1;
      return true;
    });
    out.push_back(level);
  }
  return out;
}

void MatchingEngine::depthRange(ClusterId cluster, Hour from, Hour to, Side s, std::size_t maxLevels,
                                std::vector<std::vector<BookLevel>>& out) const {
  out.assign(static_cast<std::size_t>(std::max<Hour>(to - from, 0)), {});
  const Book* b = findBook(cluster);
  if (!b || to <= from) return;
  const Hour first = std::max(from, state_.now);  // hours before the clock stay empty, as in depth()
  if (first >= to) return;
  const PriceLevels& levels = b->sides[side(s)];
  // Per hour: whether the level being walked is one of that hour's levels (depth() takes the
  // first maxLevels levels, best first, that hold anything in the hour).
  std::vector<char> taken(static_cast<std::size_t>(to - from), 0);
  std::size_t full = 0;  // hours with maxLevels levels already
  const std::size_t hours = static_cast<std::size_t>(to - first);
  for (std::size_t rank = 0; rank < levels.levelCount() && full < hours; ++rank) {
    const PriceLevels::Level& l = levels.level(rank);
    bool any = false;
    for (Hour h = first; h < to; ++h) {
      const auto i = static_cast<std::size_t>(h - from);
      taken[i] = out[i].size() < maxLevels && l.holdsAt(h, levels.base());
      if (!taken[i]) continue;
      any = true;
      out[i].push_back(BookLevel{keyOf(s, l.key), 0, 0, {}});
      if (out[i].size() == maxLevels) ++full;
    }
    if (!any) continue;
    forEachLiveIn(levels, l, first, to, [&](const Resting& e) {
      const Order& o = orders_[e.slot];
      for (Hour h = std::max(first, e.start); h < std::min(to, e.end); ++h) {
        const auto i = static_cast<std::size_t>(h - from);
        if (!taken[i]) continue;
        const GpuCount q = remainingAt(o, h);
        if (q == 0) continue;
        BookLevel& level = out[i].back();
        if (level.orders == 0) level.terms = o.req.terms;
        level.gpus += q;
        level.orders += 1;
      }
      return true;
    });
  }
}

std::vector<OrderView> MatchingEngine::allOrNoneBids(ClusterId cluster) const {
  std::vector<OrderView> out;
  if (const Book* b = findBook(cluster))
    for (const ListedBid& bid : b->allOrNoneBids) out.push_back(view(orders_[bid.slot]));
  return out;
}

}  // namespace tessera

// ---- snapshots ------------------------------------------------------------------------------

namespace tessera {

namespace {
constexpr std::string_view kEngineSnapshotFormat = "tessera-engine-snapshot-1";

// Most requests in binary; one with constraints or cost factors (rare, and with lists of their
// own) as its JSON form.
template <typename T>
void writeOptional(SnapshotWriter& w, const std::optional<T>& v) {
  w.pod(v.has_value());
  w.pod(v.value_or(T{}));
}
template <typename T>
std::optional<T> readOptional(SnapshotReader& r) {
  const bool has = r.pod<bool>();
  const T v = r.pod<T>();
  return has ? std::optional<T>(v) : std::nullopt;
}

void writeRequest(SnapshotWriter& w, const OrderRequest& o) {
  const bool binary = !o.constraints && o.costFactors.empty() && !o.interruptible && !o.checkpointHours;
  w.pod(binary);
  if (!binary) {
    w.pod(o.account);
    w.str(toJson(o).dump());
    return;
  }
  w.pod(o.id);
  w.pod(o.account);
  w.pod(o.side);
  w.pod(o.fill);
  w.pod(o.tif);
  w.pod(o.postOnly);
  w.pod(o.stp);
  writeOptional(w, o.cluster);
  w.pod(o.gpus);
  w.pod(o.limit);
  w.pod(o.start);
  w.pod(o.end);
  writeOptional(w, o.duration);
  writeOptional(w, o.expireAt);
  writeOptional(w, o.sellBack);
  w.terms(o.terms);
}

OrderRequest readRequest(SnapshotReader& r) {
  if (r.pod<bool>()) {
    OrderRequest o;
    o.id = r.pod<OrderId>();
    o.account = r.pod<AccountId>();
    o.side = r.pod<Side>();
    o.fill = r.pod<FillStyle>();
    o.tif = r.pod<TimeInForce>();
    o.postOnly = r.pod<bool>();
    o.stp = r.pod<SelfTradePrevention>();
    o.cluster = readOptional<ClusterId>(r);
    o.gpus = r.pod<GpuCount>();
    o.limit = r.pod<Price>();
    o.start = r.pod<Hour>();
    o.end = r.pod<Hour>();
    o.duration = readOptional<Hour>(r);
    o.expireAt = readOptional<Hour>(r);
    o.sellBack = readOptional<ContractId>(r);
    o.terms = r.terms();
    return o;
  }
  const auto account = r.pod<AccountId>();
  const auto j = nlohmann::json::parse(r.str(), nullptr, false);
  if (j.is_discarded()) throw SnapshotCorrupt("snapshot: an order is not JSON");
  auto parsed = orderFromJson(j, account);
  if (auto* e = std::get_if<JsonError>(&parsed)) throw SnapshotCorrupt("snapshot: an order: " + e->message);
  return std::get<OrderRequest>(std::move(parsed));
}
}  // namespace

void MatchingEngine::saveSnapshot(std::string& out) const {
  if (!stopped_.empty()) throw std::logic_error("a snapshot is taken between inputs");
  SnapshotWriter w(out);
  w.str(kEngineSnapshotFormat);
  w.pod(state_.now);
  w.pod(state_.lastContract);
  w.pod(lastSeq_);
  const std::vector<Cluster> clusters = state_.clusters.all();
  w.pod<std::uint64_t>(clusters.size());
  for (const Cluster& c : clusters) w.str(toJson(c).dump());
  state_.inventory.save(w);
  // The kept contracts, ascending by id (forgotten ones leave gaps).
  const std::vector<Contract> contracts = state_.contracts.all();
  w.pod<std::uint64_t>(contracts.size());
  for (const Contract& k : contracts) w.contract(k);

  // Finished orders in the order they finished, so that they keep their places.
  std::vector<std::pair<Slot, OrderId>> finished;
  std::vector<std::pair<std::uint64_t, Slot>> working;
  slotOf_.forEach([&](OrderId id, Slot s) {
    if (s & kFinishedTag)
      finished.emplace_back(s & ~kFinishedTag, id);
    else
      working.emplace_back(orders_[s].seq, s);
  });
  std::sort(finished.begin(), finished.end());
  if (finished.size() != finished_.size()) throw std::logic_error("finished orders without an id");
  w.pod<std::uint64_t>(finished.size());
  for (const auto& [index, id] : finished) {
    const OrderView v = finished_.at(index, id);
    writeRequest(w, v.request);
    w.pod(v.status);
    w.pod(v.filledGpuHours);
  }
  // Working orders in sequence order: re-rested in that order, each level's entries are in
  // time order again.
  std::sort(working.begin(), working.end());
  w.pod<std::uint64_t>(working.size());
  for (const auto& [seq, s] : working) {
    const Order& o = orders_[s];
    writeRequest(w, o.req);
    w.pod(o.seq);
    w.pod(o.arrival);
    w.pod(o.liveFrom);
    w.pod(o.filled);
    w.pod(o.leaves);
    w.pod(o.listed);
    w.pod(o.restsIn != nullptr);
    // Per-hour quantities from the first live hour only: what came before is never read again,
    // and how far back an engine's array reaches depends on its history, not on its state.
    if (o.qty && o.liveFrom >= o.qtyBase && o.req.end - o.qtyBase <= static_cast<Hour>(o.qtyHours)) {
      w.pod(o.liveFrom);
      w.pods(o.qty + (o.liveFrom - o.qtyBase), static_cast<std::size_t>(o.req.end - o.liveFrom));
    } else {
      w.pod(o.qtyBase);
      w.pods(o.qty, o.qty ? o.qtyHours : 0);
    }
    w.podVector(o.accepted);
    w.podVector(o.candidates);
  }
}

void MatchingEngine::loadSnapshot(std::string_view in) {
  if (orders_.size() != 0 || lastSeq_ != 0 || state_.now != 0 || !books_.empty())
    throw std::logic_error("a snapshot is loaded into a fresh engine");
  SnapshotReader r(in);
  if (r.str() != kEngineSnapshotFormat) throw SnapshotCorrupt("snapshot: not an engine snapshot of this version");
  state_.now = r.pod<Hour>();
  state_.lastContract = r.pod<ContractId>();
  lastSeq_ = r.pod<std::uint64_t>();
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto j = nlohmann::json::parse(r.str(), nullptr, false);
    if (j.is_discarded()) throw SnapshotCorrupt("snapshot: a cluster is not JSON");
    auto c = clusterFromJson(j);
    if (auto* e = std::get_if<JsonError>(&c)) throw SnapshotCorrupt("snapshot: a cluster: " + e->message);
    state_.clusters.add(std::get<Cluster>(c));
  }
  state_.inventory.load(r);
  for (std::size_t n = r.count(8); n > 0; --n) state_.contracts.restore(r.contract());
  state_.contracts.restoredThrough(state_.lastContract);

  std::vector<std::pair<OrderId, Slot>> ids;
  for (std::size_t n = r.count(8); n > 0; --n) {
    const OrderRequest req = readRequest(r);
    const auto status = r.pod<OrderStatus>();
    const auto filled = r.pod<std::int64_t>();
    ids.emplace_back(req.id, kFinishedTag | finished_.add(req, status, filled));
  }
  std::vector<GpuCount> need;
  for (std::size_t n = r.count(8); n > 0; --n) {
    Order o;
    o.req = readRequest(r);
    o.seq = r.pod<std::uint64_t>();
    o.arrival = r.pod<std::uint64_t>();
    o.liveFrom = r.pod<Hour>();
    o.filled = r.pod<std::int64_t>();
    o.leaves = r.pod<std::int64_t>();
    const bool listed = r.pod<bool>();
    const bool resting = r.pod<bool>();
    const Hour qtyBase = r.pod<Hour>();
    std::vector<GpuCount> qty;
    r.podVector(qty);
    r.podVector(o.accepted);
    r.podVector(o.candidates);
    if (!o.req.cluster && !o.aon()) throw SnapshotCorrupt("snapshot: a divisible order without a cluster");
    if (o.req.side == Side::Sell) o.terms = terms_.intern(o.req.terms);
    const Slot s = store(std::move(o));
    Order& stored = orders_[s];
    ids.emplace_back(stored.req.id, s);
    if (!qty.empty()) {
      std::copy(qty.begin(), qty.end(), allocateQty(stored, qty.size()));
      stored.qtyBase = qtyBase;
    }
    if (stored.req.side == Side::Sell && stored.req.cluster)
      stored.holdings = &state_.inventory.seriesOf(stored.req.account, *stored.req.cluster);
    if (listed) restAllOrNone(s);
    if (resting) {
      const Hour from = stored.liveFrom;
      const Hour end = stored.req.end;
      if (from < state_.now || from >= end ||
          (stored.qty && (from < stored.qtyBase || end - stored.qtyBase > stored.qtyHours)))
        throw SnapshotCorrupt("snapshot: a resting order's hours do not fit");
      stored.restsIn = &book(*stored.req.cluster).sides[side(stored.req.side)];
      const std::int32_t key = entryKey(stored.req.side, stored.req.limit);
      if (stored.qty) {
        const GpuCount* q = stored.qty + (from - stored.qtyBase);
        need.assign(q, q + (end - from));
        const Resting e{stored.seq, from, end, s, stored.req.account, q, stored.req.gpus};
        stored.level = stored.restsIn->add(key, e, from, need);
      } else {
        const Resting e{stored.seq, from, end, s, stored.req.account, nullptr, stored.req.gpus};
        stored.level = stored.restsIn->add(key, e, from, end, stored.req.gpus);
      }
    }
  }
  if (!r.done()) throw SnapshotCorrupt("snapshot: bytes after the engine's state");
  std::sort(ids.begin(), ids.end());
  for (const auto& [id, s] : ids) {
    if (slotOf_.contains(id)) throw SnapshotCorrupt("snapshot: order " + std::to_string(id) + " twice");
    slotOf_.insert(id, s);
  }
}

}  // namespace tessera
