#include "ui/session/TradingSession.h"

#include "ui/session/SettlementState.h"

#include <QDateTime>

#include <algorithm>

namespace tessera::ui {
namespace {

void registerTypes() {
  static const bool done = [] {
    qRegisterMetaType<BookSnapshotPtr>();
    qRegisterMetaType<TradePrint>();
    qRegisterMetaType<AccountSummary>();
    qRegisterMetaType<std::vector<FinishedOrder>>();
    qRegisterMetaType<ConnectionState>();
    qRegisterMetaType<OrderRequest>();
    qRegisterMetaType<std::vector<Cluster>>();
    qRegisterMetaType<std::vector<OrderView>>();
    qRegisterMetaType<std::vector<Contract>>();
    qRegisterMetaType<std::vector<Fill>>();
    qRegisterMetaType<std::vector<TradeId>>();
    qRegisterMetaType<std::vector<TradePrint>>();
    qRegisterMetaType<std::vector<ClusterQuote>>();
    qRegisterMetaType<std::vector<ContractMark>>();
    qRegisterMetaType<std::vector<ClusterId>>();
    qRegisterMetaType<std::vector<SettlementNote>>();
    qRegisterMetaType<std::vector<ContractSettlementStatus>>();
    qRegisterMetaType<std::vector<IndexPoint>>();
    qRegisterMetaType<CallAuctionView>();
    qRegisterMetaType<net::ForwardBookView>();
    qRegisterMetaType<std::vector<net::ForwardWorkingOrder>>();
    qRegisterMetaType<std::vector<net::ForwardPositionView>>();
    qRegisterMetaType<net::ForwardNewOrder>();
    qRegisterMetaType<net::OptionChainView>();
    qRegisterMetaType<std::vector<net::ReclaimRate>>();
    qRegisterMetaType<tessera::OrderId>("tessera::OrderId");
    qRegisterMetaType<tessera::Hour>("tessera::Hour");
    qRegisterMetaType<tessera::ClusterId>("tessera::ClusterId");
    return true;
  }();
  (void)done;
}

}  // namespace

TradingSession::TradingSession(std::unique_ptr<MarketBackend> backend, QObject* parent)
    : QObject(parent), backend_(backend.release()) {
  registerTypes();
  settles_ = backend_->settlesContracts();
  indexSource_ = backend_->indexSource();
  forwards_ = backend_->tradesForwards();
  measuresRoundTrip_ = backend_->measuresRoundTrip();
  clock_.start();
  // Ids are the sender's to choose and must never repeat on an exchange that outlives us:
  // start from the wall clock, far above the small ids simulated participants use.
  nextOrderId_ = (OrderId{1} << 56) + (static_cast<OrderId>(QDateTime::currentMSecsSinceEpoch()) << 8);
  thread_.setObjectName("market-backend");
  backend_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, backend_, &QObject::deleteLater);
  connectBackend();
  thread_.start();
}

TradingSession::~TradingSession() {
  QMetaObject::invokeMethod(backend_, &MarketBackend::stop, Qt::QueuedConnection);
  thread_.quit();
  thread_.wait();
}

void TradingSession::connectBackend() {
  auto* b = backend_;
  connect(b, &MarketBackend::connectionChanged, this, [this](ConnectionState s, QString d) {
    connection_ = s;
    connectionDetail_ = d;
    emit connectionChanged();
  });
  connect(b, &MarketBackend::clustersChanged, this, [this](std::vector<Cluster> c) {
    clusters_ = std::move(c);
    emit clustersChanged();
  });
  connect(b, &MarketBackend::clusterQuotesChanged, this, [this](std::vector<ClusterQuote> q) {
    quotes_ = std::move(q);
    emit clusterQuotesChanged();
  });
  connect(b, &MarketBackend::bookChanged, this, [this, b](BookSnapshotPtr p) {
    book_ = std::move(p);
    emit bookChanged();
    b->bookSnapshotTaken();
  });
  connect(b, &MarketBackend::tradesPrinted, this, [this](std::vector<TradePrint> t) {
    for (const TradePrint& p : t) trades_.push_back(p);
    while (trades_.size() > kTradeHistory) trades_.pop_front();
    emit tradesPrinted(t);
  });
  connect(b, &MarketBackend::clockChanged, this, [this](Hour h) {
    now_ = h;
    emit clockChanged(h);
  });
  connect(b, &MarketBackend::orderAccepted, this, [this](OrderId id) {
    noteReply(id);
    emit orderAccepted(id);
  });
  connect(b, &MarketBackend::orderNumbered, this,
          [this](OrderId sent, OrderId numbered) { numbered_.insert(sent, numbered); });
  connect(b, &MarketBackend::orderRejected, this, [this](OrderId id, QString why) {
    noteReply(id);
    emit orderRejected(id, why);
  });
  connect(b, &MarketBackend::orderCancelled, this, [this](OrderId id, QString why) { emit orderCancelled(id, why); });
  connect(b, &MarketBackend::workingOrdersChanged, this, [this](std::vector<OrderView> o) {
    working_ = std::move(o);
    emit workingOrdersChanged();
  });
  connect(b, &MarketBackend::callTradesNoted, this,
          [this](std::vector<TradeId> trades) { emit callTradesNoted(trades); });
  connect(b, &MarketBackend::ownFills, this, [this](std::vector<Fill> f) {
    fills_.insert(fills_.end(), f.begin(), f.end());
    emit fillsAdded(f);
  });
  connect(b, &MarketBackend::roundTripMeasured, this, [this](double ms) {
    roundTripMs_ = ms;
    emit roundTripMeasured(ms);
  });
  connect(b, &MarketBackend::ordersFinished, this, [this](std::vector<FinishedOrder> f) {
    finished_.insert(finished_.end(), f.begin(), f.end());
    emit ordersFinished(f);
  });
  connect(b, &MarketBackend::contractsChanged, this, [this](std::vector<Contract> c, std::vector<ContractMark> m) {
    contracts_ = std::move(c);
    marks_ = std::move(m);
    emit contractsChanged();
  });
  connect(b, &MarketBackend::accountChanged, this, [this](AccountSummary a) {
    account_ = std::move(a);
    emit accountChanged();
  });
  connect(b, &MarketBackend::errorOccurred, this, [this](QString m) { emit errorOccurred(m); });
  connect(b, &MarketBackend::settlementNoted, this, [this](std::vector<SettlementNote> n) {
    notes_.insert(notes_.end(), n.begin(), n.end());
    while (notes_.size() > kSettlementHistory) notes_.pop_front();
    // A notice is news of a state before the next positions reply brings it.
    for (const SettlementNote& x : n) {
      if (isShortfall(x.state)) shortfall_.insert(x.contract);
      auto it = status_.find(x.contract);
      if (it == status_.end()) continue;
      it->second.state = x.state;
      it->second.stateName = x.stateName;
    }
    emit settlementNoted(n);
    emit contractStatusChanged();
  });
  connect(b, &MarketBackend::contractStatusChanged, this, [this](std::vector<ContractSettlementStatus> st) {
    status_.clear();
    for (ContractSettlementStatus& x : st) {
      if (isShortfall(x.state)) shortfall_.insert(x.contract);
      status_[x.contract] = std::move(x);
    }
    emit contractStatusChanged();
  });
  connect(b, &MarketBackend::reclaimRatesChanged, this, [this](std::vector<net::ReclaimRate> rates) {
    for (const net::ReclaimRate& r : rates) reclaimRates_[r.cluster] = r;
    emit reclaimRatesChanged();
  });
  connect(b, &MarketBackend::forwardBookChanged, this, [this](net::ForwardBookView book) {
    forwardBooks_[{book.accelerator, book.weekStart}] = book;
    // Books of weeks that have begun no longer trade.
    std::erase_if(forwardBooks_, [this](const auto& kv) { return kv.first.second <= now_; });
    emit forwardBookChanged(book);
  });
  connect(b, &MarketBackend::forwardOrdersChanged, this, [this](std::vector<net::ForwardWorkingOrder> o) {
    forwardOrders_ = std::move(o);
    emit forwardOrdersChanged();
  });
  connect(b, &MarketBackend::forwardPositionsChanged, this, [this](std::vector<net::ForwardPositionView> p) {
    forwardPositions_ = std::move(p);
    emit forwardPositionsChanged();
  });
  connect(b, &MarketBackend::forwardNoted, this, [this](QString text) { emit forwardNoted(text); });
  connect(b, &MarketBackend::optionChainChanged, this, [this](net::OptionChainView c) { emit optionChainChanged(c); });
  connect(b, &MarketBackend::optionNoted, this, [this](QString text) { emit optionNoted(text); });
  connect(b, &MarketBackend::callAuctionChanged, this, [this](CallAuctionView v) {
    callAuction_ = std::move(v);
    emit callAuctionChanged();
  });
  connect(b, &MarketBackend::indexPublished, this, [this](std::vector<IndexPoint> s) {
    Hour latest = 0;
    for (const IndexPoint& x : s) {
      index_[IndexKey{x.accelerator, x.tenor, x.asOf}] = x;
      latest = std::max(latest, x.asOf);
    }
    std::erase_if(index_,
                  [cutoff = latest - kIndexDays * kHoursPerDay](const auto& kv) { return kv.second.asOf < cutoff; });
    emit indexChanged();
  });
}

const ContractSettlementStatus* TradingSession::statusOf(ContractId id) const {
  const auto it = status_.find(id);
  return it == status_.end() ? nullptr : &it->second;
}

void TradingSession::reportDelivery(const DeliveryReport& report) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, report] { b->reportDelivery(report); }, Qt::QueuedConnection);
}

void TradingSession::submitForward(net::ForwardNewOrder order) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, order = std::move(order)] { b->submitForward(order); }, Qt::QueuedConnection);
}

void TradingSession::cancelForward(std::uint64_t orderId) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, orderId] { b->cancelForward(orderId); }, Qt::QueuedConnection);
}

void TradingSession::submitOption(net::OptionNewOrder order) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, order = std::move(order)] { b->submitOption(order); }, Qt::QueuedConnection);
}

void TradingSession::watchOptionChain(Accelerator accelerator) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, accelerator] { b->watchOptionChain(accelerator); }, Qt::QueuedConnection);
}

void TradingSession::watchForward(Accelerator accelerator, Hour weekStart) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, accelerator, weekStart] { b->watchForward(accelerator, weekStart); },
      Qt::QueuedConnection);
}

std::map<Accelerator, std::pair<Price, bool>> TradingSession::nextDayIndex() const {
  std::map<Accelerator, std::pair<Price, bool>> out;
  // The history is ordered by (class, tenor, hour): the last next-day entry of a class wins.
  for (const auto& [key, sample] : index_)
    if (std::get<1>(key) == Tenor::NextDay) out[std::get<0>(key)] = {sample.price, sample.stale};
  return out;
}

TradingSession::ForwardTotals TradingSession::forwardTotals() const {
  ForwardTotals t;
  const auto index = nextDayIndex();
  for (const net::ForwardPositionView& p : forwardPositions_) {
    if (p.status != "open") continue;
    const auto it = index.find(p.accelerator);
    const Price mark = it != index.end() && it->second.first > 0 ? it->second.first : p.lastMark;
    t.margin += p.margin;
    t.pnl += p.pnlAt(mark);
  }
  return t;
}

void TradingSession::noteReply(OrderId order) {
  auto it = sentAtNs_.find(order);
  if (it == sentAtNs_.end()) return;
  lastLatencyMs_ = static_cast<double>(clock_.nsecsElapsed() - it.value()) / 1e6;
  sentAtNs_.erase(it);
  emit latencyMeasured(lastLatencyMs_);
}

void TradingSession::start() { QMetaObject::invokeMethod(backend_, &MarketBackend::start, Qt::QueuedConnection); }

OrderId TradingSession::submit(OrderRequest order) {
  if (order.id == 0) order.id = nextOrderId_++;
  sentAtNs_.insert(order.id, clock_.nsecsElapsed());
  QMetaObject::invokeMethod(
      backend_, [b = backend_, order] { b->submit(order); }, Qt::QueuedConnection);
  return order.id;
}

void TradingSession::cancel(OrderId order) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, order] { b->cancel(order); }, Qt::QueuedConnection);
}

void TradingSession::amend(OrderId order, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, order, limit, gpus] { b->amend(order, limit, gpus); }, Qt::QueuedConnection);
}

void TradingSession::cancelAllWorking() {
  for (const OrderView& o : working_) cancel(o.request.id);
}

void TradingSession::watch(std::vector<ClusterId> clusters, Hour firstHour, int hours) {
  watched_ = clusters;
  QMetaObject::invokeMethod(
      backend_,
      [b = backend_, clusters = std::move(clusters), firstHour, hours] { b->watch(clusters, firstHour, hours); },
      Qt::QueuedConnection);
}

void TradingSession::runOnBook(std::function<void(const Matcher&)> job) {
  QMetaObject::invokeMethod(
      backend_, [b = backend_, job = std::move(job)] { b->runOnBook(job); }, Qt::QueuedConnection);
}

const Cluster* TradingSession::cluster(ClusterId id) const {
  for (const Cluster& c : clusters_) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

}  // namespace tessera::ui
