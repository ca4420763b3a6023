#pragma once
// The embedded exchange as a real server: core/net's EmbeddedExchange on a loopback port, fed
// by the simulated market, with the terminal trading on it through ExchangeClient exactly as
// it would on a remote tessera-exchange.
#include "ui/session/ExchangeBackend.h"

#include "backtest/SimulatedMarket.h"
#include "core/net/EmbeddedExchange.h"
#include "core/net/ForwardDealer.h"

namespace tessera::ui {

class EmbeddedExchangeBackend : public ExchangeBackend {
  Q_OBJECT
 public:
  // `stepMs`: wall-clock milliseconds between simulated-market steps.
  // `recordPath`, if not empty: the market-history file the exchange records to.
  EmbeddedExchangeBackend(backtest::SimulatedMarketConfig market, std::string account, int stepMs,
                          std::string recordPath = {});
  ~EmbeddedExchangeBackend() override;

 public slots:
  void start() override;
  void stop() override;

 private:
  static ExchangeEndpoint endpointFor(const std::string& account);
  void step();

  backtest::SimulatedMarketConfig config_;
  int stepMs_;
  std::string recordPath_;
  std::unique_ptr<net::EmbeddedExchange> exchange_;
  std::unique_ptr<net::ForwardDealer> dealer_;  // quotes index forwards in the demo market
  AccountDirectory feederAccounts_;
  std::unique_ptr<backtest::SimulatedMarket> market_;
  QTimer* stepTimer_ = nullptr;
};

}  // namespace tessera::ui
