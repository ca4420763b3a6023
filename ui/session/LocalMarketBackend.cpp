#include "ui/session/LocalMarketBackend.h"

#include "ui/session/BookSnapshotBuilder.h"

#include <QTimer>

#include <algorithm>
#include <chrono>
#include <set>
#include <utility>

namespace tessera::ui {
namespace {

std::int64_t steadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

LocalMarketBackend::LocalMarketBackend(MarketFeedFactory feed, QString accountName, LocalMarketOptions options)
    : makeFeed_(std::move(feed)),
      matcher_(makeMatchingEngine()),
      accountName_(std::move(accountName)),
      options_(options),
      cash_(options.startingCash) {
  me_ = accounts_.intern(accountName_.toStdString());
}

LocalMarketBackend::~LocalMarketBackend() = default;

void LocalMarketBackend::start() {
  emit connectionChanged(ConnectionState::Connecting, tr("starting embedded exchange"));
  if (!feed_ && makeFeed_) feed_ = makeFeed_(accounts_);
  if (!timer_) {
    // Created here, not in the constructor, so the timer belongs to the worker thread.
    timer_ = new QTimer(this);
    timer_->setTimerType(Qt::PreciseTimer);
    connect(timer_, &QTimer::timeout, this, &LocalMarketBackend::tick);
  }
  timer_->start(options_.tickMs);
  sincePublish_.start();
  sinceQuotes_.start();
  const QString what = feed_ ? QString::fromStdString(feed_->describe()) : tr("no market feed");
  emit connectionChanged(ConnectionState::Connected, tr("embedded exchange, %1").arg(what));
  tick();
  publish(true);
}

void LocalMarketBackend::stop() {
  if (timer_) timer_->stop();
  emit connectionChanged(ConnectionState::Disconnected, tr("embedded exchange stopped"));
}

void LocalMarketBackend::submit(OrderRequest order) {
  order.account = me_;
  apply(order);
  publish(true);
}

void LocalMarketBackend::cancel(OrderId order) {
  apply(CancelRequest{order, me_});
  publish(true);
}

void LocalMarketBackend::amend(OrderId order, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  apply(AmendRequest{order, me_, limit, gpus});
  publish(true);
}

void LocalMarketBackend::watch(std::vector<ClusterId> clusters, Hour firstHour, int hours) {
  watched_ = std::move(clusters);
  watchFirst_ = firstHour;
  watchHours_ = std::clamp(hours, 0, 24 * 400);
  if (!bookDirty_) dirtySinceNs_ = steadyNowNs();
  bookDirty_ = true;
  publish(true);
}

bool LocalMarketBackend::runOnBook(std::function<void(const Matcher&)> job) {
  job(*matcher_);
  return true;
}

void LocalMarketBackend::inject(std::vector<InputEvent> inputs) {
  for (const InputEvent& in : inputs) apply(in);
}

void LocalMarketBackend::publishNow() { publish(true); }

void LocalMarketBackend::tick() {
  if (feed_) {
    for (int i = 0; i < options_.feedStepsPerTick; ++i) {
      for (const InputEvent& in : feed_->step()) apply(in);
    }
  }
  publish(false);
}

void LocalMarketBackend::apply(const InputEvent& in) {
  events_.clear();
  try {
    matcher_->apply(in, events_);
  } catch (const std::exception& ex) {
    // A bug in the engine must not take the terminal down with it; say so loudly instead.
    emit errorOccurred(tr("The matching engine failed on an input: %1").arg(QString::fromUtf8(ex.what())));
    return;
  }
  if (!bookDirty_) dirtySinceNs_ = steadyNowNs();
  bookDirty_ = true;
  for (const Event& e : events_) handle(e);
}

void LocalMarketBackend::handle(const Event& e) {
  std::visit(
      [this](const auto& ev) {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, ClusterAdded>) {
          clustersDirty_ = true;
        } else if constexpr (std::is_same_v<T, OrderAccepted>) {
          if (ev.account == me_) {
            ordersDirty_ = true;
            emit orderAccepted(ev.order);
          }
        } else if constexpr (std::is_same_v<T, OrderRejected>) {
          if (ev.account == me_) {
            QString why = QString::fromUtf8(toString(ev.reason).data(), static_cast<int>(toString(ev.reason).size()));
            if (!ev.detail.empty()) why += ": " + QString::fromStdString(ev.detail);
            emit orderRejected(ev.order, why);
          }
        } else if constexpr (std::is_same_v<T, Fill>) {
          if (ev.side == Side::Buy) {
            // Every trade has a buy fill first: one print per trade.
            TradePrint t;
            t.trade = ev.trade;
            t.cluster = ev.cluster;
            t.gpus = ev.gpus;
            t.start = ev.start;
            t.end = ev.end;
            t.price = ev.price;
            t.exchangeTime = matcher_->now();
            t.aggressor = ev.aggressor ? Side::Buy : Side::Sell;
            t.mine = ev.account == me_;
            pendingTrades_.push_back(t);
            lastTrade_[ev.cluster] = ev.price;
            if (const Cluster* c = matcher_->cluster(ev.cluster))
              index_.record(tessera::TradePrint{t.exchangeTime, c->accelerator, ev.start,
                                                static_cast<std::int64_t>(ev.gpus) * (ev.end - ev.start), ev.price});
          } else if (ev.account == me_ && !pendingTrades_.empty() && pendingTrades_.back().trade == ev.trade) {
            pendingTrades_.back().mine = true;
          }
          if (ev.account == me_) {
            const Money notional = ev.price * ev.gpus * (ev.end - ev.start);
            cash_ += ev.side == Side::Buy ? -notional : notional;
            pendingFills_.push_back(ev);
            if (ev.leavesGpuHours == 0) finish(ev.order, FinishedState::Filled, {});
            ordersDirty_ = true;
            contractsDirty_ = true;
          }
        } else if constexpr (std::is_same_v<T, ContractCreated>) {
          if (ev.contract.buyer == me_ || ev.contract.seller == me_) contractsDirty_ = true;
        } else if constexpr (std::is_same_v<T, OrderCancelled>) {
          if (ev.account == me_) {
            ordersDirty_ = true;
            const QString why =
                QString::fromUtf8(toString(ev.reason).data(), static_cast<int>(toString(ev.reason).size()));
            if (ev.leavesGpuHours == 0)
              finish(ev.order, ev.reason == CancelReason::Expired ? FinishedState::Expired : FinishedState::Cancelled,
                     why);
            emit orderCancelled(ev.order, why);
          }
        } else if constexpr (std::is_same_v<T, OrderAmended>) {
          if (ev.account == me_) ordersDirty_ = true;
        } else if constexpr (std::is_same_v<T, ClockAdvanced>) {
          ordersDirty_ = true;       // expiry may have removed hours of our orders
          contractsDirty_ = true;    // marks cover the remaining hours only
          publishIndex(ev.now - 1);  // the hour before the clock is over
        }
      },
      e);
}

void LocalMarketBackend::finish(OrderId id, FinishedState state, QString why) {
  const auto v = matcher_->order(id);
  if (!v) return;
  pendingFinished_.push_back(FinishedOrder{id, v->request, state, std::move(why), matcher_->now(), v->filledGpuHours});
}

void LocalMarketBackend::publishIndex(Hour asOf) {
  if (asOf <= indexedUntil_) return;
  // The first hour seen starts the series: earlier hours had no trades this backend saw.
  const Hour from = indexedUntil_ < 0 ? asOf : indexedUntil_ + 1;
  indexedUntil_ = asOf;
  std::set<Accelerator> classes;
  for (const Cluster& c : matcher_->clusters()) classes.insert(c.accelerator);
  for (Hour h = from; h <= asOf; ++h) {
    for (Accelerator a : classes) {
      for (Tenor t : kTenors) {
        if (const auto v = index_.value(a, t, h))
          pendingIndex_.push_back(IndexPoint{a, t, h, v->price, v->gpuHours, v->trades, v->stale});
      }
    }
  }
}

Price LocalMarketBackend::markPrice(ClusterId cluster, Hour h, Price fallback) const {
  // What the hour would sell for now: the best bid; without one, the last trade on the cluster.
  const auto bid = matcher_->depth(cluster, h, Side::Buy, 1);
  if (!bid.empty()) return bid.front().price;
  if (auto it = lastTrade_.find(cluster); it != lastTrade_.end()) return it->second;
  return fallback;
}

std::vector<ClusterQuote> LocalMarketBackend::quoteClusters() const {
  std::vector<ClusterQuote> quotes;
  const Hour now = matcher_->now();
  for (const Cluster& c : matcher_->clusters()) {
    ClusterQuote q;
    q.cluster = c.id;
    for (Hour h = now; h < now + kHoursPerDay; ++h) {
      const auto ask = matcher_->depth(c.id, h, Side::Sell, 1);
      if (!ask.empty() && (!q.bestAsk || ask.front().price < *q.bestAsk)) q.bestAsk = ask.front().price;
      const auto bid = matcher_->depth(c.id, h, Side::Buy, 1);
      if (!bid.empty() && (!q.bestBid || bid.front().price > *q.bestBid)) q.bestBid = bid.front().price;
    }
    if (auto it = lastTrade_.find(c.id); it != lastTrade_.end()) q.lastTrade = it->second;
    quotes.push_back(q);
  }
  return quotes;
}

void LocalMarketBackend::publish(bool force) {
  if (!force && sincePublish_.isValid() && sincePublish_.elapsed() < options_.publishMs) return;
  sincePublish_.restart();
  if (clustersDirty_) {
    clustersDirty_ = false;
    emit clustersChanged(matcher_->clusters());
  }
  if (matcher_->now() != publishedNow_) {
    publishedNow_ = matcher_->now();
    emit clockChanged(publishedNow_);
  }
  // Pipelined: the next snapshot is built while the GUI paints the previous one, and sent as
  // soon as the GUI has taken that.
  if (bookDirty_ && !readySnapshot_) {
    bookDirty_ = false;
    readySnapshot_ = std::make_shared<BookSnapshot>(
        takeBookSnapshot(*matcher_, watched_, watchFirst_, watchHours_, options_.maxLevels));
    readySnapshot_->changedAtNs = dirtySinceNs_ ? dirtySinceNs_ : steadyNowNs();
  }
  if (readySnapshot_ && beginBookSnapshot()) emit bookChanged(std::exchange(readySnapshot_, nullptr));
  if (!pendingTrades_.empty()) {
    emit tradesPrinted(std::move(pendingTrades_));
    pendingTrades_.clear();
  }
  if (!pendingFinished_.empty()) emit ordersFinished(std::exchange(pendingFinished_, {}));
  if (!pendingFills_.empty()) {
    emit ownFills(std::move(pendingFills_));
    pendingFills_.clear();
  }
  if (!pendingIndex_.empty()) emit indexPublished(std::exchange(pendingIndex_, {}));
  const bool accountDue = ordersDirty_ || contractsDirty_ || force || sinceQuotes_.elapsed() >= 1000;
  std::vector<OrderView> working;
  if (accountDue) working = matcher_->workingOrders(me_);
  if (ordersDirty_) {
    ordersDirty_ = false;
    emit workingOrdersChanged(working);
  }
  if (accountDue) {
    contractsDirty_ = false;
    std::vector<Contract> contracts = matcher_->contractsOf(me_);
    HeldPositions held =
        heldPositions(contracts, me_, matcher_->now(),
                      [this](ClusterId cluster, Hour h, Price fallback) { return markPrice(cluster, h, fallback); });
    AccountSummary a;
    a.name = accountName_;
    a.id = me_;
    a.balance = cash_;
    for (const OrderView& o : working) {
      if (o.request.side == Side::Buy) a.reserved += o.request.limit * o.leavesGpuHours;
    }
    a.markValue = held.totals.markValue;
    a.remainingCost = held.totals.remainingCost;
    a.realisedPnl = held.totals.realisedPnl;
    emit contractsChanged(std::move(contracts), std::move(held.contracts));
    emit accountChanged(a);
  }
  if (force || sinceQuotes_.elapsed() >= 1000) {
    sinceQuotes_.restart();
    emit clusterQuotesChanged(quoteClusters());
  }
}

}  // namespace tessera::ui
