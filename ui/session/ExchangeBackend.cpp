#include "ui/session/ExchangeBackend.h"

#include "ui/session/MirrorMatcher.h"
#include "ui/session/SettlementState.h"

#include <QTimer>

#include <chrono>

namespace tessera::ui {
namespace {

std::int64_t steadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Merges one cluster's levels into a ladder, best first.
void mergeInto(std::vector<BookLevel>& into, const std::vector<BookLevel>& more, Side side) {
  for (const BookLevel& l : more) {
    auto it = std::find_if(into.begin(), into.end(), [&](const BookLevel& x) { return x.price == l.price; });
    if (it != into.end()) {
      it->gpus += l.gpus;
      it->orders += l.orders;
    } else {
      into.push_back(l);
    }
  }
  std::sort(into.begin(), into.end(), [side](const BookLevel& a, const BookLevel& b) {
    return side == Side::Sell ? a.price < b.price : a.price > b.price;
  });
}

}  // namespace

ExchangeBackend::ExchangeBackend(ExchangeEndpoint endpoint, int publishMs)
    : endpoint_(std::move(endpoint)), publishMs_(publishMs) {}

ExchangeBackend::~ExchangeBackend() {
  if (client_) client_->stop();
}

bool ExchangeBackend::runOnBook(std::function<void(const Matcher&)> job) {
  if (!client_) return false;
  const MirrorMatcher view(client_->book(), client_->clusters(), now_);
  job(view);
  return true;
}

void ExchangeBackend::start() {
  if (client_) return;
  net::ClientOptions o;
  o.host = endpoint_.host;
  o.port = endpoint_.port;
  o.account = endpoint_.account;
  o.key = endpoint_.key;
  o.tls = endpoint_.tls;
  o.caFile = endpoint_.caFile;
  // Callbacks arrive on the client's io thread: hop to ours before touching anything.
  net::ClientCallbacks cb;
  cb.onConnection = [this](net::ConnectionState s, const std::string& d) {
    QMetaObject::invokeMethod(
        this, [this, s, d] { onConnection(s, d); }, Qt::QueuedConnection);
  };
  cb.onBook = [this](const std::vector<net::BookCell>&, bool) {
    QMetaObject::invokeMethod(
        this,
        [this] {
          if (!bookDirty_) dirtySinceNs_ = steadyNowNs();
          bookDirty_ = true;
        },
        Qt::QueuedConnection);
  };
  cb.onTrade = [this](const net::Trade& t) {
    QMetaObject::invokeMethod(
        this, [this, t] { onTrade(t); }, Qt::QueuedConnection);
  };
  cb.onOrder = [this](const net::OrderUpdate& u) {
    QMetaObject::invokeMethod(
        this, [this, u] { onOrder(u); }, Qt::QueuedConnection);
  };
  cb.onBalance = [this](const net::Balance& b) {
    QMetaObject::invokeMethod(
        this,
        [this, b] {
          balance_ = b;
          accountDirty_ = true;
        },
        Qt::QueuedConnection);
  };
  cb.onOrders = [this](const std::vector<net::WorkingOrder>& w) {
    QMetaObject::invokeMethod(
        this,
        [this, w] {
          working_.clear();
          for (const net::WorkingOrder& x : w) {
            OrderView v;
            v.request = x.request;
            v.request.id = x.orderId;  // cancels go by the exchange's id
            v.request.account = kMe;
            v.filledGpuHours = x.filledGpuHours;
            v.leavesGpuHours = x.leavesGpuHours;
            working_.push_back(v);
          }
          emit workingOrdersChanged(working_);
          accountDirty_ = true;
        },
        Qt::QueuedConnection);
  };
  cb.onPositions = [this](const std::vector<Contract>& c) {
    QMetaObject::invokeMethod(
        this, [this, c] { onPositions(c); }, Qt::QueuedConnection);
  };
  cb.onError = [this](const net::RequestError& e) {
    QMetaObject::invokeMethod(
        this,
        [this, e] {
          emit errorOccurred(tr("The exchange refused a %1 request (%2): %3")
                                 .arg(QString::fromStdString(e.requestType), QString::fromStdString(e.code),
                                      QString::fromStdString(e.reason)));
        },
        Qt::QueuedConnection);
  };
  cb.onClock = [this](Hour h) {
    QMetaObject::invokeMethod(
        this,
        [this, h] {
          now_ = h;
          emit clockChanged(h);
          accountDirty_ = true;
        },
        Qt::QueuedConnection);
  };
  cb.onSettlement = [this](const net::SettlementNotice& n) {
    SettlementNote note;
    note.contract = n.contract;
    note.state = parseContractState(n.state);
    note.stateName = QString::fromStdString(n.state);
    note.what = QString::fromStdString(n.what);
    note.exchangeHour = n.now;
    QMetaObject::invokeMethod(
        this,
        [this, note] {
          emit settlementNoted({note});
          // The notice moved money (escrow, credits): the balance and positions say how much.
          if (client_) {
            client_->requestBalance();
            client_->requestPositions();
          }
        },
        Qt::QueuedConnection);
  };
  cb.onIndex = [this](const std::vector<IndexPoint>& points) {
    // Reference values move with the index: the chain on screen is asked for again.
    if (const int a = optionClass_; a >= 0 && client_ && !chainAsked_.exchange(true))
      client_->requestOptionChain(static_cast<Accelerator>(a));
    QMetaObject::invokeMethod(
        this, [this, points] { emit indexPublished(points); }, Qt::QueuedConnection);
  };
  cb.onReclaimRates = [this](const std::vector<net::ReclaimRate>& rates) { emit reclaimRatesChanged(rates); };
  // Forward callbacks carry plain values: signals queued straight to the session.
  cb.onForwardBook = [this](const net::ForwardBookView& b) { emit forwardBookChanged(b); };
  cb.onForwardOrders = [this](const std::vector<net::ForwardWorkingOrder>& o, Money) { emit forwardOrdersChanged(o); };
  cb.onForwardPositions = [this](const std::vector<net::ForwardPositionView>& p) { emit forwardPositionsChanged(p); };
  cb.onForwardEvent = [this](const std::string&, const std::string& text) {
    emit forwardNoted(QString::fromStdString(text));
  };
  cb.onOptionChain = [this](const net::OptionChainView& c) {
    chainAsked_ = false;
    emit optionChainChanged(c);
  };
  cb.onOptionEvent = [this](const net::OptionEventView& e) { emit optionNoted(QString::fromStdString(e.text)); };
  cb.onOptionMarketData = [this](const std::string&) {
    const int a = optionClass_;
    if (a >= 0 && client_ && !chainAsked_.exchange(true)) client_->requestOptionChain(static_cast<Accelerator>(a));
  };
  cb.onContractStatus = [this](const std::vector<net::ContractStatus>& status) {
    std::vector<ContractSettlementStatus> out;
    out.reserve(status.size());
    for (const net::ContractStatus& x : status) {
      out.push_back(ContractSettlementStatus{x.contract, parseContractState(x.state), QString::fromStdString(x.state),
                                             x.deliveredGpuHours, x.escrow, x.replaces});
    }
    QMetaObject::invokeMethod(
        this,
        [this, out = std::move(out), status] {
          restoreFills(status);
          escrowOf_.clear();
          for (const ContractSettlementStatus& x : out) escrowOf_[x.contract] = x.escrow;
          accountDirty_ = true;
          emit contractStatusChanged(out);
        },
        Qt::QueuedConnection);
  };
  cb.onCall = [this](const net::CallReport& report, bool indicative) {
    QMetaObject::invokeMethod(
        this,
        [this, report, indicative] {
          if (!client_) return;
          if (indicative) {
            callView_.indicative = report;
          } else {
            // The call changed the waiting orders: what the next one would clear is asked again.
            callView_.indicative.reset();
            client_->requestIndicative();
          }
          callView_.last = client_->lastCall();
          callView_.schedule = client_->callSchedule();
          emit callAuctionChanged(callView_);
        },
        Qt::QueuedConnection);
  };
  cb.onRoundTrip = [this](std::chrono::nanoseconds rtt) {
    emit roundTripMeasured(static_cast<double>(rtt.count()) / 1e6);
  };
  cb.onOrderStatus = [this](const net::OrderStatusReply& r) {
    QMetaObject::invokeMethod(
        this, [this, r] { onOrderStatus(r); }, Qt::QueuedConnection);
  };
  cb.onOrderHistory = [this](const std::vector<net::OrderStatusReply>& orders) {
    QMetaObject::invokeMethod(
        this, [this, orders] { onOrderHistory(orders); }, Qt::QueuedConnection);
  };
  emit connectionChanged(ConnectionState::Connecting,
                         tr("connecting to %1:%2").arg(QString::fromStdString(endpoint_.host)).arg(endpoint_.port));
  client_ = std::make_unique<net::ExchangeClient>(o, cb);
  client_->start();
  timer_ = new QTimer(this);
  connect(timer_, &QTimer::timeout, this, &ExchangeBackend::publish);
  timer_->start(publishMs_);
  pingTimer_ = new QTimer(this);
  connect(pingTimer_, &QTimer::timeout, this, [this] {
    if (!client_) return;
    client_->ping();
    // Other traders' orders change the next call's clearing: it is asked again as often.
    if (callView_.any()) client_->requestIndicative();
  });
  pingTimer_->start(kPingMs);
}

void ExchangeBackend::stop() {
  if (timer_) timer_->stop();
  if (pingTimer_) pingTimer_->stop();
  if (client_) client_->stop();
  client_.reset();
}

void ExchangeBackend::onConnection(net::ConnectionState s, const std::string& detail) {
  if (!client_) return;  // stopped while this was queued
  const QString where = QStringLiteral("%1:%2").arg(QString::fromStdString(endpoint_.host)).arg(endpoint_.port);
  switch (s) {
    case net::ConnectionState::Connecting:
      emit connectionChanged(ConnectionState::Connecting, tr("connecting to %1").arg(where));
      break;
    case net::ConnectionState::LoggedOn:
      emit connectionChanged(ConnectionState::Connected, tr("exchange %1").arg(where));
      // Sent on every logon: a restarted exchange may list other clusters.
      clustersSent_ = true;
      emit clustersChanged(client_->clusters());
      now_ = client_->now();
      emit clockChanged(now_);
      client_->requestBalance();
      client_->requestOrders();
      client_->requestPositions();
      client_->requestOrderHistory();
      client_->ping();
      callView_ = CallAuctionView{client_->callSchedule(), std::nullopt, client_->lastCall()};
      emit callAuctionChanged(callView_);
      if (callView_.any()) client_->requestIndicative();
      break;
    case net::ConnectionState::Disconnected:
      emit connectionChanged(ConnectionState::Disconnected,
                             tr("lost %1 (%2), reconnecting").arg(where, QString::fromStdString(detail)));
      break;
    case net::ConnectionState::AuthFailed:
      emit connectionChanged(ConnectionState::Disconnected,
                             tr("%1 refused account %2").arg(where, QString::fromStdString(endpoint_.account)));
      emit errorOccurred(tr("The exchange at %1 refused the credentials of account '%2': %3")
                             .arg(where, QString::fromStdString(endpoint_.account), QString::fromStdString(detail)));
      break;
    case net::ConnectionState::Stopped:
      emit connectionChanged(ConnectionState::Disconnected, tr("disconnected"));
      break;
  }
}

void ExchangeBackend::submit(OrderRequest order) {
  if (!client_) return;
  const std::string clOrdId = clOrdIdFor(order.id);
  sent_[clOrdId] = order;
  client_->placeOrder(order, clOrdId);
  if (callView_.any()) client_->requestIndicative();  // the order may join the next call
}

void ExchangeBackend::cancel(OrderId order) {
  if (client_) client_->cancel(order);
}

void ExchangeBackend::amend(OrderId order, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  if (client_) client_->amend(order, limit, gpus);
}

void ExchangeBackend::watch(std::vector<ClusterId> clusters, Hour firstHour, int hours) {
  watched_ = std::move(clusters);
  watchFirst_ = firstHour;
  watchHours_ = std::clamp(hours, 0, 24 * 400);
  if (!bookDirty_) dirtySinceNs_ = steadyNowNs();
  bookDirty_ = true;
}

void ExchangeBackend::submitForward(net::ForwardNewOrder order) {
  if (client_) client_->placeForward(std::move(order));
}

void ExchangeBackend::cancelForward(quint64 orderId) {
  if (client_) client_->cancelForward(orderId);
}

void ExchangeBackend::watchForward(Accelerator accelerator, Hour weekStart) {
  if (client_) client_->requestForwardBook(accelerator, weekStart);
}

void ExchangeBackend::submitOption(net::OptionNewOrder order) {
  if (client_) client_->placeOption(std::move(order));
}

void ExchangeBackend::watchOptionChain(Accelerator accelerator) {
  optionClass_ = static_cast<int>(accelerator);
  chainAsked_ = true;
  if (client_) client_->requestOptionChain(accelerator);
}

void ExchangeBackend::reportDelivery(DeliveryReport r) {
  if (!client_) return;
  client_->reportDelivery(r.contract, r.start, r.end, r.usableGpus, r.problem);
}

void ExchangeBackend::onOrder(const net::OrderUpdate& u) {
  if (!client_) return;
  const auto sent = sent_.find(u.clOrdId);
  // The session numbered the order; its id is in the client order id we chose.
  const OrderId sessionId = sent != sent_.end() ? sent->second.id : u.orderId;
  if (sent != sent_.end() && u.orderId) {
    byExchangeId_[u.orderId] = sent->second;
    sessionIdOf_[u.orderId] = sessionId;
  }
  switch (u.state) {
    case net::OrderState::Accepted:
      if (u.orderId) emit orderNumbered(sessionId, u.orderId);
      emit orderAccepted(sessionId);
      break;
    case net::OrderState::Rejected:
      if (sent != sent_.end()) finish(0, sent->second, FinishedState::Rejected, u.code, now_);
      emit orderRejected(sessionId, QString::fromStdString(u.code + (u.reason.empty() ? "" : ": " + u.reason)));
      break;
    case net::OrderState::PartiallyFilled:
    case net::OrderState::Filled: {
      Fill f;
      f.trade = u.trade;
      f.order = u.orderId;
      f.account = kMe;
      const auto it = byExchangeId_.find(u.orderId);
      f.side = it != byExchangeId_.end() ? it->second.side : Side::Buy;
      f.cluster = u.cluster;
      f.gpus = u.gpus;
      f.start = u.start;
      f.end = u.end;
      f.price = u.price;
      f.leavesGpuHours = u.leavesGpuHours;
      f.aggressor = u.aggressor;
      if (u.call) pendingCallTrades_.push_back(u.trade);
      pendingFills_.push_back(f);
      filledOf_[u.orderId] += static_cast<std::int64_t>(u.gpus) * (u.end - u.start);
      if (u.leavesGpuHours == 0)
        finish(u.orderId, it != byExchangeId_.end() ? it->second : OrderRequest{}, FinishedState::Filled, {}, now_);
      ourTrades_.insert(u.trade);
      client_->requestPositions();
      client_->requestBalance();
      break;
    }
    case net::OrderState::Cancelled:
      if (const auto it = byExchangeId_.find(u.orderId); u.leavesGpuHours == 0)
        finish(u.orderId, it != byExchangeId_.end() ? it->second : OrderRequest{},
               u.code == "expired" ? FinishedState::Expired : FinishedState::Cancelled, u.code, now_);
      emit orderCancelled(sessionId, QString::fromStdString(u.code));
      break;
    case net::OrderState::Amended: break;
  }
  client_->requestOrders();
}

void ExchangeBackend::finish(OrderId exchangeId, const OrderRequest& request, FinishedState state,
                             const std::string& code, std::optional<Hour> at) {
  FinishedOrder f;
  f.order = exchangeId;
  f.request = request;
  // The last amend (and an order sent before this terminal started): the working orders list
  // has the order as the exchange holds it.
  for (const OrderView& w : working_)
    if (exchangeId && w.request.id == exchangeId) f.request = w.request;
  if (f.request.gpus == 0) return;  // not an order of this account that the terminal knows
  if (exchangeId && !finished_.insert(exchangeId).second) return;
  f.request.id = exchangeId;
  f.state = state;
  f.why = QString::fromStdString(code);
  f.at = at;
  if (const auto it = filledOf_.find(exchangeId); exchangeId && it != filledOf_.end()) f.filledGpuHours = it->second;
  pendingFinished_.push_back(std::move(f));
}

void ExchangeBackend::restoreFills(const std::vector<net::ContractStatus>& status) {
  if (!client_) return;
  std::map<ContractId, bool> took, inCall;
  for (const net::ContractStatus& s : status) {
    took[s.contract] = s.aggressor;
    inCall[s.contract] = s.inCall;
  }
  std::set<OrderId> working;
  for (const OrderView& w : working_) working.insert(w.request.id);
  for (const Contract& c : contracts_) {
    if (c.trade == 0 || ourTrades_.count(c.trade)) continue;  // a replacement, or a fill already shown
    Fill f;
    f.trade = c.trade;
    f.contract = c.id;
    f.account = kMe;
    f.side = c.buyer == kMe ? Side::Buy : Side::Sell;
    f.order = f.side == Side::Buy ? c.buyOrder : c.sellOrder;
    f.aggressor = took[c.id];
    if (inCall[c.id]) pendingCallTrades_.push_back(c.trade);
    f.cluster = c.cluster;
    f.gpus = c.gpus;
    f.start = c.start;
    f.end = c.end;
    f.price = c.price;
    pendingFills_.push_back(f);
    ourTrades_.insert(c.trade);
    // An order that traded and no longer works: the exchange says how it ended.
    if (f.order && !working.count(f.order) && finished_.insert(f.order).second) client_->requestOrderStatus(f.order);
  }
}

void ExchangeBackend::onOrderStatus(const net::OrderStatusReply& r) {
  if (r.status == "working" || !r.orderId) return;
  finished_.erase(r.orderId);  // asked for, now answered
  filledOf_[r.orderId] = r.filledGpuHours;
  finish(r.orderId, r.order, r.status == "filled" ? FinishedState::Filled : FinishedState::Cancelled, {}, std::nullopt);
}

// Orders that ended before this terminal started (or while it was away), traded or not; one the
// history already shows, or whose order_status is asked for (restoreFills), is not added twice.
void ExchangeBackend::onOrderHistory(const std::vector<net::OrderStatusReply>& orders) {
  for (const net::OrderStatusReply& r : orders) {
    if (r.status == "working" || !r.orderId || finished_.count(r.orderId)) continue;
    filledOf_[r.orderId] = r.filledGpuHours;
    finish(r.orderId, r.order, r.status == "filled" ? FinishedState::Filled : FinishedState::Cancelled, {},
           std::nullopt);
  }
}

void ExchangeBackend::onTrade(const net::Trade& t) {
  TradePrint p;
  p.trade = t.trade;
  p.cluster = t.cluster;
  p.gpus = t.gpus;
  p.start = t.start;
  p.end = t.end;
  p.price = t.price;
  p.exchangeTime = now_;
  p.aggressor = t.aggressor;
  p.call = t.call;
  p.mine = ourTrades_.count(t.trade) > 0;
  lastTrade_[t.cluster] = t.price;
  pendingTrades_.push_back(p);
}

void ExchangeBackend::onPositions(std::vector<Contract> contracts) {
  // ExchangeClient names us (net::kOwnAccount) as buyer or seller from the exchange's side field:
  // a replacement contract has no buy order and is still ours as buyer.
  static_assert(net::kOwnAccount == kMe);
  contracts_ = std::move(contracts);
  accountDirty_ = true;
}

Price ExchangeBackend::markPrice(const net::BookMirror& book, ClusterId cluster, Hour h, Price fallback) const {
  if (const auto* bids = book.levels({cluster, h, Side::Buy}); bids && !bids->empty()) return bids->front().price;
  if (auto it = lastTrade_.find(cluster); it != lastTrade_.end()) return it->second;
  return fallback;
}

void ExchangeBackend::publish() {
  if (!client_) return;
  const bool quotesDue = !sinceQuotes_.isValid() || sinceQuotes_.elapsed() >= 1000;
  const bool needBook = bookDirty_ || accountDirty_ || quotesDue;
  net::BookMirror book;
  if (needBook) book = client_->book();
  if (bookDirty_ && beginBookSnapshot()) {
    bookDirty_ = false;
    auto s = std::make_shared<BookSnapshot>();
    s->clusters = watched_;
    s->firstHour = watchFirst_;
    s->now = now_;
    s->changedAtNs = dirtySinceNs_ ? dirtySinceNs_ : steadyNowNs();
    s->cells.resize(static_cast<std::size_t>(watchHours_));
    for (ClusterId c : watched_) {
      for (int i = 0; i < watchHours_; ++i) {
        const Hour h = watchFirst_ + i;
        if (const auto* a = book.levels({c, h, Side::Sell}))
          mergeInto(s->cells[static_cast<std::size_t>(i)].asks, *a, Side::Sell);
        if (const auto* b = book.levels({c, h, Side::Buy}))
          mergeInto(s->cells[static_cast<std::size_t>(i)].bids, *b, Side::Buy);
      }
    }
    emit bookChanged(std::move(s));
  }
  if (quotesDue) {
    sinceQuotes_.restart();
    std::vector<ClusterQuote> quotes;
    for (const Cluster& c : client_->clusters()) {
      ClusterQuote q;
      q.cluster = c.id;
      for (Hour h = now_; h < now_ + kHoursPerDay; ++h) {
        if (const auto* a = book.levels({c.id, h, Side::Sell});
            a && !a->empty() && (!q.bestAsk || a->front().price < *q.bestAsk))
          q.bestAsk = a->front().price;
        if (const auto* b = book.levels({c.id, h, Side::Buy});
            b && !b->empty() && (!q.bestBid || b->front().price > *q.bestBid))
          q.bestBid = b->front().price;
      }
      if (auto it = lastTrade_.find(c.id); it != lastTrade_.end()) q.lastTrade = it->second;
      quotes.push_back(q);
    }
    emit clusterQuotesChanged(std::move(quotes));
  }
  if (!pendingTrades_.empty()) emit tradesPrinted(std::exchange(pendingTrades_, {}));
  if (!pendingCallTrades_.empty()) emit callTradesNoted(std::exchange(pendingCallTrades_, {}));
  if (!pendingFills_.empty()) emit ownFills(std::exchange(pendingFills_, {}));
  if (!pendingFinished_.empty()) emit ordersFinished(std::exchange(pendingFinished_, {}));
  if (accountDirty_) {
    accountDirty_ = false;
    AccountSummary a;
    a.name = QString::fromStdString(endpoint_.account);
    a.id = kMe;
    a.balance = balance_.cash;
    a.reserved = balance_.reserved;
    a.settlementKnown = true;
    a.escrow = balance_.escrow;
    a.credits = balance_.credits;
    HeldPositions held = heldPositions(contracts_, kMe, now_, [&](ClusterId cluster, Hour h, Price fallback) {
      return markPrice(book, cluster, h, fallback);
    });
    a.markValue = held.totals.markValue;
    a.remainingCost = held.totals.remainingCost;
    a.realisedPnl = held.totals.realisedPnl;
    a.soldOnCost = held.totals.soldOnCost;
    for (const Contract& c : contracts_) {
      if (c.seller != kMe) continue;
      if (const auto e = escrowOf_.find(c.id); e != escrowOf_.end()) a.proceedsDue += e->second;
    }
    std::vector<ContractMark> marks = std::move(held.contracts);
    emit contractsChanged(contracts_, std::move(marks));
    emit accountChanged(a);
  }
}

}  // namespace tessera::ui
