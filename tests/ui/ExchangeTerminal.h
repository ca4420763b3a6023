#pragma once
// A terminal trading on a real exchange server (core/net EmbeddedExchange on 127.0.0.1, the
// server the terminal embeds by default), plus an observer: a second ExchangeClient logged on
// as the same account, which hears every execution report of the account and asks the
// exchange for its working orders. Tests check what reached the exchange through it.
#include "core/net/EmbeddedExchange.h"
#include "core/net/ExchangeClient.h"
#include "ui/session/ExchangeBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"

#include <QDateTime>
#include <QLineEdit>
#include <QTimeZone>
#include <QtTest>

#include <atomic>
#include <mutex>

namespace tessera::ui::testing {

inline constexpr Hour kNow = 20'000 * kHoursPerDay;  // the exchange clock, fixed
inline constexpr ClusterId kH100 = 1;                // us-east-h100-a: 32 nodes of 8 GPUs

// `journal`: ":memory:", or a file that a later exchange replays (a quit and a relaunch).
inline net::ExchangeConfig exchangeConfig(const std::string& journal = ":memory:") {
  net::ExchangeConfig c = net::EmbeddedExchange::demoConfig(kNow, "trader", "trader", journal);
  c.followWallClock = false;
  return c;
}

class Observer {
 public:
  explicit Observer(std::uint16_t port) {
    net::ClientOptions o;
    o.port = port;
    o.account = o.key = "trader";
    o.marketData = false;
    net::ClientCallbacks cb;
    cb.onConnection = [this](net::ConnectionState s, const std::string&) {
      loggedOn_ = s == net::ConnectionState::LoggedOn;
    };
    cb.onOrder = [this](const net::OrderUpdate& u) {
      std::lock_guard lock(mutex_);
      execs_.push_back(u);
    };
    cb.onOrders = [this](const std::vector<net::WorkingOrder>& w) {
      std::lock_guard lock(mutex_);
      orders_ = w;
      ++ordersReplies_;
    };
    client_ = std::make_unique<net::ExchangeClient>(o, cb);
    client_->start();
  }
  ~Observer() { client_->stop(); }
  bool loggedOn() const { return loggedOn_; }
  // Every execution report of the account so far (accepted, rejected, fills, cancels...).
  std::vector<net::OrderUpdate> execs() const {
    std::lock_guard lock(mutex_);
    return execs_;
  }
  // The account's working orders, as the exchange answers `orders` now.
  std::vector<net::WorkingOrder> workingOrders() {
    int before = 0;
    {
      std::lock_guard lock(mutex_);
      before = ordersReplies_;
    }
    client_->requestOrders();
    auto replied = [&] {
      std::lock_guard lock(mutex_);
      return ordersReplies_ > before;
    };
    // Bounded: 5 s of 10 ms waits; an exchange that does not answer leaves the list empty.
    for (int i = 0; i < 500 && !replied(); ++i) QTest::qWait(10);
    std::lock_guard lock(mutex_);
    return orders_;
  }

 private:
  std::unique_ptr<net::ExchangeClient> client_;
  std::atomic<bool> loggedOn_ = false;
  mutable std::mutex mutex_;
  std::vector<net::OrderUpdate> execs_;
  std::vector<net::WorkingOrder> orders_;
  int ordersReplies_ = 0;
};

// The start of hour `h` (hours since 1970), in UTC: what the ticket's Start/End fields take.
inline QDateTime at(Hour h) { return QDateTime::fromSecsSinceEpoch(h * 3600, QTimeZone::utc()); }

// Replaces a field's text the way a trader does: select all, type.
inline void retype(QLineEdit* e, const QString& text) {
  e->setFocus();
  QTest::keyClick(e, Qt::Key_A, Qt::ControlModifier);
  QTest::keyClicks(e, text);
}

// An ask of the house provider, injected as the exchange's own feeder would.
inline OrderRequest houseAsk(OrderId id, GpuCount gpus, Hour start, Hour end, Price price) {
  OrderRequest a;
  a.id = id;
  a.side = Side::Sell;
  a.cluster = kH100;
  a.gpus = gpus;
  a.start = start;
  a.end = end;
  a.limit = price;
  return a;
}

struct ExchangeTerminal {
  net::EmbeddedExchange exchange;
  std::unique_ptr<TradingSession> session;
  std::unique_ptr<MainWindow> window;
  std::unique_ptr<Observer> observer;

  explicit ExchangeTerminal(QSize size = {1600, 1000}, const std::string& journal = ":memory:")
      : ExchangeTerminal(exchangeConfig(journal), size) {}
  // A terminal on an exchange of this configuration (exchangeConfig() changed by a test).
  ExchangeTerminal(const net::ExchangeConfig& config, QSize size) : exchange(config) {
    exchange.start();
    ExchangeEndpoint e;
    e.host = "127.0.0.1";
    e.port = exchange.port();
    e.account = e.key = "trader";
    session = std::make_unique<TradingSession>(std::make_unique<ExchangeBackend>(e, 20));
    window = std::make_unique<MainWindow>(*session);
    if (size.isValid()) window->resize(size);  // an invalid size: as `tessera` opens, from the saved layout
    window->show();
    session->start();
    observer = std::make_unique<Observer>(exchange.port());
  }
  ~ExchangeTerminal() {
    observer.reset();
    window.reset();
    session.reset();
    exchange.stop();
  }
  // Connected, clusters known, the grid showing the H100 cluster's book.
  bool ready() const {
    return session->connection() == ConnectionState::Connected && !session->clusters().empty() &&
           session->now() == kNow && observer->loggedOn() && !session->watchedClusters().empty() &&
           session->watchedClusters().front() == kH100;
  }
};

}  // namespace tessera::ui::testing
