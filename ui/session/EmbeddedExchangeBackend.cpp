#include "ui/session/EmbeddedExchangeBackend.h"

#include <QTimer>

namespace tessera::ui {

EmbeddedExchangeBackend::EmbeddedExchangeBackend(backtest::SimulatedMarketConfig market, std::string account, int stepMs,
                                                 std::string recordPath)
    : ExchangeBackend(endpointFor(account)), config_(market), stepMs_(stepMs), recordPath_(std::move(recordPath)) {}

EmbeddedExchangeBackend::~EmbeddedExchangeBackend() {
  // The client goes first (in ~ExchangeBackend it would outlive the server it talks to).
  ExchangeBackend::stop();
  if (dealer_) dealer_->stop();
  if (exchange_) exchange_->stop();
}

ExchangeEndpoint EmbeddedExchangeBackend::endpointFor(const std::string& account) {
  ExchangeEndpoint e;
  e.host = "127.0.0.1";
  e.account = account;
  e.key = account;  // feederConfig's key for the trader
  return e;
}

void EmbeddedExchangeBackend::start() {
  if (!exchange_) {
    try {
      net::ExchangeConfig exchangeConfig = net::EmbeddedExchange::feederConfig(config_.start, endpoint().account, endpoint().key);
      exchangeConfig.recordPath = recordPath_;
      exchange_ = std::make_unique<net::EmbeddedExchange>(exchangeConfig);
      exchange_->start();
    } catch (const std::exception& ex) {
      emit connectionChanged(ConnectionState::Disconnected, tr("embedded exchange failed to start"));
      emit errorOccurred(tr("The embedded exchange could not start: %1").arg(QString::fromUtf8(ex.what())));
      exchange_.reset();
      return;
    }
    setPort(exchange_->port());
    net::ForwardDealerConfig dealer;
    dealer.port = exchange_->port();
    dealer.account = dealer.key = std::string(net::kForwardDealerAccount);
    dealer_ = std::make_unique<net::ForwardDealer>(dealer);
    dealer_->start();
    market_ = std::make_unique<backtest::SimulatedMarket>(config_, feederAccounts_);
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
  for (const InputEvent& in : market_->step()) exchange_->inject(in, feederAccounts_);
  // Simulated node failures reach the exchange as the provider's outage reports, so the demo
  // market shows delivery problems and their remedies.
  for (const backtest::SimulatedOutage& o : market_->takeOutages())
    exchange_->reportOutage({feederAccounts_.name(o.provider), o.cluster, o.start, o.end, o.lostGpus});
}

}  // namespace tessera::ui
