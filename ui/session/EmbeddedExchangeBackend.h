#pragma once
// The embedded exchange as a real server: core/net's EmbeddedExchange on a loopback port, fed
// by the simulated market, with the terminal trading on it through ExchangeClient exactly as
// it would on a remote tessera-exchange.
#include "ui/session/ExchangeBackend.h"

#include "backtest/SimulatedMarket.h"
#include "core/net/EmbeddedExchange.h"
#include "core/net/ForwardDealer.h"
#include "core/net/OptionDealer.h"

#include <atomic>

namespace tessera::ui {

class EmbeddedExchangeBackend : public ExchangeBackend {
  Q_OBJECT
 public:
  // `stepMs`: wall-clock milliseconds between simulated-market steps.
  // `recordPath`, if not empty: the market-history file the exchange records to.
  // `journalPath`: the exchange's journal, the paper account (empty or ":memory:": none kept).
  // A journal with entries is replayed and the simulated market resumes at its clock; one
  // that cannot be replayed is kept aside (setJournalAside) and a fresh account starts, with
  // errorOccurred saying where the old file went.
  // `callMode`: every cluster trades in calls (net::EmbeddedExchange::demoCallMode), so the
  // grid shows the next call's indicative clearing and its countdown; else continuously.
  EmbeddedExchangeBackend(backtest::SimulatedMarketConfig market, std::string account, int stepMs,
                          std::string recordPath = {}, std::string journalPath = {}, bool callMode = false);
  ~EmbeddedExchangeBackend() override;

  // The exchange's loopback port once it started (0 before): for another client of it.
  // Thread-safe.
  std::uint16_t exchangePort() const { return exchangePort_.load(); }

 public slots:
  void start() override;
  void stop() override;

 private:
  static ExchangeEndpoint endpointFor(const std::string& account);
  bool startExchange();
  void step();
  void inject(InputEvent event);

  backtest::SimulatedMarketConfig config_;
  int stepMs_;
  std::string recordPath_;
  std::string journalPath_;
  bool callMode_ = false;
  std::atomic<std::uint16_t> exchangePort_ = 0;
  // The feeder's order ids are client order ids of its accounts, which an exchange never lets
  // an account use twice: each run numbers from its own base (wall-clock seconds << 24, as the
  // client library prefixes its ids with the time), above every id of an earlier run.
  OrderId idBase_ = 0;
  // On a resumed journal the capacity up to here may be granted already by the earlier run:
  // grants before it go hour by hour, so the hours it granted are refused and the rest taken.
  Hour grantedByEarlierRun_ = 0;
  std::unique_ptr<net::EmbeddedExchange> exchange_;
  std::unique_ptr<net::ForwardDealer> dealer_;       // quotes index forwards in the demo market
  std::unique_ptr<net::OptionDealer> optionDealer_;  // and index options
  AccountDirectory feederAccounts_;
  std::unique_ptr<backtest::SimulatedMarket> market_;
  QTimer* stepTimer_ = nullptr;
};

}  // namespace tessera::ui
