#include "backtest/Replay.h"

#include "core/engine/CashReservation.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/ExchangeFee.h"
#include "core/settlement/OutageRule.h"
#include "core/settlement/ReclaimRule.h"

#include <algorithm>

namespace tessera::backtest {
namespace {

std::uint64_t fnv1a(std::uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

bool isSetup(const InputEvent& in) {
  return std::holds_alternative<Cluster>(in) || std::holds_alternative<CapacityGrant>(in) ||
         std::holds_alternative<ClockAdvance>(in);
}

constexpr Money kUnlimitedOptionCash = Money{1'000'000'000'000} * 1'000'000;  // $1tn

// Runs of equal GPUs over consecutive hours, as positions list lost and reclaimed hours.
std::vector<LostHours> runsOf(const std::map<Hour, GpuCount>& perHour) {
  std::vector<LostHours> runs;
  for (const auto& [h, gpus] : perHour) {
    if (!runs.empty() && runs.back().end == h && runs.back().gpus == gpus)
      runs.back().end = h + 1;
    else
      runs.push_back({h, h + 1, gpus});
  }
  return runs;
}

Price vwap(Money notional, std::int64_t gpuHours) { return gpuHours > 0 ? notional / gpuHours : 0; }

// The midpoint of the best bid and ask, or nothing when either side is empty.
Price bookMid(const Matcher& engine, ClusterId cluster, Hour hour) {
  const auto bid = engine.depth(cluster, hour, Side::Buy, 1);
  const auto ask = engine.depth(cluster, hour, Side::Sell, 1);
  if (bid.empty() || ask.empty()) return 0;
  return (bid.front().price + ask.front().price) / 2;
}

}  // namespace

Replay::Replay(Strategy& strategy, const AccountDirectory& accounts, ReplayConfig config)
    : strategy_(strategy),
      accounts_(accounts),
      config_(std::move(config)),
      engine_(makeMatchingEngine()),
      orderChannel_(config_.latency.orderEntry, config_.latency.seed, 1),
      ackChannel_(config_.latency.ack, config_.latency.seed, 2),
      marketDataChannel_(config_.latency.marketData, config_.latency.seed, 3) {
  if (config_.accountName.empty()) config_.accountName = "strategy:" + strategy_.name();
  account_ = accounts_.intern(config_.accountName);
  // Without a starting cash the strategy's option premiums and margin are unbounded too.
  options_ = std::make_unique<OptionReplay>(account_, accounts_.intern("options:dealer"),
                                            config_.startingCash.value_or(kUnlimitedOptionCash), config_.optionDealer);
  wantsBook_ = strategy_.wantsBookUpdates();
  result_.strategy = strategy_.name();
  result_.accountName = config_.accountName;
  result_.outputHash = config_.hashEvents ? 0xCBF29CE484222325ULL : 0;
  out_.reserve(64);
}

Replay::~Replay() = default;

bool Replay::feed(const store::RecordedInput& in) {
  if (config_.cancel && config_.cancel->load(std::memory_order_relaxed)) {
    result_.cancelled = true;
    return false;
  }
  // The strategy starts once the market is set up (clusters, grants, clock) and trading begins.
  if (!started_ && !isSetup(in.event)) {
    started_ = true;
    time_ = std::max(time_, in.timeMicros);
    strategy_.onStart(*this);
    if (strategy_.setupError()) {
      result_.setupError = *strategy_.setupError();
      return false;
    }
  }
  deliverUpTo(in.timeMicros, false);
  time_ = std::max(time_, in.timeMicros);
  // A recorded capacity_reclaim names a contract of the recorded market; the replay applies the
  // reclaims table's row after it to its own contracts instead (reclaim()).
  if (!std::holds_alternative<CapacityReclaim>(in.event)) apply(in.event, false);
  ++result_.inputs;
  return true;
}

void Replay::outage(const store::RecordedOutage& o) {
  if (result_.cancelled || !result_.setupError.empty()) return;
  deliverUpTo(o.timeMicros, false);
  time_ = std::max(time_, o.timeMicros);
  const Hour from = std::max(o.start, engine_->now());
  if (from >= o.end || o.lostGpus <= 0) return;
  // The provider's contracts on the cluster in those hours, lowest id first, as the exchange's
  // settlement lists them.
  std::vector<Contract> contracts;
  for (const Contract& k : engine_->contractsOf(o.provider))
    if (k.seller == o.provider && k.cluster == o.cluster && k.start < o.end && k.end > from) contracts.push_back(k);
  std::sort(contracts.begin(), contracts.end(), [](const Contract& a, const Contract& b) { return a.id < b.id; });
  const std::vector<OutageShare> shares = spreadOutage(
      contracts, o.lostGpus, from, o.end, [&](Hour h) { return engine_->holding(o.provider, o.cluster, h).held; },
      false);
  std::set<ContractId> touched;
  for (const OutageShare& share : shares) {
    const auto k =
        std::find_if(contracts.begin(), contracts.end(), [&](const Contract& c) { return c.id == share.contract; });
    if (k->buyer != account_) continue;
    std::map<Hour, GpuCount>& missing = lost_[k->id];
    // As a delivery report counts: the most GPUs any report said missing in the hour.
    for (Hour h = share.start; h < share.end; ++h) missing[h] = std::max(missing[h], share.lostGpus);
    result_.summary.lostGpuHours += static_cast<std::int64_t>(share.lostGpus) * (share.end - share.start);
    touched.insert(k->id);
  }
  std::optional<std::int64_t> ackAt;
  for (ContractId id : touched) {
    notify(ackAt, ackChannel_, config_.latency.ack.isZero(),
           [this, id, runs = runsOf(lost_[id])] { strategy_.onContractLoss(*this, id, runs); });
  }
}

void Replay::reclaim(const store::RecordedReclaim& r) {
  if (result_.cancelled || !result_.setupError.empty()) return;
  deliverUpTo(r.timeMicros, false);
  time_ = std::max(time_, r.timeMicros);
  const Cluster* cluster = engine_->cluster(r.cluster);
  const Hour from = std::max(r.start, engine_->now());
  if (!cluster || !cluster->interruptible() || from >= r.end || r.gpus <= 0) return;
  std::vector<Contract> contracts;
  for (const Contract& k : engine_->contractsOf(r.provider))
    if (k.seller == r.provider && k.buyer != r.provider && k.cluster == r.cluster && k.start < r.end && k.end > from)
      contracts.push_back(k);
  // The contract the exchange reclaimed, when this replay made the same one.
  if (auto same =
          std::find_if(contracts.begin(), contracts.end(), [&](const Contract& k) { return k.id == r.contract; });
      r.contract != 0 && same != contracts.end())
    contracts = {*same};
  // What a contract can give in every hour: its GPUs less earlier reclaims, and no more than
  // its buyer holds (the strategy's asks on them are cancelled below, as the exchange does;
  // another buyer's offered hours are not taken).
  auto takeable = [&](const Contract& k, Hour s, Hour e) {
    GpuCount most = k.gpus;
    const auto& taken = reclaimed_[k.id];
    for (Hour h = s; h < e; ++h) {
      const auto t = taken.find(h);
      const Holding held = engine_->holding(k.buyer, k.cluster, h);
      const GpuCount free = k.buyer == account_ ? held.held : held.held - held.offered;
      most = std::min({most, k.gpus - (t == taken.end() ? 0 : t->second), free});
    }
    return most;
  };
  std::optional<std::int64_t> ackAt;
  for (const ReclaimShare& share : spreadReclaim(contracts, r.gpus, from, r.end, takeable)) {
    const Contract& k =
        *std::find_if(contracts.begin(), contracts.end(), [&](const Contract& c) { return c.id == share.contract; });
    if (k.buyer == account_) {
      bool short_ = false;
      for (Hour h = share.start; h < share.end && !short_; ++h) {
        const Holding held = engine_->holding(account_, k.cluster, h);
        short_ = held.held - held.offered < share.gpus;
      }
      if (short_)
        for (const OrderView& v : engine_->workingOrders(account_))
          if (v.request.side == Side::Sell && v.request.cluster == k.cluster && v.request.start < share.end &&
              v.request.end > share.start)
            apply(CancelRequest{v.request.id, account_}, false);
    }
    const InputEvent in{CapacityReclaim{k.id, r.provider, k.buyer, share.gpus, share.start, share.end}};
    out_.clear();
    engine_->apply(in, out_);
    if (std::any_of(out_.begin(), out_.end(), [](const Event& e) { return std::holds_alternative<OrderRejected>(e); }))
      continue;
    if (config_.onApply) config_.onApply(time_, in, false, out_);
    std::map<Hour, GpuCount>& taken = reclaimed_[k.id];
    for (Hour h = share.start; h < share.end; ++h) taken[h] += share.gpus;
    if (k.buyer != account_) continue;
    const std::int64_t gpuHours = static_cast<std::int64_t>(share.gpus) * (share.end - share.start);
    // The settlement's refund: the reclaimed GPU-hours at the contract's price, from escrow.
    const Money refund = k.price * gpuHours;
    cash_ += refund;
    result_.summary.reclaimedGpuHours += gpuHours;
    result_.summary.reclaimRefunds += refund;
    for (Hour h = share.start; h < share.end; ++h) position_[{h, k.cluster}] -= share.gpus;
    notify(ackAt, ackChannel_, config_.latency.ack.isZero(),
           [this, id = k.id, runs = runsOf(taken)] { strategy_.onContractReclaim(*this, id, runs); });
  }
}

void Replay::deliverUpTo(std::int64_t t, bool everything) {
  // Strictly before t: an action arriving at the same instant as a history input comes after it.
  while (!pending_.empty() && (everything || pending_.top().at < t)) {
    Pending p = pending_.top();
    pending_.pop();
    time_ = std::max(time_, p.at);
    switch (p.kind) {
      case PendingKind::Timer: strategy_.onTimer(*this, p.timerId); break;
      case PendingKind::Action: apply(p.action, true); break;
      case PendingKind::Callback: p.callback(); break;
    }
  }
}

BacktestResult Replay::finish() {
  if (!result_.cancelled && result_.setupError.empty()) {
    if (!started_) {
      started_ = true;
      strategy_.onStart(*this);
    }
    deliverUpTo(0, true);
    strategy_.onFinish(*this);
    deliverUpTo(0, true);
  }
  sample(engine_->now());
  BacktestSummary& s = result_.summary;
  s.fills = static_cast<std::int64_t>(result_.fills.size());
  s.contracts = static_cast<std::int64_t>(result_.contracts.size());
  for (const auto& [id, gh] : acceptedGpuHours_) s.orderedGpuHours += gh;
  s.fillRate =
      s.orderedGpuHours > 0 ? static_cast<double>(s.filledGpuHours) / static_cast<double>(s.orderedGpuHours) : 0;
  s.finalCash = cash_;
  s.finalEquity = result_.series.empty() ? cash_ : result_.series.back().equity;
  for (const auto& p : result_.series) s.maxDrawdown = std::min(s.maxDrawdown, p.drawdown);
  s.averagePaid = vwap(s.spent, s.boughtGpuHours);
  s.marketVwap = weightedMarketVwap();
  s.usefulGpuHours = std::max<std::int64_t>(0, s.boughtGpuHours - s.soldGpuHours - s.reclaimedGpuHours);
  s.effectiveCostPerUsefulGpuHour =
      s.usefulGpuHours > 0 ? (s.spent - s.received - s.reclaimRefunds) / s.usefulGpuHours : 0;
  s.demandGpuHours = strategy_.demandGpuHours();
  s.unfilledDemandGpuHours = std::max<std::int64_t>(0, s.demandGpuHours - s.usefulGpuHours);
  s.options = options_->summary();
  result_.notes = strategy_.reportLines();
  return std::move(result_);
}

void Replay::apply(const InputEvent& in, bool fromStrategy) {
  out_.clear();
  // The exchange refuses an unaffordable bid before the engine sees it.
  if (auto refused = fromStrategy ? cashCheck(in) : std::nullopt)
    out_.push_back(*refused);
  else
    engine_->apply(in, out_);
  result_.engineEvents += static_cast<std::int64_t>(out_.size());
  if (config_.hashEvents)
    for (const Event& e : out_) hash(e);
  if (fromStrategy) ++result_.strategyActions;
  if (config_.onApply) config_.onApply(time_, in, fromStrategy, out_);
  dispatch(in, fromStrategy);
}

namespace {
// Folds every field of an event into the hash; far cheaper than hashing its JSON form, and
// just as sensitive to any difference.
struct EventHasher {
  std::uint64_t& h;
  std::vector<std::uint64_t>& names;  // per account id: hash of its name (0: not yet)
  const AccountDirectory& accounts;
  void mix(std::int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<std::uint64_t>(v >> (8 * i)) & 0xFF;
      h *= 0x100000001B3ULL;
    }
  }
  // Accounts by name, not id: ids depend on the order names were first seen, which an
  // exported and re-imported history need not keep.
  void acct(AccountId a) {
    if (a >= names.size()) names.resize(static_cast<std::size_t>(a) + 1, 0);
    if (names[a] == 0) names[a] = fnv1a(0xCBF29CE484222325ULL, accounts.name(a)) | 1;
    mix(static_cast<std::int64_t>(names[a]));
  }
  void operator()(const ClusterAdded& e) {
    mix(1);
    mix(e.cluster);
  }
  void operator()(const CapacityAdded& e) {
    mix(2);
    acct(e.grant.account);
    mix(e.grant.cluster);
    mix(e.grant.gpus);
    mix(e.grant.start);
    mix(e.grant.end);
  }
  void operator()(const OrderAccepted& e) {
    mix(3);
    mix(static_cast<std::int64_t>(e.order));
    acct(e.account);
  }
  void operator()(const OrderRejected& e) {
    mix(4);
    mix(static_cast<std::int64_t>(e.order));
    acct(e.account);
    mix(static_cast<std::int64_t>(e.reason));
    h = fnv1a(h, e.detail);
  }
  void operator()(const Fill& e) {
    mix(5);
    mix(static_cast<std::int64_t>(e.trade));
    mix(static_cast<std::int64_t>(e.contract));
    mix(static_cast<std::int64_t>(e.order));
    acct(e.account);
    mix(static_cast<std::int64_t>(e.side));
    mix(e.aggressor);
    mix(e.cluster);
    mix(e.gpus);
    mix(e.start);
    mix(e.end);
    mix(e.price);
    mix(e.leavesGpuHours);
  }
  void operator()(const ContractCreated& e) {
    const Contract& c = e.contract;
    mix(6);
    mix(static_cast<std::int64_t>(c.id));
    mix(static_cast<std::int64_t>(c.trade));
    acct(c.buyer);
    acct(c.seller);
    mix(static_cast<std::int64_t>(c.buyOrder));
    mix(static_cast<std::int64_t>(c.sellOrder));
    mix(c.cluster);
    mix(c.gpus);
    mix(c.start);
    mix(c.end);
    mix(c.price);
  }
  void operator()(const OrderCancelled& e) {
    mix(7);
    mix(static_cast<std::int64_t>(e.order));
    acct(e.account);
    mix(static_cast<std::int64_t>(e.reason));
    mix(e.cancelledGpuHours);
    mix(e.leavesGpuHours);
  }
  void operator()(const OrderAmended& e) {
    mix(8);
    mix(static_cast<std::int64_t>(e.order));
    acct(e.account);
    mix(e.limit);
    mix(e.gpus);
    mix(e.priorityKept);
  }
  void operator()(const ClockAdvanced& e) {
    mix(9);
    mix(e.now);
  }
};
}  // namespace

void Replay::hash(const Event& e) { std::visit(EventHasher{result_.outputHash, accountHash_, accounts_}, e); }

void Replay::notify(std::optional<std::int64_t>& arrival, LatencyChannel& channel, bool zero,
                    std::function<void()> call) {
  if (zero) {
    call();
    return;
  }
  if (!arrival) arrival = channel.arrival(time_);
  pending_.push({*arrival, pendingOrder_++, PendingKind::Callback, 0, InputEvent{ClockAdvance{}}, std::move(call)});
}

void Replay::dispatch(const InputEvent& in, bool /*fromStrategy*/) {
  BacktestSummary& s = result_.summary;
  // One message per channel for everything this input caused.
  std::optional<std::int64_t> ackAt, marketDataAt;
  const bool ackNow = config_.latency.ack.isZero(), marketDataNow = config_.latency.marketData.isZero();
  auto ack = [&](std::function<void()> call) { notify(ackAt, ackChannel_, ackNow, std::move(call)); };
  auto marketData = [&](std::function<void()> call) {
    notify(marketDataAt, marketDataChannel_, marketDataNow, std::move(call));
  };
  // Callbacks only queue actions, so out_ stays valid while we walk it.
  for (const Event& e : out_) {
    if (const auto* f = std::get_if<Fill>(&e)) {
      if (f->account != account_) continue;
      const std::int64_t gh = static_cast<std::int64_t>(f->gpus) * (f->end - f->start);
      const Money notional = f->price * gh;
      const std::int64_t sign = f->side == Side::Buy ? 1 : -1;
      FillContext ctx;
      ctx.timeMicros = time_;
      for (const Event& other : out_) {
        const auto* made = std::get_if<ContractCreated>(&other);
        if (!made || made->contract.trade != f->trade) continue;
        const AccountId cp = f->side == Side::Buy ? made->contract.seller : made->contract.buyer;
        const int n = counterparties_.try_emplace(cp, static_cast<int>(counterparties_.size()) + 1).first->second;
        ctx.counterparty = "cp" + std::to_string(n);
        break;
      }
      if (auto it = orderContext_.find(f->order); it != orderContext_.end()) {
        ctx.limit = it->second.limit;
        ctx.midAtOrder = it->second.midAtOrder;
      }
      if (auto acc = accelerator_.find(f->cluster); acc != accelerator_.end()) {
        if (auto tenor = tenorOf(f->start - engine_->now())) {
          if (auto v = index_.value(acc->second, *tenor, engine_->now())) ctx.index = v->price;
        }
      }
      if (ctx.midAtOrder > 0) {
        s.slippageVsMid += sign * (f->price - ctx.midAtOrder) * gh;
        s.midGpuHours += gh;
      }
      if (f->side == Side::Buy) {
        if (ctx.limit > 0) s.costVsLimit += (f->price - ctx.limit) * gh;
        if (ctx.index > 0) {
          s.costVsIndex += (f->price - ctx.index) * gh;
          s.indexedGpuHours += gh;
        }
        if (f->leavesGpuHours > 0)
          workingBuyGpuHours_[f->order] = f->leavesGpuHours;
        else
          workingBuyGpuHours_.erase(f->order);
      } else {
        ctx.fee = exchangeFee(notional, config_.feePpm);
        cash_ -= ctx.fee;
        s.fees += ctx.fee;
      }
      if (f->side == Side::Buy) {
        cash_ -= notional;
        s.spent += notional;
        s.boughtGpuHours += gh;
        boughtOn_[f->cluster] += gh;
      } else {
        cash_ += notional;
        s.received += notional;
        s.soldGpuHours += gh;
      }
      s.filledGpuHours += gh;
      for (Hour h = f->start; h < f->end; ++h) position_[{h, f->cluster}] += sign * f->gpus;
      result_.fills.push_back(*f);
      result_.fillContext.push_back(std::move(ctx));
      ack([this, fill = *f] { strategy_.onOwnFill(*this, fill); });
    } else if (const auto* c = std::get_if<ContractCreated>(&e)) {
      const Contract& k = c->contract;
      const std::int64_t gh = static_cast<std::int64_t>(k.gpus) * (k.end - k.start);
      const bool own = k.buyer == account_ || k.seller == account_;
      // The market the strategy is compared with is everyone else's trades.
      if (!own) {
        auto& v = marketVolume_[k.cluster];
        v.notional += k.price * gh;
        v.gpuHours += gh;
        auto& hv = marketHourVolume_[k.cluster];
        hv.notional += k.price * gh;
        hv.gpuHours += gh;
      }
      // The published index counts every trade, as the exchange's does.
      if (auto acc = accelerator_.find(k.cluster); acc != accelerator_.end())
        index_.record({engine_->now(), acc->second, k.start, gh, k.price});
      lastPrice_[k.cluster] = k.price;
      if (own) result_.contracts.push_back(k);
      // What the exchange's public tape says of a trade, as a live strategy gets it: no parties,
      // orders or contract id (the strategy's own side comes through onOwnFill).
      Contract tape;
      tape.trade = k.trade;
      tape.cluster = k.cluster;
      tape.gpus = k.gpus;
      tape.start = k.start;
      tape.end = k.end;
      tape.price = k.price;
      marketData([this, tape] { strategy_.onTrade(*this, tape); });
    } else if (const auto* a = std::get_if<OrderAccepted>(&e)) {
      if (a->account != account_) continue;
      if (auto it = placedGpuHours_.find(a->order); it != placedGpuHours_.end()) {
        acceptedGpuHours_[a->order] = it->second;
        acceptedTotalGpuHours_ += it->second;
        if (auto v = engine_->order(a->order); v && v->request.side == Side::Buy && v->leavesGpuHours > 0)
          workingBuyGpuHours_[a->order] = v->leavesGpuHours;
      }
      ack([this, e] { strategy_.onOrderEvent(*this, e); });
    } else if (const auto* r = std::get_if<OrderRejected>(&e)) {
      if (r->account != account_) continue;
      ++s.ordersRejected;
      ack([this, e] { strategy_.onOrderEvent(*this, e); });
    } else if (const auto* x = std::get_if<OrderCancelled>(&e)) {
      if (x->account != account_) continue;
      if (x->leavesGpuHours > 0)
        workingBuyGpuHours_[x->order] = x->leavesGpuHours;
      else
        workingBuyGpuHours_.erase(x->order);
      ack([this, e] { strategy_.onOrderEvent(*this, e); });
    } else if (const auto* m = std::get_if<OrderAmended>(&e)) {
      if (m->account != account_) continue;
      if (auto it = workingBuyGpuHours_.find(m->order); it != workingBuyGpuHours_.end()) {
        if (auto v = engine_->order(m->order)) it->second = v->leavesGpuHours;
      }
      if (auto it = orderContext_.find(m->order); it != orderContext_.end()) it->second.limit = m->limit;
      ack([this, e] { strategy_.onOrderEvent(*this, e); });
    } else if (const auto* added = std::get_if<ClusterAdded>(&e)) {
      for (const Cluster& c : engine_->clusters()) {
        if (c.id != added->cluster) continue;
        accelerator_[c.id] = c.accelerator;
        result_.clusterNames[c.id] = c.name;
      }
    } else if (const auto* k = std::get_if<ClockAdvanced>(&e)) {
      advanceOptions(k->now);
      index_.prune(k->now);
      sample(k->now);
      marketData([this, now = k->now] { strategy_.onClock(*this, now); });
    }
  }
  if (!wantsBook_) return;
  // Which part of the book this input touched.
  std::optional<BookChange> change;
  if (const auto* o = std::get_if<OrderRequest>(&in)) {
    if (o->cluster && o->fill == FillStyle::Divisible) change = BookChange{*o->cluster, o->side, o->start, o->end};
  } else if (std::holds_alternative<CancelRequest>(in) || std::holds_alternative<AmendRequest>(in)) {
    const OrderId id =
        std::holds_alternative<CancelRequest>(in) ? std::get<CancelRequest>(in).id : std::get<AmendRequest>(in).id;
    if (auto v = engine_->order(id); v && v->request.cluster && v->request.fill == FillStyle::Divisible)
      change = BookChange{*v->request.cluster, v->request.side, v->request.start, v->request.end};
  }
  if (change) marketData([this, c = *change] { strategy_.onBookUpdate(*this, c); });
}

void Replay::sample(Hour hour) {
  // Delivered hours have been used: they no longer count as inventory.
  while (!position_.empty() && position_.begin()->first.first < hour) position_.erase(position_.begin());
  Money inventory = 0;
  std::int64_t held = 0;
  for (const auto& [cell, gpus] : position_) {
    if (gpus == 0) continue;
    held += gpus;
    const auto it = lastPrice_.find(cell.second);
    if (it != lastPrice_.end()) inventory += gpus * it->second;
  }
  SeriesPoint p;
  p.hour = hour;
  p.cash = cash_;
  p.equity = cash_ + inventory + options_->openValue();
  if (!anyEquity_ || p.equity > peakEquity_) peakEquity_ = p.equity;
  anyEquity_ = true;
  p.drawdown = p.equity - peakEquity_;
  p.heldGpuHours = held;
  for (const auto& [order, leaves] : workingBuyGpuHours_) p.committedGpuHours += leaves;
  p.fillRateToDate = acceptedTotalGpuHours_ > 0 ? static_cast<double>(result_.summary.filledGpuHours) /
                                                      static_cast<double>(acceptedTotalGpuHours_)
                                                : 0;
  Volume hourly, toDate;
  for (ClusterId c : focus_) {
    if (auto it = marketHourVolume_.find(c); it != marketHourVolume_.end()) {
      hourly.notional += it->second.notional;
      hourly.gpuHours += it->second.gpuHours;
    }
    if (auto it = marketVolume_.find(c); it != marketVolume_.end()) {
      toDate.notional += it->second.notional;
      toDate.gpuHours += it->second.gpuHours;
    }
  }
  marketHourVolume_.clear();
  p.marketVwap = vwap(hourly.notional, hourly.gpuHours);
  p.marketVwapToDate = vwap(toDate.notional, toDate.gpuHours);
  // Once the strategy has bought, compare like with like: the market's price on the clusters
  // it bought on, weighted as its purchases (the same figure as the summary's market VWAP).
  if (const Price w = weightedMarketVwap(); w > 0) p.marketVwapToDate = w;
  p.averagePaid = vwap(result_.summary.spent, result_.summary.boughtGpuHours);
  if (!result_.series.empty() && result_.series.back().hour == hour)
    result_.series.back() = p;
  else
    result_.series.push_back(p);
}

Price Replay::weightedMarketVwap() const {
  // The market's price on the clusters the strategy bought on, weighted as its own purchases.
  double weighted = 0;
  std::int64_t weight = 0;
  for (const auto& [cluster, gh] : boughtOn_) {
    const auto it = marketVolume_.find(cluster);
    if (it == marketVolume_.end() || it->second.gpuHours == 0) continue;
    weighted += static_cast<double>(vwap(it->second.notional, it->second.gpuHours)) * static_cast<double>(gh);
    weight += gh;
  }
  return weight > 0 ? static_cast<Price>(weighted / static_cast<double>(weight)) : 0;
}

Money Replay::reservedByWorkingBids() const {
  Money held = 0;
  for (const auto& [order, leaves] : workingBuyGpuHours_) {
    const auto it = orderContext_.find(order);
    if (it != orderContext_.end()) held += it->second.limit * leaves;
  }
  return held;
}

std::optional<OrderRejected> Replay::cashCheck(const InputEvent& action) const {
  if (!config_.startingCash) return std::nullopt;
  const Money spendable = *config_.startingCash + cash_ - reservedByWorkingBids() - options_->committed();
  Money needed = 0;
  OrderId id = 0;
  if (const auto* o = std::get_if<OrderRequest>(&action)) {
    needed = reservationFor(*o);
    id = o->id;
  } else if (const auto* a = std::get_if<AmendRequest>(&action)) {
    // An amend holds back the new limit x the new leaves instead of the old.
    const auto v = engine_->order(a->id);
    const auto w = workingBuyGpuHours_.find(a->id);
    const auto c = orderContext_.find(a->id);
    if (!v || w == workingBuyGpuHours_.end() || c == orderContext_.end() || v->request.gpus <= 0) return std::nullopt;
    const Price limit = a->limit.value_or(v->request.limit);
    const GpuCount gpus = a->gpus.value_or(v->request.gpus);
    const std::int64_t leaves = w->second / v->request.gpus * gpus;
    needed = std::max<Money>(0, limit * leaves - c->second.limit * w->second);
    id = a->id;
  }
  if (needed <= spendable) return std::nullopt;
  OrderRejected r;
  r.order = id;
  r.account = account_;
  r.reason = RejectReason::InsufficientCash;
  r.detail = "the bid needs " + toDollars(needed) + ", " + toDollars(std::max<Money>(spendable, 0)) + " is available";
  return r;
}

Hour Replay::now() const { return engine_->now(); }
std::vector<Cluster> Replay::clusters() const { return engine_->clusters(); }
std::vector<BookLevel> Replay::depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const {
  return engine_->depth(cluster, hour, side, maxLevels);
}
std::optional<Price> Replay::lastTradePrice(ClusterId cluster) const {
  if (auto it = lastPrice_.find(cluster); it != lastPrice_.end()) return it->second;
  return std::nullopt;
}

OrderId Replay::place(OrderRequest order) {
  if (order.id == 0) order.id = nextOrderId_++;
  order.account = account_;
  ++result_.summary.ordersPlaced;
  placedGpuHours_[order.id] = static_cast<std::int64_t>(order.gpus) * order.hours();
  if (order.cluster) focus_.insert(*order.cluster);
  orderContext_[order.id] = {order.limit, order.cluster ? bookMid(*engine_, *order.cluster, order.start) : 0};
  const OrderId id = order.id;
  send(InputEvent{std::move(order)});
  return id;
}

void Replay::cancel(OrderId id) { send(InputEvent{CancelRequest{id, account_}}); }

void Replay::amend(OrderId id, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  send(InputEvent{AmendRequest{id, account_, limit, gpus}});
}

void Replay::send(InputEvent action) {
  pending_.push({orderChannel_.arrival(time_), pendingOrder_++, PendingKind::Action, 0, std::move(action), {}});
}

void Replay::setTimer(std::int64_t atMicros, int timerId) {
  pending_.push(
      {std::max(atMicros, time_), pendingOrder_++, PendingKind::Timer, timerId, InputEvent{ClockAdvance{}}, {}});
}

}  // namespace tessera::backtest

namespace tessera::backtest {

std::uint64_t Replay::placeOption(OptionOrderRequest order) {
  const indexoptions::OptionOrder o{nextOptionId_++, account_, order.side, order.series, order.gpuHours, order.premium};
  sendOption([this, o](std::vector<OptionUpdate>& out) {
    options_->activate(out);
    // The exchange's check: cash free of the working bids and of the option market's margin
    // (its own holds it subtracts itself).
    const Money free = config_.startingCash
                           ? *config_.startingCash + cash_ - reservedByWorkingBids() - options_->margin()
                           : kUnlimitedOptionCash;
    options_->submit(o, engine_->now(), free, out);
  });
  return o.id;
}

void Replay::cancelOption(std::uint64_t id) {
  sendOption([this, id](std::vector<OptionUpdate>& out) { options_->cancel(id, out); });
}

OptionQuote Replay::optionQuote(const indexoptions::OptionSeries& series) const {
  // Asking is interest: the dealer quotes from the next clock tick on (OptionReplay::activate).
  optionsWanted_ = true;
  return options_->quote(series);
}

void Replay::sendOption(std::function<void(std::vector<OptionUpdate>&)> action) {
  pending_.push({orderChannel_.arrival(time_), pendingOrder_++, PendingKind::Callback, 0, InputEvent{ClockAdvance{}},
                 [this, action = std::move(action)] {
                   std::vector<OptionUpdate> out;
                   options_->activate(out);
                   action(out);
                   ++result_.strategyActions;
                   deliverOptionUpdates(out);
                 }});
}

void Replay::deliverOptionUpdates(const std::vector<OptionUpdate>& updates) {
  std::optional<std::int64_t> ackAt;
  for (const OptionUpdate& u : updates) {
    if (u.kind == OptionUpdate::Kind::Filled || u.kind == OptionUpdate::Kind::Notice) cash_ += u.amount;
    notify(ackAt, ackChannel_, config_.latency.ack.isZero(), [this, u] { strategy_.onOptionEvent(*this, u); });
  }
}

void Replay::advanceOptions(Hour now) {
  std::map<Accelerator, indexoptions::ClassIndex> index;
  for (const auto& [cluster, a] : accelerator_) {
    if (index.count(a)) continue;
    indexoptions::ClassIndex& c = index[a];
    Price* tenor[] = {&c.nextDay, &c.nextWeek, &c.nextMonth};
    for (std::size_t i = 0; i < kTenors.size(); ++i)
      if (auto v = index_.value(a, kTenors[i], now)) *tenor[i] = v->price;
  }
  std::vector<OptionUpdate> out;
  options_->advance(now, index, out);
  if (optionsWanted_) options_->activate(out);
  deliverOptionUpdates(out);
}

}  // namespace tessera::backtest
