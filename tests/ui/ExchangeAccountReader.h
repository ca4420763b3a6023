#pragma once
// What the exchange says about an account (balance: the ledger's cash, reserved and escrow;
// working orders; positions with each contract's escrow; forward positions with their margin), read by a client of its
// own, as a second terminal of the account would. For tests that check the terminal against the exchange.
#include "core/net/ExchangeClient.h"

#include <QtTest>

#include <atomic>
#include <mutex>
#include <optional>

namespace tessera::ui::testing {

// What the exchange says about the account, through a client of its own.
struct AccountState {
  net::Balance balance;
  std::vector<net::WorkingOrder> orders;
  std::vector<Contract> contracts;
  std::vector<net::ContractStatus> status;  // of each contract, with the positions reply
  std::vector<net::ForwardPositionView> forwards;
  Hour now = 0;
};

inline std::optional<AccountState> readAccount(std::uint16_t port, const std::string& account = "trader") {
  std::mutex m;
  AccountState s;
  std::atomic<bool> loggedOn = false;
  std::atomic<int> balances = 0, orders = 0, positions = 0, forwards = 0;
  net::ClientOptions o;
  o.port = port;
  o.account = o.key = account;
  o.marketData = false;
  net::ClientCallbacks cb;
  cb.onConnection = [&](net::ConnectionState st, const std::string&) {
    loggedOn = st == net::ConnectionState::LoggedOn;
  };
  cb.onBalance = [&](const net::Balance& b) {
    std::lock_guard lock(m);
    s.balance = b;
    ++balances;
  };
  cb.onOrders = [&](const std::vector<net::WorkingOrder>& w) {
    std::lock_guard lock(m);
    s.orders = w;
    ++orders;
  };
  cb.onPositions = [&](const std::vector<Contract>& c) {
    std::lock_guard lock(m);
    s.contracts = c;
  };
  // Sent right after onPositions, for the same reply.
  cb.onContractStatus = [&](const std::vector<net::ContractStatus>& st) {
    std::lock_guard lock(m);
    s.status = st;
    ++positions;
  };
  cb.onForwardPositions = [&](const std::vector<net::ForwardPositionView>& f) {
    std::lock_guard lock(m);
    s.forwards = f;
    ++forwards;
  };
  net::ExchangeClient client(o, cb);
  client.start();
  // Bounded: 10 s of 10 ms waits for each.
  for (int i = 0; i < 1000 && !loggedOn; ++i) QTest::qWait(10);
  if (!loggedOn) return std::nullopt;
  const int b0 = balances, o0 = orders, p0 = positions, f0 = forwards;
  client.requestBalance();
  client.requestOrders();
  client.requestPositions();
  client.requestForwardPositions();
  const auto waiting = [&] { return balances == b0 || orders == o0 || positions == p0 || forwards == f0; };
  for (int i = 0; i < 1000 && waiting(); ++i) QTest::qWait(10);
  client.stop();
  if (waiting()) return std::nullopt;
  s.now = client.now();
  return s;
}

}  // namespace tessera::ui::testing
