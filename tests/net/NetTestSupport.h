#pragma once
// Shared by the tests of tests/net: a small market config and a blocking line client over a
// real TCP socket (the tests speak the wire protocol themselves, byte for byte).
#include "TestAccounts.h"
#include "core/net/ExchangeConfig.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>
#include <nlohmann/json.hpp>

#include <sys/socket.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

namespace tessera::net::testing {

inline constexpr Hour kNow = 600'000;  // far ahead of the wall clock, so it never moves it

// alice and bob trade ($10,000 and $100 of cash), provider owns 64 GPUs of cluster 1 and 16
// of cluster 2 for 48 hours from kNow.
inline ExchangeConfig marketConfig() {
  ExchangeConfig c;
  c.port = 0;
  c.dbPath = ":memory:";
  c.initialClock = kNow;
  c.followWallClock = false;
  c.accounts = {account("alice", 10'000 * kMicrosPerDollar), account("bob", 100 * kMicrosPerDollar),
                account("provider", 0), account("carol", 10'000 * kMicrosPerDollar)};
  Cluster a;
  a.id = 1;
  a.name = "test-h100";
  a.provider = "provider";
  a.region = "us-east";
  a.nodeCount = 8;
  Cluster b = a;
  b.id = 2;
  b.name = "test-h200";
  b.accelerator = Accelerator::H200;
  b.nodeCount = 2;
  c.clusters = {a, b};
  c.grants = {GrantConfig{"provider", "test-h100", 64, kNow, kNow + 48},
              GrantConfig{"provider", "test-h200", 16, kNow, kNow + 48}};
  return c;
}

inline std::string order(const std::string& clOrdId, const std::string& side, int cluster, int gpus, Hour start,
                         Hour end, Price limit, const std::string& extra = "") {
  return "{\"type\":\"new_order\",\"cl_ord_id\":\"" + clOrdId + "\",\"side\":\"" + side +
         "\",\"cluster\":" + std::to_string(cluster) + ",\"gpus\":" + std::to_string(gpus) +
         ",\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end) +
         ",\"limit\":" + std::to_string(limit) + extra + "}";
}

// Whether `f` becomes true within `timeout` (polled every 20 ms).
template <class F>
bool eventually(F f, std::chrono::milliseconds timeout = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return f();
}

class LineClient {
 public:
  // `from`: the local address to connect from (any of 127.0.0.0/8 on Linux), so that a test
  // can be several remote addresses.
  explicit LineClient(std::uint16_t port, const std::string& from = "") : socket_(io_) {
    if (!from.empty()) {
      socket_.open(boost::asio::ip::tcp::v4());
      socket_.bind({boost::asio::ip::make_address(from), 0});
    }
    socket_.connect({boost::asio::ip::make_address("127.0.0.1"), port});
    socket_.set_option(boost::asio::ip::tcp::no_delay(true));
  }
  void sendRaw(const std::string& bytes) { boost::asio::write(socket_, boost::asio::buffer(bytes)); }
  void send(const std::string& line) { sendRaw(line + "\n"); }
  // Sends without blocking; false if the socket did not take all of `bytes` (then a part of
  // them may have gone).
  bool trySend(const std::string& bytes) {
    const ssize_t n = ::send(socket_.native_handle(), bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    return n == static_cast<ssize_t>(bytes.size());
  }
  void close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
  }

  // The next line, or nothing after `timeout` or when the server closed the connection.
  std::optional<nlohmann::json> read(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto nl = buffer_.find('\n');
      if (nl != std::string::npos) {
        lastLine_ = buffer_.substr(0, nl);
        buffer_.erase(0, nl + 1);
        return nlohmann::json::parse(lastLine_);
      }
      if (closed_) return std::nullopt;
      const auto left = deadline - std::chrono::steady_clock::now();
      if (left <= std::chrono::steady_clock::duration::zero()) return std::nullopt;
      char chunk[65536];
      bool done = false;
      socket_.async_read_some(boost::asio::buffer(chunk), [&](boost::system::error_code ec, std::size_t n) {
        done = true;
        if (ec == boost::asio::error::operation_aborted) return;  // our own timeout
        if (ec)
          closed_ = true;
        else
          buffer_.append(chunk, n);
      });
      io_.restart();
      io_.run_for(std::chrono::duration_cast<std::chrono::milliseconds>(left));
      if (!done) {
        socket_.cancel();
        io_.restart();
        io_.run();
        return std::nullopt;
      }
    }
  }
  // Reads until a line of `type` arrives (skipping others: market data, balances...).
  std::optional<nlohmann::json> until(const std::string& type,
                                      std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      auto j = read(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
      if (!j) return std::nullopt;
      if ((*j)["type"] == type) return j;
    }
    return std::nullopt;
  }
  // An execution report of one of the states given ("accepted", "rejected", "filled", ...).
  std::optional<nlohmann::json> exec(const std::string& clOrdId) {
    for (;;) {
      auto j = until("exec");
      if (!j) return j;
      if ((*j)["cl_ord_id"] == clOrdId) return j;
    }
  }
  bool logon(const std::string& account) { return logonReply(account, account + "-key")["type"] == "logon_ack"; }
  // The reply to a logon (null if none came).
  nlohmann::json logonReply(const std::string& account, const std::string& key) {
    send("{\"type\":\"logon\",\"account\":\"" + account + "\",\"key\":\"" + key + "\"}");
    auto j = read();
    return j ? *j : nlohmann::json();
  }
  // Whether a read has seen the server close the connection (reads nothing itself).
  bool sawClose() const { return closed_; }
  // The bytes of the line read last, as they came.
  const std::string& lastLine() const { return lastLine_; }
  bool closedByServer(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!read(std::chrono::milliseconds(100)) && closed_) return true;
    }
    return closed_;
  }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
  std::string buffer_;
  std::string lastLine_;
  bool closed_ = false;
};

}  // namespace tessera::net::testing
