#include "core/settlement/ForwardMarket.h"
#include "core/engine/SnapshotCodec.h"
#include "core/settlement/PriceLevelsCodec.h"

#include "core/engine/MarketLimits.h"

#include <algorithm>

namespace tessera {
namespace {

constexpr std::int64_t kMaxOrderGpuHours = 1'000'000'000;
constexpr Hour kMaxWeeksAhead = 53;

}  // namespace

Hour nextWeekStart(Hour now) {
  const Hour into = ((now - kFirstMonday) % kHoursPerWeek + kHoursPerWeek) % kHoursPerWeek;
  return now - into + kHoursPerWeek;
}

std::string_view toString(ForwardRejectReason r) {
  switch (r) {
    case ForwardRejectReason::InvalidOrder: return "invalid_order";
    case ForwardRejectReason::WeekNotTradable: return "week_not_tradable";
    case ForwardRejectReason::InsufficientMargin: return "insufficient_margin";
    case ForwardRejectReason::UnknownOrder: return "unknown_order";
  }
  return "?";
}

ForwardMarket::ForwardMarket(SettlementLedger& ledger, int initialMarginPpm) : positions_(ledger, initialMarginPpm) {}

Money ForwardMarket::marginFor(const ForwardOrder& o, std::int64_t gpuHours) const {
  return positions_.initialMargin(ForwardTerms{o.accelerator, o.weekStart, gpuHours, o.price});
}

Money ForwardMarket::marginHeld(AccountId a) const {
  auto it = held_.find(a);
  return it == held_.end() ? 0 : it->second;
}

void ForwardMarket::submit(const ForwardOrder& o, Hour now, Money spendable, std::vector<ForwardMarketEvent>& out) {
  auto reject = [&](ForwardRejectReason r, std::string detail) {
    out.emplace_back(ForwardRejected{o.id, o.account, r, std::move(detail)});
  };
  if (o.id == 0 || seen_.count(o.id)) return reject(ForwardRejectReason::InvalidOrder, "order id already used");
  if (o.gpuHours <= 0 || o.gpuHours > kMaxOrderGpuHours)
    return reject(ForwardRejectReason::InvalidOrder, "gpu_hours must be between 1 and 1000000000");
  if (o.price <= 0 || o.price > limits::kMaxPrice)
    return reject(ForwardRejectReason::InvalidOrder,
                  "price must be between 1 and 100000000 micro-dollars per GPU-hour");
  if (!isWeekStart(o.weekStart))
    return reject(ForwardRejectReason::WeekNotTradable, "week_start must be a Monday 00:00 UTC hour");
  if (o.weekStart <= now) return reject(ForwardRejectReason::WeekNotTradable, "that week has already begun");
  if (o.weekStart > now + kMaxWeeksAhead * kHoursPerWeek)
    return reject(ForwardRejectReason::WeekNotTradable, "weeks trade at most a year ahead");
  const Money margin = marginFor(o, o.gpuHours);
  const Money free = spendable - marginHeld(o.account);
  if (margin > free)
    return reject(ForwardRejectReason::InsufficientMargin, "initial margin " + std::to_string(margin) +
                                                               " micro-dollars, " +
                                                               std::to_string(std::max<Money>(free, 0)) + " available");
  seen_.insert(o.id);
  now_ = std::max(now_, now);
  Resting in{o, 0};
  setLeaves(in, o.gpuHours);
  out.emplace_back(ForwardAccepted{o.id, o.account, margin});
  Book& book = books_[Key{o.accelerator, o.weekStart}];
  if (o.side == Side::Buy)
    matchAgainst(book.asks, in, true, out);
  else
    matchAgainst(book.bids, in, false, out);
  if (in.leaves == 0) return;
  auto& levels = o.side == Side::Buy ? book.bids[o.price] : book.asks[o.price];
  levels.push_back(o.id);
  resting_.emplace(o.id, in);
}

void ForwardMarket::setLeaves(Resting& r, std::int64_t leaves) {
  // Held margin is recomputed from what is left, so rounding never leaves a residue behind.
  held_[r.order.account] += marginFor(r.order, leaves) - marginFor(r.order, r.leaves);
  r.leaves = leaves;
}

template <typename Levels>
void ForwardMarket::matchAgainst(Levels& levels, Resting& in, bool buy, std::vector<ForwardMarketEvent>& out) {
  while (in.leaves > 0 && !levels.empty()) {
    auto level = levels.begin();
    if (buy ? level->first > in.order.price : level->first < in.order.price) break;
    auto& queue = level->second;
    const std::uint64_t makerId = queue.front();
    Resting& maker = resting_.at(makerId);
    auto dropMaker = [&] {
      queue.pop_front();
      resting_.erase(makerId);
      if (queue.empty()) levels.erase(level);
    };
    const std::int64_t qty = std::min(in.leaves, maker.leaves);
    const Price price = maker.order.price;  // the resting order sets the price
    const AccountId buyer = buy ? in.order.account : maker.order.account;
    const AccountId seller = buy ? maker.order.account : in.order.account;
    if (buyer == seller) {
      // Self-trade prevention: the resting order leaves, the incoming one goes on.
      out.emplace_back(ForwardCancelled{makerId, maker.order.account, maker.leaves, "self trade"});
      setLeaves(maker, 0);
      dropMaker();
      continue;
    }
    // Both margins were checked against spendable cash when the orders came in; now they are
    // posted into the Margin book. Release the holds first: open() needs that cash.
    const std::int64_t inBefore = in.leaves, makerBefore = maker.leaves;
    setLeaves(in, inBefore - qty);
    setLeaves(maker, makerBefore - qty);
    auto opened = positions_.open(buyer, seller, ForwardTerms{in.order.accelerator, in.order.weekStart, qty, price});
    if (auto* err = std::get_if<ForwardError>(&opened)) {
      setLeaves(in, inBefore);
      setLeaves(maker, makerBefore);
      const bool makerShort = buy ? *err == ForwardError::SellerMargin : *err == ForwardError::BuyerMargin;
      if (!makerShort) {
        // The incoming order's own cash has gone since the check: cancel what is left of it.
        out.emplace_back(ForwardCancelled{in.order.id, in.order.account, in.leaves, "margin"});
        setLeaves(in, 0);
        return;
      }
      // The maker can no longer back its order: it leaves the book.
      out.emplace_back(ForwardCancelled{makerId, maker.order.account, maker.leaves, "margin"});
      setLeaves(maker, 0);
      dropMaker();
      continue;
    }
    ForwardTrade t;
    t.position = std::get<std::uint64_t>(opened);
    t.buyOrder = buy ? in.order.id : makerId;
    t.sellOrder = buy ? makerId : in.order.id;
    t.buyer = buyer;
    t.seller = seller;
    t.buyerAggressor = buy;
    t.accelerator = in.order.accelerator;
    t.weekStart = in.order.weekStart;
    t.gpuHours = qty;
    t.price = price;
    t.buyLeaves = buy ? in.leaves : maker.leaves;
    t.sellLeaves = buy ? maker.leaves : in.leaves;
    out.emplace_back(t);
    if (maker.leaves == 0) dropMaker();
  }
}

void ForwardMarket::removeResting(std::uint64_t id) {
  auto it = resting_.find(id);
  if (it == resting_.end()) return;
  const ForwardOrder& o = it->second.order;
  Book& book = books_[Key{o.accelerator, o.weekStart}];
  auto drop = [&](auto& levels) {
    auto level = levels.find(o.price);
    if (level == levels.end()) return;
    auto& q = level->second;
    q.erase(std::remove(q.begin(), q.end(), id), q.end());
    if (q.empty()) levels.erase(level);
  };
  if (o.side == Side::Buy)
    drop(book.bids);
  else
    drop(book.asks);
  setLeaves(it->second, 0);
  resting_.erase(it);
}

void ForwardMarket::cancel(std::uint64_t order, AccountId account, std::vector<ForwardMarketEvent>& out) {
  auto it = resting_.find(order);
  // Another account's order is reported like a missing one.
  if (it == resting_.end() || it->second.order.account != account) {
    out.emplace_back(ForwardRejected{order, account, ForwardRejectReason::UnknownOrder,
                                     "no working forward order of yours with this id"});
    return;
  }
  const std::int64_t leaves = it->second.leaves;
  removeResting(order);
  out.emplace_back(ForwardCancelled{order, account, leaves, "user"});
}

void ForwardMarket::advance(Hour now, const std::map<Accelerator, Price>& nextDay,
                            std::vector<ForwardMarketEvent>& out) {
  if (now <= now_) return;
  const Hour from = now_;
  now_ = now;
  for (const auto& [a, price] : nextDay) lastIndex_[a] = price;

  // Orders of weeks that have begun can no longer trade.
  std::vector<std::uint64_t> expired;
  for (const auto& [id, r] : resting_)
    if (r.order.weekStart <= now) expired.push_back(id);
  std::sort(expired.begin(), expired.end());
  for (std::uint64_t id : expired) {
    const Resting r = resting_.at(id);
    removeResting(id);
    out.emplace_back(ForwardCancelled{id, r.order.account, r.leaves, "week started"});
  }

  auto notices = [&](std::vector<ForwardEvent> events) {
    for (const ForwardEvent& e : events) {
      const auto p = positions_.position(e.position);
      out.emplace_back(ForwardNotice{e.position, p ? p->buyer : 0, p ? p->seller : 0, e.what});
    }
  };
  for (const auto& [a, price] : nextDay) notices(positions_.mark(a, price));

  // Weeks being delivered collect the index of every hour that passed inside them.
  for (const auto& [key, book] : books_) weeks_.try_emplace(key);
  for (auto it = weeks_.begin(); it != weeks_.end();) {
    const Key& key = it->first;
    Week& w = it->second;
    const Hour end = key.weekStart + kHoursPerWeek;
    auto index = lastIndex_.find(key.accelerator);
    if (index != lastIndex_.end()) {
      const Hour lo = std::max(from, key.weekStart), hi = std::min(now, end);
      if (hi > lo) {
        w.indexSum += index->second * (hi - lo);
        w.hours += hi - lo;
      }
    }
    if (now < end) {
      ++it;
      continue;
    }
    std::optional<Price> final;
    if (w.hours > 0)
      final = (w.indexSum + w.hours / 2) / w.hours;
    else if (index != lastIndex_.end())
      final = index->second;
    if (!final) {  // no index has ever been published for this class: nothing to settle against yet
      ++it;
      continue;
    }
    out.emplace_back(ForwardMark{key.accelerator, key.weekStart, *final, true});
    notices(positions_.settle(key.accelerator, key.weekStart, *final));
    books_.erase(key);
    it = weeks_.erase(it);
  }
}

std::vector<ForwardLevel> ForwardMarket::depth(Accelerator a, Hour weekStart, Side side, std::size_t maxLevels) const {
  std::vector<ForwardLevel> out;
  auto it = books_.find(Key{a, weekStart});
  if (it == books_.end()) return out;
  auto collect = [&](const auto& levels) {
    for (const auto& [price, queue] : levels) {
      if (out.size() == maxLevels) break;
      ForwardLevel l{price, 0, static_cast<int>(queue.size())};
      for (std::uint64_t id : queue) l.gpuHours += resting_.at(id).leaves;
      out.push_back(l);
    }
  };
  if (side == Side::Buy)
    collect(it->second.bids);
  else
    collect(it->second.asks);
  return out;
}

std::vector<std::pair<Accelerator, Hour>> ForwardMarket::books() const {
  std::vector<std::pair<Accelerator, Hour>> out;
  for (const auto& [key, book] : books_)
    if (!book.bids.empty() || !book.asks.empty()) out.emplace_back(key.accelerator, key.weekStart);
  return out;
}

std::optional<ForwardOrder> ForwardMarket::working(std::uint64_t id) const {
  auto it = resting_.find(id);
  if (it == resting_.end()) return std::nullopt;
  ForwardOrder o = it->second.order;
  o.gpuHours = it->second.leaves;
  return o;
}

std::vector<ForwardOrder> ForwardMarket::workingOrders(AccountId a) const {
  std::vector<ForwardOrder> out;
  for (const auto& [id, r] : resting_)
    if (r.order.account == a) {
      ForwardOrder o = r.order;
      o.gpuHours = r.leaves;
      out.push_back(o);
    }
  std::sort(out.begin(), out.end(), [](const ForwardOrder& x, const ForwardOrder& y) { return x.id < y.id; });
  return out;
}

std::vector<ForwardPosition> ForwardMarket::positionsOf(AccountId a) const {
  std::vector<ForwardPosition> out;
  for (std::uint64_t id = 1;; ++id) {
    auto p = positions_.position(id);
    if (!p) break;
    if (p->buyer == a || p->seller == a) out.push_back(*p);
  }
  return out;
}

namespace {
// Unordered containers in key order, so that equal markets give equal bytes.
template <typename Map>
std::vector<typename Map::key_type> sortedKeys(const Map& m) {
  std::vector<typename Map::key_type> keys;
  keys.reserve(m.size());
  for (const auto& kv : m) {
    if constexpr (requires { kv.first; })
      keys.push_back(kv.first);
    else
      keys.push_back(kv);
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}
}  // namespace

void ForwardMarket::save(SnapshotWriter& w) const {
  positions_.save(w);
  w.pod<std::uint64_t>(books_.size());
  for (const auto& [key, b] : books_) {
    w.pod(key.accelerator);
    w.pod(key.weekStart);
    saveLevels(w, b.bids);
    saveLevels(w, b.asks);
  }
  w.pod<std::uint64_t>(resting_.size());
  for (std::uint64_t id : sortedKeys(resting_)) {
    const Resting& r = resting_.at(id);
    w.pod(r.order);
    w.pod(r.leaves);
  }
  w.pod<std::uint64_t>(held_.size());
  for (AccountId a : sortedKeys(held_)) {
    w.pod(a);
    w.pod(held_.at(a));
  }
  const auto seen = sortedKeys(seen_);
  w.podVector(seen);
  w.pod<std::uint64_t>(lastIndex_.size());
  for (const auto& [a, p] : lastIndex_) {
    w.pod(a);
    w.pod(p);
  }
  w.pod<std::uint64_t>(weeks_.size());
  for (const auto& [key, week] : weeks_) {
    w.pod(key.accelerator);
    w.pod(key.weekStart);
    w.pod(week);
  }
  w.pod(now_);
}

void ForwardMarket::load(SnapshotReader& r) {
  positions_.load(r);
  for (std::size_t n = r.count(8); n > 0; --n) {
    Key key{r.pod<Accelerator>(), 0};
    key.weekStart = r.pod<Hour>();
    Book& b = books_[key];
    loadLevels(r, b.bids);
    loadLevels(r, b.asks);
  }
  for (std::size_t n = r.count(sizeof(ForwardOrder)); n > 0; --n) {
    Resting rest;
    rest.order = r.pod<ForwardOrder>();
    rest.leaves = r.pod<std::int64_t>();
    resting_[rest.order.id] = rest;
  }
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto a = r.pod<AccountId>();
    held_[a] = r.pod<Money>();
  }
  std::vector<std::uint64_t> seen;
  r.podVector(seen);
  seen_.insert(seen.begin(), seen.end());
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto a = r.pod<Accelerator>();
    lastIndex_[a] = r.pod<Price>();
  }
  for (std::size_t n = r.count(8); n > 0; --n) {
    Key key{r.pod<Accelerator>(), 0};
    key.weekStart = r.pod<Hour>();
    weeks_[key] = r.pod<Week>();
  }
  now_ = r.pod<Hour>();
}

}  // namespace tessera
