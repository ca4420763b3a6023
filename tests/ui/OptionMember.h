#pragma once
// Helpers of the terminal's option tests: an index for the options to be priced on, and a member
// session on the options market over the protocol: a writer quoting the other side of a test's
// trade, or the trader's second look at the exchange (its option positions and working option
// orders as the exchange answers them, and the option events it hears).
#include "ExchangeTerminal.h"
#include "core/net/ExchangeClient.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>

namespace tessera::ui::testing {

// An H100 trade one hour before delivery sets the next-day index at $2.00; the next hour
// publishes it and gives the options their curve.
inline void publishIndexAtTwoDollars(ExchangeTerminal& t) {
  t.exchange.inject(houseAsk(1, 8, kNow + 1, kNow + 2, 2'000'000), "house-provider");
  OrderRequest bid = houseAsk(2, 8, kNow + 1, kNow + 2, 2'000'000);
  bid.side = Side::Buy;
  t.exchange.inject(bid, "house-mm");
  t.exchange.inject(ClockAdvance{kNow + 1});
}

struct OptionMember {
  std::unique_ptr<net::ExchangeClient> client;
  std::atomic<bool> loggedOn = false;
  std::mutex mutex;
  std::vector<net::OptionPositionView> positions;
  int positionReplies = 0;
  std::vector<net::OptionWorkingOrder> working;
  int orderReplies = 0;
  std::vector<std::string> events;
  OptionMember(std::uint16_t port, const std::string& account) {
    net::ClientOptions o;
    o.port = port;
    o.account = o.key = account;
    o.marketData = false;
    net::ClientCallbacks cb;
    cb.onConnection = [this](net::ConnectionState s, const std::string&) {
      loggedOn = s == net::ConnectionState::LoggedOn;
    };
    cb.onOptionPositions = [this](const std::vector<net::OptionPositionView>& p) {
      std::lock_guard lock(mutex);
      positions = p;
      ++positionReplies;
    };
    cb.onOptionOrders = [this](const std::vector<net::OptionWorkingOrder>& w, Money) {
      std::lock_guard lock(mutex);
      working = w;
      ++orderReplies;
    };
    cb.onOptionEvent = [this](const net::OptionEventView& e) {
      std::lock_guard lock(mutex);
      events.push_back(e.type);
    };
    client = std::make_unique<net::ExchangeClient>(o, cb);
    client->start();
  }
  ~OptionMember() { client->stop(); }
  bool heard(const std::string& type) {
    std::lock_guard lock(mutex);
    return std::find(events.begin(), events.end(), type) != events.end();
  }
  // The account's option positions and working option orders as the exchange answers now.
  std::vector<net::OptionPositionView> positionsNow() {
    askAndWait([this] { client->requestOptionPositions(); }, positionReplies);
    std::lock_guard lock(mutex);
    return positions;
  }
  std::vector<net::OptionWorkingOrder> workingNow() {
    askAndWait([this] { client->requestOptionOrders(); }, orderReplies);
    std::lock_guard lock(mutex);
    return working;
  }

 private:
  // Sends a request and waits for the reply that counts in `replies` (bounded: 5 s of 10 ms waits).
  template <class Ask>
  void askAndWait(Ask ask, const int& replies) {
    int before = 0;
    {
      std::lock_guard lock(mutex);
      before = replies;
    }
    ask();
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mutex);
        if (replies != before) return;
      }
      QTest::qWait(10);
    }
  }
};

}  // namespace tessera::ui::testing
