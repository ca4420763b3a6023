#include "ui/session/EmbeddedExchangeBackend.h"

#include "core/net/Journal.h"
#include "ui/session/PaperAccount.h"

#include <QDateTime>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>

namespace tessera::ui {

EmbeddedExchangeBackend::EmbeddedExchangeBackend(backtest::SimulatedMarketConfig market, std::string account,
                                                 int stepMs, std::string recordPath, std::string journalPath,
                                                 bool callMode)
    : ExchangeBackend(endpointFor(account)),
      config_(market),
      stepMs_(stepMs),
      recordPath_(std::move(recordPath)),
      journalPath_(journalPath.empty() ? std::string(kMemoryJournal) : std::move(journalPath)),
      callMode_(callMode) {}

EmbeddedExchangeBackend::~EmbeddedExchangeBackend() {
  // The client goes first (in ~ExchangeBackend it would outlive the server it talks to).
  ExchangeBackend::stop();
  if (dealer_) dealer_->stop();
  if (optionDealer_) optionDealer_->stop();
  if (exchange_) exchange_->stop();
}

ExchangeEndpoint EmbeddedExchangeBackend::endpointFor(const std::string& account) {
  ExchangeEndpoint e;
  e.host = "127.0.0.1";
  e.account = account;
  e.key = account;  // feederConfig's key for the trader
  return e;
}

bool EmbeddedExchangeBackend::startExchange() {
  auto open = [this] {
    net::ExchangeConfig c =
        net::EmbeddedExchange::feederConfig(config_.start, endpoint().account, endpoint().key, journalPath_);
    c.recordPath = recordPath_;
    if (callMode_) c.callMode = net::EmbeddedExchange::demoCallMode();
    exchange_ = std::make_unique<net::EmbeddedExchange>(c);
    exchange_->start();
  };
  auto fail = [this](const QString& why) {
    exchange_.reset();
    emit connectionChanged(ConnectionState::Disconnected, tr("embedded exchange failed to start"));
    emit errorOccurred(tr("The embedded exchange could not start: %1").arg(why));
    return false;
  };
  const QString journal = QString::fromStdString(journalPath_);
  try {
    open();
    return true;
  } catch (const net::JournalUnreadable& unreadable) {
    exchange_.reset();  // closes the journal before it moves
    // Only a file that is there is an unreadable account; anything else is reported as it is.
    if (journal == QLatin1String(kMemoryJournal) || !QFileInfo(journal).isFile())
      return fail(QString::fromUtf8(unreadable.what()));
    const SetAside aside = setJournalAside(journal);
    if (!aside.error.isEmpty())
      return fail(tr("%1; it could not be kept aside for a fresh start (%2)")
                      .arg(QString::fromUtf8(unreadable.what()), aside.error));
    try {
      open();
    } catch (const std::exception& ex) {
      return fail(QString::fromUtf8(ex.what()));
    }
    emit errorOccurred(
        tr("The paper account could not be read (%1).\n\nNothing was deleted: the old journal is kept as\n%2\n\n"
           "A new paper account has started.")
            .arg(QString::fromUtf8(unreadable.what()), aside.path));
    return true;
  } catch (const std::exception& ex) {
    return fail(QString::fromUtf8(ex.what()));
  }
}

void EmbeddedExchangeBackend::start() {
  if (!exchange_) {
    if (!startExchange()) return;
    idBase_ = static_cast<OrderId>(QDateTime::currentSecsSinceEpoch()) << 24;
    if (exchange_->replayedEntries() > 0) {
      // A resumed account: the market goes on from the clock the journal left (the exchange
      // refuses a clock that goes back), and the previous run's house orders stay in the book
      // as the trader left it; they expire with their windows like any order.
      config_.start = exchange_->clockAtStart();
    }
    setPort(exchange_->port());
    exchangePort_ = exchange_->port();
    net::ForwardDealerConfig dealer;
    dealer.port = exchange_->port();
    dealer.account = dealer.key = std::string(net::kForwardDealerAccount);
    dealer_ = std::make_unique<net::ForwardDealer>(dealer);
    dealer_->start();
    net::OptionDealerConfig optionDealer;
    optionDealer.port = exchange_->port();
    optionDealer.account = optionDealer.key = std::string(net::kOptionDealerAccount);
    optionDealer_ = std::make_unique<net::OptionDealer>(optionDealer);
    optionDealer_->start();
    market_ = std::make_unique<backtest::SimulatedMarket>(config_, feederAccounts_);
    if (exchange_->replayedEntries() > 0)
      grantedByEarlierRun_ = config_.start + market_->grantAheadHours() + kHoursPerDay;
    step();  // the set-up: clusters, clock, grants, the opening book, before the client logs on
    stepTimer_ = new QTimer(this);
    stepTimer_->setTimerType(Qt::PreciseTimer);
    connect(stepTimer_, &QTimer::timeout, this, &EmbeddedExchangeBackend::step);
    stepTimer_->start(stepMs_);
  }
  ExchangeBackend::start();
}

void EmbeddedExchangeBackend::stop() {
  if (stepTimer_) stepTimer_->stop();
  ExchangeBackend::stop();
}

void EmbeddedExchangeBackend::step() {
  if (!exchange_ || !market_) return;
  for (InputEvent& in : market_->step()) inject(std::move(in));
  // Simulated node failures reach the exchange as the provider's outage reports, so the demo
  // market shows delivery problems and their remedies.
  for (const backtest::SimulatedOutage& o : market_->takeOutages())
    exchange_->reportOutage({feederAccounts_.name(o.provider), o.cluster, o.start, o.end, o.lostGpus});
  // Providers of interruptible capacity take machines back with notice: buyers are refunded.
  for (const backtest::SimulatedReclaim& r : market_->takeReclaims())
    exchange_->reportReclaim({feederAccounts_.name(r.provider), r.cluster, r.start, r.end, r.gpus});
}

}  // namespace tessera::ui

namespace tessera::ui {

void EmbeddedExchangeBackend::inject(InputEvent event) {
  if (auto* o = std::get_if<OrderRequest>(&event)) {
    o->id += idBase_;
  } else if (auto* c = std::get_if<CancelRequest>(&event)) {
    c->id += idBase_;
  } else if (auto* a = std::get_if<AmendRequest>(&event)) {
    a->id += idBase_;
  } else if (auto* g = std::get_if<CapacityGrant>(&event); g && g->start < grantedByEarlierRun_) {
    const Hour split = std::min(g->end, grantedByEarlierRun_);
    for (Hour h = g->start; h < split; ++h) {
      CapacityGrant hour = *g;
      hour.start = h;
      hour.end = h + 1;
      exchange_->inject(hour, feederAccounts_);
    }
    if (split == g->end) return;
    g->start = split;
  }
  exchange_->inject(event, feederAccounts_);
}

}  // namespace tessera::ui
