#include "backtest/live/LiveStrategyRunner.h"

#include "core/net/ClientOrderId.h"

#include <chrono>
#include <utility>

namespace tessera::backtest {
namespace {

RejectReason rejectReasonOf(const std::string& code) {
  if (code == "duplicate_cl_ord_id") return RejectReason::DuplicateOrderId;  // the exchange already has this decision
  for (int r = 0; r <= static_cast<int>(RejectReason::NothingToAmend); ++r)
    if (toString(static_cast<RejectReason>(r)) == code) return static_cast<RejectReason>(r);
  return RejectReason::Malformed;
}
CancelReason cancelReasonOf(const std::string& code) {
  for (int r = 0; r <= static_cast<int>(CancelReason::Expired); ++r)
    if (toString(static_cast<CancelReason>(r)) == code) return static_cast<CancelReason>(r);
  return CancelReason::User;
}

}  // namespace

LiveStrategyRunner::LiveStrategyRunner(Strategy& strategy, net::ClientOptions options)
    : strategy_(strategy), accountName_(options.account) {
  options.marketData = true;
  net::ClientCallbacks cb;
  cb.onBook = [this](const std::vector<net::BookCell>& c, bool snap) { onBook(c, snap); };
  cb.onTrade = [this](const net::Trade& t) { onTrade(t); };
  cb.onOrder = [this](const net::OrderUpdate& u) { onOrder(u); };
  cb.onClock = [this](Hour h) { onClock(h); };
  cb.onPositions = [this](const std::vector<Contract>& contracts) {
    std::lock_guard lock(mutex_);
    positions_ = contracts;
  };
  cb.onContractStatus = [this](const std::vector<net::ContractStatus>& status) { onContracts(status); };
  // An outage, a delivery report or a replacement changed a contract: its holding is asked again.
  cb.onSettlement = [this](const net::SettlementNotice&) {
    std::lock_guard lock(mutex_);
    if (started_ && !stopping_) client_->requestPositions();
  };
  cb.onOptionOrders = [this](const std::vector<net::OptionWorkingOrder>& w, Money) { onOptionOrders(w); };
  cb.onOptionEvent = [this](const net::OptionEventView& e) { onOptionEvent(e); };
  cb.onOptionChain = [this](const net::OptionChainView& chain) {
    std::lock_guard lock(mutex_);
    for (auto it = optionChain_.begin(); it != optionChain_.end();)
      it = it->first.accelerator == chain.accelerator ? optionChain_.erase(it) : std::next(it);
    for (const net::OptionChainRow& r : chain.rows) optionChain_[r.series] = OptionQuote{r.bid, r.ask, r.value};
  };
  client_ = std::make_unique<net::ExchangeClient>(std::move(options), std::move(cb));
}

LiveStrategyRunner::~LiveStrategyRunner() { stop(); }

void LiveStrategyRunner::start() {
  timerThread_ = std::thread([this] { timerLoop(); });
  client_->start();
}

void LiveStrategyRunner::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopped_) return;
    stopped_ = true;
    if (started_ && !stopping_) strategy_.onFinish(*this);
    stopping_ = true;
  }
  timerWake_.notify_all();
  client_->stop();
  if (timerThread_.joinable()) timerThread_.join();
}

std::optional<std::string> LiveStrategyRunner::setupError() const {
  std::lock_guard lock(mutex_);
  return strategy_.setupError();
}

bool LiveStrategyRunner::strategyStarted() const {
  std::lock_guard lock(mutex_);
  return started_;
}

LiveSummary LiveStrategyRunner::summary() const {
  std::lock_guard lock(mutex_);
  return summary_;
}

Hour LiveStrategyRunner::now() const { return client_->now(); }

std::int64_t LiveStrategyRunner::timeMicros() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<Cluster> LiveStrategyRunner::clusters() const { return client_->clusters(); }

std::vector<BookLevel> LiveStrategyRunner::depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const {
  std::lock_guard lock(mutex_);
  const auto it = book_.find(net::CellKey{cluster, hour, side});
  if (it == book_.end()) return {};
  std::vector<BookLevel> levels = it->second;
  if (levels.size() > maxLevels) levels.resize(maxLevels);
  return levels;
}

std::optional<Price> LiveStrategyRunner::lastTradePrice(ClusterId cluster) const {
  std::lock_guard lock(mutex_);
  if (auto it = lastPrice_.find(cluster); it != lastPrice_.end()) return it->second;
  return std::nullopt;
}

OrderId LiveStrategyRunner::place(OrderRequest order) {
  std::lock_guard lock(mutex_);
  const OrderId id = order.id != 0 ? order.id : nextLocal_++;
  locals_[id].side = order.side;
  // The decision: the strategy, the exchange hour and the order (clOrdIdFor leaves out its id and
  // account), and which of this run's equal decisions in that hour it is.
  const Hour hour = client_->now();
  const std::string decision = "live\n" + strategy_.name() + "\n" + std::to_string(hour);
  if (hour != decidedHour_) {
    decidedThisHour_.clear();
    decidedHour_ = hour;
  }
  const int nth = ++decidedThisHour_[net::clOrdIdFor(accountName_, order, decision)];
  const std::string clOrdId =
      "live-" + net::clOrdIdFor(accountName_, order, decision + "\n" + std::to_string(nth)).substr(4, 24);
  byClOrdId_[clOrdId] = id;
  ++summary_.ordersPlaced;
  client_->placeOrder(order, clOrdId);
  return id;
}

void LiveStrategyRunner::cancel(OrderId id) {
  std::lock_guard lock(mutex_);
  auto it = locals_.find(id);
  if (it == locals_.end()) return;
  if (it->second.exchangeId)
    client_->cancel(it->second.exchangeId);
  else
    it->second.held.push_back(CancelRequest{id, 0});
}

void LiveStrategyRunner::amend(OrderId id, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  std::lock_guard lock(mutex_);
  auto it = locals_.find(id);
  if (it == locals_.end()) return;
  if (it->second.exchangeId)
    client_->amend(it->second.exchangeId, limit, gpus);
  else
    it->second.held.push_back(AmendRequest{id, 0, limit, gpus});
}

void LiveStrategyRunner::sendHeld(Local& l) {
  for (const InputEvent& e : l.held) {
    if (std::holds_alternative<CancelRequest>(e))
      client_->cancel(l.exchangeId);
    else if (const auto* a = std::get_if<AmendRequest>(&e))
      client_->amend(l.exchangeId, a->limit, a->gpus);
  }
  l.held.clear();
}

void LiveStrategyRunner::setTimer(std::int64_t atMicros, int timerId) {
  std::lock_guard lock(mutex_);
  timers_.emplace(atMicros, timerId);
  timerWake_.notify_all();
}

void LiveStrategyRunner::timerLoop() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (timers_.empty()) {
      timerWake_.wait(lock);
      continue;
    }
    const std::int64_t due = timers_.begin()->first;
    const std::int64_t wait = due - timeMicros();
    if (wait > 0) {
      timerWake_.wait_for(lock, std::chrono::microseconds(wait));
      continue;
    }
    const int id = timers_.begin()->second;
    timers_.erase(timers_.begin());
    if (started_) strategy_.onTimer(*this, id);
  }
}

void LiveStrategyRunner::onBook(const std::vector<net::BookCell>& changed, bool snapshot) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  if (snapshot) book_.clear();
  for (const auto& c : changed) {
    if (c.levels.empty())
      book_.erase(c.key);
    else
      book_[c.key] = c.levels;
  }
  if (!started_) {
    haveBook_ = true;  // logged on and holding a snapshot: the market is there
    if (!std::exchange(askedContracts_, true)) client_->requestPositions();
    startWhenReady();
    return;
  }
  for (const auto& c : changed)
    strategy_.onBookUpdate(*this, BookChange{c.key.cluster, c.key.side, c.key.hour, c.key.hour + 1});
}

void LiveStrategyRunner::onTrade(const net::Trade& t) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  lastPrice_[t.cluster] = t.price;
  if (!started_) return;
  Contract k;  // the public tape does not name the parties or the contract
  k.trade = t.trade;
  k.cluster = t.cluster;
  k.gpus = t.gpus;
  k.start = t.start;
  k.end = t.end;
  k.price = t.price;
  strategy_.onTrade(*this, k);
}

void LiveStrategyRunner::onContracts(const std::vector<net::ContractStatus>& status) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  std::vector<OwnContract> own;
  for (const Contract& k : positions_) {
    OwnContract c{k, k.buyer == net::kOwnAccount, {}, {}};
    c.contract.buyer = c.bought ? account() : 0;
    c.contract.seller = c.bought ? 0 : account();
    for (const net::ContractStatus& st : status) {
      if (st.contract != k.id) continue;
      for (const auto& l : st.lost) c.lost.push_back({l.start, l.end, l.gpus});
      for (const auto& l : st.reclaimed) c.reclaimed.push_back({l.start, l.end, l.gpus});
    }
    own.push_back(std::move(c));
  }
  if (started_) {
    strategy_.onContracts(*this, own);
    return;
  }
  haveContracts_ = true;
  strategy_.onContracts(*this, own);
  startWhenReady();
}

void LiveStrategyRunner::startWhenReady() {
  if (started_ || !haveBook_ || !haveContracts_) return;
  started_ = true;
  strategy_.onStart(*this);
  if (strategy_.setupError()) {
    stopping_ = true;  // no more callbacks; the command reports it and calls stop()
    return;
  }
  for (const auto& [key, levels] : book_)
    strategy_.onBookUpdate(*this, BookChange{key.cluster, key.side, key.hour, key.hour + 1});
}

void LiveStrategyRunner::onClock(Hour now) {
  std::lock_guard lock(mutex_);
  // The chains the strategy asked about are refreshed every hour.
  for (Accelerator a : optionChainsAsked_) client_->requestOptionChain(a);
  if (!stopping_ && started_) strategy_.onClock(*this, now);
}

void LiveStrategyRunner::onOrder(const net::OrderUpdate& u) {
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  OrderId id = 0;
  if (auto it = byClOrdId_.find(u.clOrdId); it != byClOrdId_.end())
    id = it->second;
  else if (auto e = byExchangeId_.find(u.orderId); e != byExchangeId_.end())
    id = e->second;
  if (id == 0) return;  // not this strategy's order (another session of the account)
  Local& l = locals_[id];
  if (u.orderId != 0 && l.exchangeId == 0) {
    l.exchangeId = u.orderId;
    byExchangeId_[u.orderId] = id;
    sendHeld(l);
  }
  const AccountId me = account();
  switch (u.state) {
    case net::OrderState::Accepted: strategy_.onOrderEvent(*this, OrderAccepted{id, me}); break;
    case net::OrderState::Rejected:
      ++summary_.ordersRejected;
      strategy_.onOrderEvent(*this, OrderRejected{id, me, rejectReasonOf(u.code), u.reason});
      break;
    case net::OrderState::PartiallyFilled:
    case net::OrderState::Filled: {
      Fill f;
      f.trade = u.trade;
      f.order = id;
      f.account = me;
      f.side = l.side;
      f.cluster = u.cluster;
      f.gpus = u.gpus;
      f.start = u.start;
      f.end = u.end;
      f.price = u.price;
      f.leavesGpuHours = u.leavesGpuHours;
      const std::int64_t gh = static_cast<std::int64_t>(f.gpus) * (f.end - f.start);
      ++summary_.fills;
      (f.side == Side::Buy ? summary_.boughtGpuHours : summary_.soldGpuHours) += gh;
      (f.side == Side::Buy ? summary_.spent : summary_.received) += gh * f.price;
      strategy_.onOwnFill(*this, f);
      break;
    }
    case net::OrderState::Cancelled:
      strategy_.onOrderEvent(*this, OrderCancelled{id, me, cancelReasonOf(u.code), 0, u.leavesGpuHours});
      break;
    case net::OrderState::Amended: strategy_.onOrderEvent(*this, OrderAmended{id, me, u.limit, u.gpus, false}); break;
  }
}

}  // namespace tessera::backtest

namespace tessera::backtest {

std::uint64_t LiveStrategyRunner::placeOption(OptionOrderRequest order) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = nextOptionLocal_++;
  net::OptionNewOrder o;
  o.side = order.side;
  o.series = order.series;
  o.gpuHours = order.gpuHours;
  o.premium = order.premium;
  optionSeries_[id] = order.series;
  optionByClOrdId_[client_->placeOption(o)] = id;
  return id;
}

void LiveStrategyRunner::cancelOption(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  if (auto it = optionExchangeId_.find(id); it != optionExchangeId_.end())
    client_->cancelOption(it->second);
  else
    optionCancelsHeld_.insert(id);  // sent once option_orders numbers the order
}

OptionQuote LiveStrategyRunner::optionQuote(const indexoptions::OptionSeries& series) const {
  std::lock_guard lock(mutex_);
  if (optionChainsAsked_.insert(series.accelerator).second) client_->requestOptionChain(series.accelerator);
  auto it = optionChain_.find(series);
  return it == optionChain_.end() ? OptionQuote{} : it->second;
}

void LiveStrategyRunner::onOptionOrders(const std::vector<net::OptionWorkingOrder>& working) {
  std::lock_guard lock(mutex_);
  for (const net::OptionWorkingOrder& w : working) {
    auto it = optionByClOrdId_.find(w.clOrdId);
    if (it == optionByClOrdId_.end()) continue;
    optionExchangeId_[it->second] = w.orderId;
    if (optionCancelsHeld_.erase(it->second)) client_->cancelOption(w.orderId);
  }
}

void LiveStrategyRunner::onOptionEvent(const net::OptionEventView& e) {
  std::lock_guard lock(mutex_);
  if (stopping_ || !started_) return;
  // The same OptionUpdate the backtester's OptionReplay gives, from the exchange's reply or
  // notice: the strategy's own order ids, the series, and the cash each fill or close moved.
  OptionUpdate u;
  const auto local = optionByClOrdId_.find(e.clOrdId);
  const std::uint64_t order = local != optionByClOrdId_.end() ? local->second : 0;
  u.order = order;
  if (e.series) u.series = *e.series;
  u.text = e.reason;
  if (e.type == "option_accepted") {
    u.kind = OptionUpdate::Kind::Accepted;
    if (order) {
      if (auto s = optionSeries_.find(order); s != optionSeries_.end()) u.series = s->second;
      // The exchange's id is known: a cancel waiting for it goes now.
      optionExchangeId_[order] = e.orderId;
      if (optionCancelsHeld_.erase(order)) client_->cancelOption(e.orderId);
    }
  } else if (e.type == "option_rejected") {
    u.kind = OptionUpdate::Kind::Rejected;
    u.text = e.code + ": " + e.reason;
    if (auto s = optionSeries_.find(order); s != optionSeries_.end()) u.series = s->second;
  } else if (e.type == "option_fill") {
    u.kind = OptionUpdate::Kind::Filled;
    u.isLong = e.side == Side::Buy;
    u.position = e.position;
    u.gpuHours = e.gpuHours;
    u.premium = e.premium;
    u.amount = (u.isLong ? -1 : 1) * e.premium * e.gpuHours;
  } else if (e.type == "option_cancelled") {
    u.kind = OptionUpdate::Kind::Cancelled;
    u.gpuHours = e.gpuHours;
    if (auto s = optionSeries_.find(order); s != optionSeries_.end()) u.series = s->second;
  } else if (e.type == "option_notice") {
    u.kind = OptionUpdate::Kind::Notice;
    u.position = e.position;
    u.isLong = e.side == Side::Buy;
    u.gpuHours = e.gpuHours;
    u.premium = e.premium;
    // A margin call moves the writer's cash into its margin, not to anybody: no P&L.
    if (!e.status.empty() && e.status != "open" && optionClosedSeen_.insert(e.position).second)
      u.amount = (u.isLong ? 1 : -1) * e.paid;
  } else {
    return;
  }
  strategy_.onOptionEvent(*this, u);
}

}  // namespace tessera::backtest
