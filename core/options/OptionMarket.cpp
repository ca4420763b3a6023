#include "core/options/OptionMarket.h"
#include "core/engine/MarketLimits.h"
#include "core/engine/SnapshotCodec.h"
#include "core/settlement/PriceLevelsCodec.h"
#include "core/settlement/ContractSettlement.h"

#include <algorithm>
#include <set>

namespace tessera::indexoptions {
namespace {

constexpr std::int64_t kMaxOrderGpuHours = 1'000'000'000;

}  // namespace

std::string_view toString(OptionRejectReason r) {
  switch (r) {
    case OptionRejectReason::InvalidOrder: return "invalid_order";
    case OptionRejectReason::SeriesNotListed: return "series_not_listed";
    case OptionRejectReason::NoIndex: return "no_index";
    case OptionRejectReason::InsufficientFunds: return "insufficient_funds";
    case OptionRejectReason::UnknownOrder: return "unknown_order";
  }
  return "?";
}

Money OptionMarket::held(AccountId a) const {
  auto it = held_.find(a);
  return it == held_.end() ? 0 : it->second;
}

std::optional<IndexCurve> OptionMarket::curve(Accelerator a) const {
  auto it = index_.find(a);
  if (it == index_.end()) return std::nullopt;
  double vol = kDefaultVolatility;
  if (auto h = history_.find(a); h != history_.end()) {
    std::vector<double> values;
    values.reserve(h->second.size());
    for (Price p : h->second) values.push_back(static_cast<double>(p));
    if (auto v = historicalVolatility(values, 1.0)) vol = *v;
  }
  const ClassIndex& c = it->second;
  IndexCurve curve = indexCurve(c.nextDay, c.nextWeek, c.nextMonth, c.forwardMids, vol);
  if (curve.terms.empty()) return std::nullopt;
  return curve;
}

KnownAverage OptionMarket::known(const OptionSeries& s) const {
  auto it = averages_.find(PeriodKey{s.accelerator, s.period()});
  if (it == averages_.end() || it->second.hours == 0) return {};
  return KnownAverage{it->second.hours, (it->second.indexSum + it->second.hours / 2) / it->second.hours};
}

std::optional<SeriesValue> OptionMarket::reference(const OptionSeries& s) const {
  const auto c = curve(s.accelerator);
  if (!c) return std::nullopt;
  return referenceValue(s, *c, now_, known(s));
}

std::optional<Price> OptionMarket::marginPerGpuHour(const OptionSeries& s) const {
  const auto c = curve(s.accelerator);
  if (!c) return std::nullopt;
  return scenarioMarginPerGpuHour(s, *c, now_, known(s));
}

void OptionMarket::setLeaves(Resting& r, std::int64_t leaves) {
  held_[r.order.account] += r.holdPerGpuHour * (leaves - r.leaves);
  r.leaves = leaves;
}

void OptionMarket::submit(const OptionOrder& o, Hour now, Money spendable, std::vector<OptionMarketEvent>& out) {
  auto reject = [&](OptionRejectReason r, std::string detail) {
    out.emplace_back(OptionRejected{o.id, o.account, r, std::move(detail)});
  };
  if (o.id == 0 || seen_.count(o.id)) return reject(OptionRejectReason::InvalidOrder, "order id already used");
  if (o.gpuHours <= 0 || o.gpuHours > kMaxOrderGpuHours)
    return reject(OptionRejectReason::InvalidOrder, "gpu_hours must be between 1 and 1000000000");
  if (o.premium <= 0 || o.premium > limits::kMaxPrice)
    return reject(OptionRejectReason::InvalidOrder, "premium must be between $0.000001 and $100.00 per GPU-hour");
  if (o.series.strike <= 0 || o.series.strike > limits::kMaxPrice || o.series.strike % kStrikeTick != 0)
    return reject(OptionRejectReason::InvalidOrder,
                  "strike must be a whole number of cents up to $100.00 per GPU-hour");
  const auto period = periodStarting(o.series.periodKind, o.series.start);
  if (!period)
    return reject(OptionRejectReason::SeriesNotListed, "start does not begin a delivery month, quarter or year");
  if (!isListed(*period, std::max(now, now_)))
    return reject(OptionRejectReason::SeriesNotListed, "that delivery period is not listed (begun, or too far ahead)");
  now_ = std::max(now_, now);
  Price holdPerGpuHour = o.premium;
  if (o.side == Side::Sell) {
    const auto margin = marginPerGpuHour(o.series);
    if (!margin)
      return reject(OptionRejectReason::NoIndex, "no index of this accelerator class yet to margin a written option");
    holdPerGpuHour = std::max<Price>(0, *margin - o.premium);
  }
  const Money need = holdPerGpuHour * o.gpuHours;
  const Money free = spendable - held(o.account);
  if (need > free)
    return reject(OptionRejectReason::InsufficientFunds, std::string(o.side == Side::Buy ? "premium " : "margin ") +
                                                             toDollars(need) + ", " +
                                                             toDollars(std::max<Money>(free, 0)) + " available");
  seen_.insert(o.id);
  Resting in{o, 0, holdPerGpuHour};
  setLeaves(in, o.gpuHours);
  out.emplace_back(OptionAccepted{o.id, o.account, need});
  Book& book = books_[o.series];
  if (o.side == Side::Buy)
    matchAgainst(book.asks, in, true, out);
  else
    matchAgainst(book.bids, in, false, out);
  if (in.leaves == 0) {
    if (book.bids.empty() && book.asks.empty()) books_.erase(o.series);
    return;
  }
  auto& queue = o.side == Side::Buy ? book.bids[o.premium] : book.asks[o.premium];
  queue.push_back(o.id);
  resting_.emplace(o.id, in);
}

template <typename Levels>
void OptionMarket::matchAgainst(Levels& levels, Resting& in, bool buy, std::vector<OptionMarketEvent>& out) {
  while (in.leaves > 0 && !levels.empty()) {
    auto level = levels.begin();
    if (buy ? level->first > in.order.premium : level->first < in.order.premium) break;
    auto& queue = level->second;
    const std::uint64_t makerId = queue.front();
    Resting& maker = resting_.at(makerId);
    auto dropMaker = [&] {
      queue.pop_front();
      resting_.erase(makerId);
      if (queue.empty()) levels.erase(level);
    };
    const std::int64_t qty = std::min(in.leaves, maker.leaves);
    const Price premium = maker.order.premium;  // the resting order sets the price
    const AccountId buyer = buy ? in.order.account : maker.order.account;
    const AccountId writer = buy ? maker.order.account : in.order.account;
    if (buyer == writer) {
      out.emplace_back(OptionCancelled{makerId, maker.order.account, maker.leaves, "self trade"});
      setLeaves(maker, 0);
      dropMaker();
      continue;
    }
    const std::int64_t inBefore = in.leaves, makerBefore = maker.leaves;
    setLeaves(in, inBefore - qty);
    setLeaves(maker, makerBefore - qty);
    const Price margin = marginPerGpuHour(in.order.series).value_or(0);
    auto opened = positions_.open(buyer, writer, in.order.series, qty, premium, margin);
    if (auto* err = std::get_if<OpenError>(&opened)) {
      setLeaves(in, inBefore);
      setLeaves(maker, makerBefore);
      const bool makerShort = buy ? *err == OpenError::WriterMargin : *err == OpenError::BuyerFunds;
      if (!makerShort) {
        out.emplace_back(OptionCancelled{in.order.id, in.order.account, in.leaves, "funds"});
        setLeaves(in, 0);
        return;
      }
      out.emplace_back(OptionCancelled{makerId, maker.order.account, maker.leaves, "funds"});
      setLeaves(maker, 0);
      dropMaker();
      continue;
    }
    OptionTrade t;
    t.position = std::get<std::uint64_t>(opened);
    t.buyOrder = buy ? in.order.id : makerId;
    t.sellOrder = buy ? makerId : in.order.id;
    t.buyer = buyer;
    t.writer = writer;
    t.buyerAggressor = buy;
    t.series = in.order.series;
    t.gpuHours = qty;
    t.premium = premium;
    t.buyLeaves = buy ? in.leaves : maker.leaves;
    t.sellLeaves = buy ? maker.leaves : in.leaves;
    out.emplace_back(t);
    if (maker.leaves == 0) dropMaker();
  }
}

void OptionMarket::removeResting(std::uint64_t id) {
  auto it = resting_.find(id);
  if (it == resting_.end()) return;
  const OptionOrder& o = it->second.order;
  auto bookIt = books_.find(o.series);
  if (bookIt != books_.end()) {
    auto drop = [&](auto& levels) {
      auto level = levels.find(o.premium);
      if (level == levels.end()) return;
      auto& q = level->second;
      q.erase(std::remove(q.begin(), q.end(), id), q.end());
      if (q.empty()) levels.erase(level);
    };
    if (o.side == Side::Buy)
      drop(bookIt->second.bids);
    else
      drop(bookIt->second.asks);
    if (bookIt->second.bids.empty() && bookIt->second.asks.empty()) books_.erase(bookIt);
  }
  setLeaves(it->second, 0);
  resting_.erase(it);
}

void OptionMarket::cancel(std::uint64_t order, AccountId account, std::vector<OptionMarketEvent>& out) {
  auto it = resting_.find(order);
  if (it == resting_.end() || it->second.order.account != account) {
    out.emplace_back(OptionRejected{order, account, OptionRejectReason::UnknownOrder,
                                    "no working option order of yours with this id"});
    return;
  }
  const std::int64_t leaves = it->second.leaves;
  removeResting(order);
  out.emplace_back(OptionCancelled{order, account, leaves, "user"});
}

void OptionMarket::advance(Hour now, const std::map<Accelerator, ClassIndex>& index,
                           std::vector<OptionMarketEvent>& out) {
  if (now <= now_) return;
  const Hour from = now_;
  now_ = now;
  for (const auto& [a, c] : index) {
    if (c.nextDay <= 0) continue;
    index_[a] = c;
    auto& h = history_[a];
    h.push_back(c.nextDay);
    if (h.size() > kVolatilityHours) h.pop_front();
  }

  // Series whose delivery period has begun no longer trade.
  std::vector<std::uint64_t> expired;
  for (const auto& [id, r] : resting_)
    if (r.order.series.start <= now) expired.push_back(id);
  std::sort(expired.begin(), expired.end());
  for (std::uint64_t id : expired) {
    const Resting r = resting_.at(id);
    removeResting(id);
    out.emplace_back(OptionCancelled{id, r.order.account, r.leaves, "period started"});
  }

  // Every period with an open position collects the next-day index of each hour inside it.
  for (const OptionSeries& s : positions_.openSeries()) averages_.try_emplace(PeriodKey{s.accelerator, s.period()});
  std::vector<std::pair<PeriodKey, Price>> ended;
  for (auto it = averages_.begin(); it != averages_.end();) {
    const auto& [a, period] = it->first;
    Average& avg = it->second;
    auto last = index_.find(a);
    if (last != index_.end()) {
      const Hour lo = std::max(from, period.start), hi = std::min(now, period.end);
      if (hi > lo) {
        avg.indexSum += last->second.nextDay * (hi - lo);
        avg.hours += hi - lo;
      }
    }
    if (now < period.end || last == index_.end()) {
      ++it;
      continue;
    }
    ended.emplace_back(it->first, avg.hours > 0 ? (avg.indexSum + avg.hours / 2) / avg.hours : last->second.nextDay);
    it = averages_.erase(it);
  }

  auto notices = [&](std::vector<OptionNotice> events) {
    for (OptionNotice& n : events) out.emplace_back(std::move(n));
  };
  for (const auto& [key, average] : ended) {
    out.emplace_back(OptionSettlement{key.first, key.second, average});
    notices(positions_.settle(key.first, key.second, average));
  }
  for (const auto& [a, c] : index) {
    if (c.nextDay <= 0) continue;
    notices(positions_.mark(
        a, [&](const OptionSeries& s) { return marginPerGpuHour(s); },
        [&](const OptionSeries& s) -> std::optional<Price> {
          const auto v = reference(s);
          if (!v) return std::nullopt;
          return v->value;
        }));
  }
}

std::vector<OptionLevel> OptionMarket::depth(const OptionSeries& s, Side side, std::size_t maxLevels) const {
  std::vector<OptionLevel> out;
  auto it = books_.find(s);
  if (it == books_.end()) return out;
  auto collect = [&](const auto& levels) {
    for (const auto& [premium, queue] : levels) {
      if (out.size() == maxLevels) break;
      OptionLevel l{premium, 0, static_cast<int>(queue.size())};
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

std::vector<OptionSeries> OptionMarket::books() const {
  std::vector<OptionSeries> out;
  for (const auto& [s, b] : books_)
    if (!b.bids.empty() || !b.asks.empty()) out.push_back(s);
  return out;
}

std::optional<OptionOrder> OptionMarket::working(std::uint64_t id) const {
  auto it = resting_.find(id);
  if (it == resting_.end()) return std::nullopt;
  OptionOrder o = it->second.order;
  o.gpuHours = it->second.leaves;
  return o;
}

std::vector<OptionOrder> OptionMarket::workingOrders(AccountId a) const {
  std::vector<OptionOrder> out;
  for (const auto& [id, r] : resting_)
    if (r.order.account == a) {
      OptionOrder o = r.order;
      o.gpuHours = r.leaves;
      out.push_back(o);
    }
  std::sort(out.begin(), out.end(), [](const OptionOrder& x, const OptionOrder& y) { return x.id < y.id; });
  return out;
}

std::string OptionMarket::stateText() const {
  std::string t;
  auto add = [&t](auto... v) {
    ((t += std::to_string(v), t += ' '), ...);
    t += '\n';
  };
  auto series = [&](const OptionSeries& s) {
    add(static_cast<int>(s.accelerator), static_cast<int>(s.kind), static_cast<int>(s.periodKind), s.start, s.strike);
  };
  for (std::uint64_t id = 1;; ++id) {
    const auto p = positions_.position(id);
    if (!p) break;
    series(p->series);
    add(p->id, p->buyer, p->writer, p->gpuHours, p->premium, static_cast<int>(p->status), p->writerMargin, p->lastValue,
        p->paid, p->unpaid);
  }
  for (const auto& [s, b] : books_) {
    series(s);
    for (const auto& [price, ids] : b.bids)
      for (std::uint64_t id : ids) add(0, price, id);
    for (const auto& [price, ids] : b.asks)
      for (std::uint64_t id : ids) add(1, price, id);
  }
  std::vector<std::uint64_t> ids;
  for (const auto& [id, r] : resting_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  for (std::uint64_t id : ids) {
    const Resting& r = resting_.at(id);
    series(r.order.series);
    add(id, r.order.account, static_cast<int>(r.order.side), r.order.gpuHours, r.order.premium, r.leaves,
        r.holdPerGpuHour);
  }
  for (const auto& [a, m] : std::map<AccountId, Money>(held_.begin(), held_.end())) add(a, m);
  add(seen_.size());
  for (const auto& [a, c] : index_) {
    add(static_cast<int>(a), c.nextDay, c.nextWeek, c.nextMonth);
    for (const ForwardMid& f : c.forwardMids) add(f.leadHours, f.mid);
  }
  for (const auto& [a, h] : history_) {
    add(static_cast<int>(a), h.size());
    for (Price p : h) add(p);
  }
  for (const auto& [key, avg] : averages_)
    add(static_cast<int>(key.first), static_cast<int>(key.second.kind), key.second.start, avg.indexSum, avg.hours);
  add(now_);
  return t;
}

void OptionMarket::save(SnapshotWriter& w) const {
  positions_.save(w);
  w.pod<std::uint64_t>(books_.size());
  for (const auto& [s, b] : books_) {
    w.pod(s);
    saveLevels(w, b.bids);
    saveLevels(w, b.asks);
  }
  std::vector<std::uint64_t> ids;
  for (const auto& [id, r] : resting_) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  w.pod<std::uint64_t>(ids.size());
  for (std::uint64_t id : ids) {
    const Resting& r = resting_.at(id);
    w.pod(r.order);
    w.pod(r.leaves);
    w.pod(r.holdPerGpuHour);
  }
  std::map<AccountId, Money> held(held_.begin(), held_.end());
  w.pod<std::uint64_t>(held.size());
  for (const auto& [a, m] : held) {
    w.pod(a);
    w.pod(m);
  }
  std::vector<std::uint64_t> seen(seen_.begin(), seen_.end());
  std::sort(seen.begin(), seen.end());
  w.podVector(seen);
  w.pod<std::uint64_t>(index_.size());
  for (const auto& [a, c] : index_) {
    w.pod(a);
    w.pod(c.nextDay);
    w.pod(c.nextWeek);
    w.pod(c.nextMonth);
    w.podVector(c.forwardMids);
  }
  w.pod<std::uint64_t>(history_.size());
  for (const auto& [a, h] : history_) {
    w.pod(a);
    const std::vector<Price> values(h.begin(), h.end());
    w.podVector(values);
  }
  w.pod<std::uint64_t>(averages_.size());
  for (const auto& [key, avg] : averages_) {
    w.pod(key.first);
    w.pod(key.second);
    w.pod(avg);
  }
  w.pod(now_);
}

void OptionMarket::load(SnapshotReader& r) {
  positions_.load(r);
  for (std::size_t n = r.count(sizeof(OptionSeries)); n > 0; --n) {
    Book& b = books_[r.pod<OptionSeries>()];
    loadLevels(r, b.bids);
    loadLevels(r, b.asks);
  }
  for (std::size_t n = r.count(sizeof(OptionOrder)); n > 0; --n) {
    Resting rest;
    rest.order = r.pod<OptionOrder>();
    rest.leaves = r.pod<std::int64_t>();
    rest.holdPerGpuHour = r.pod<Price>();
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
    ClassIndex c;
    const auto a = r.pod<Accelerator>();
    c.nextDay = r.pod<Price>();
    c.nextWeek = r.pod<Price>();
    c.nextMonth = r.pod<Price>();
    r.podVector(c.forwardMids);
    index_[a] = std::move(c);
  }
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto a = r.pod<Accelerator>();
    std::vector<Price> values;
    r.podVector(values);
    history_[a] = std::deque<Price>(values.begin(), values.end());
  }
  for (std::size_t n = r.count(8); n > 0; --n) {
    PeriodKey key;
    key.first = r.pod<Accelerator>();
    key.second = r.pod<DeliveryPeriod>();
    averages_[key] = r.pod<Average>();
  }
  now_ = r.pod<Hour>();
}

}  // namespace tessera::indexoptions
