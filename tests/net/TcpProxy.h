#pragma once
// A TCP forwarder for tests: sits between a client and the exchange so a test can cut the
// connection, lose one market-data line, or hold a request back until after its client has
// gone, the faults that the client must recover from.
#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>

#include <atomic>
#include <memory>
#include <optional>
#include <mutex>
#include <set>
#include <vector>
#include <string>
#include <thread>

namespace tessera::net::testing {

class TcpProxy {
 public:
  explicit TcpProxy(std::uint16_t upstream)
      : upstream_(upstream), acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~TcpProxy() {
    boost::asio::post(io_, [this] {
      boost::system::error_code ignored;
      acceptor_.close(ignored);
      for (auto& p : pipes_) p->close();
      pipes_.clear();
    });
    work_.reset();
    thread_.join();
  }
  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  // Closes every connection going through the proxy now (new ones are accepted).
  void cut() {
    boost::asio::post(io_, [this] {
      for (auto& p : pipes_) p->close();
      pipes_.clear();
    });
  }
  // The next server-to-client line containing `needle` is silently lost.
  void dropNextLineContaining(std::string needle) {
    std::lock_guard lock(mu_);
    dropNeedle_ = std::move(needle);
    dropEvery_ = false;
  }
  // Every server-to-client line containing `needle` is silently lost from now on: the replies
  // a client waits for never come (a timeout), while the exchange has applied the requests.
  void dropEveryLineContaining(std::string needle) {
    std::lock_guard lock(mu_);
    dropNeedle_ = std::move(needle);
    dropEvery_ = true;
  }
  int dropped() const { return dropped_; }
  // Client-to-server lines containing `needle` are held back from now on: the client has sent
  // them, the exchange has not got them. A connection whose client goes away keeps its server
  // side open while it holds lines, so they still arrive, late, on the client's session.
  void holdUpLinesContaining(std::string needle) {
    std::lock_guard lock(mu_);
    holdNeedle_ = std::move(needle);
  }
  // Sends the held lines on to the exchange now and stops holding.
  void releaseHeld() {
    {
      std::lock_guard lock(mu_);
      holdNeedle_.clear();
    }
    boost::asio::post(io_, [this] {
      for (auto& p : pipes_) {
        if (p->held.empty() || p->closed) continue;
        boost::system::error_code wec;
        boost::asio::write(p->server, boost::asio::buffer(p->held), wec);
        p->held.clear();
      }
    });
  }
  int heldLines() const { return heldLines_; }
  // What the exchange sent on connections whose client had gone (after releaseHeld: its
  // answers to the late lines).
  std::vector<std::string> unheard() const {
    std::lock_guard lock(mu_);
    return unheard_;
  }
  // While refusing, new connections are closed as soon as they are accepted: the exchange
  // looks down.
  void setRefusing(bool refusing) { refusing_ = refusing; }

 private:
  struct Pipe : std::enable_shared_from_this<Pipe> {
    Pipe(TcpProxy& p, boost::asio::io_context& io) : proxy(p), client(io), server(io) {}
    TcpProxy& proxy;
    boost::asio::ip::tcp::socket client, server;
    char up[65536], down[65536];
    std::string downLines, upLines, held;
    bool closed = false;
    bool clientGone = false;  // the client closed while lines were held: the server side stays
    void close() {
      if (closed) return;
      closed = true;
      boost::system::error_code ignored;
      client.close(ignored);
      server.close(ignored);
    }
    void pumpUp() {
      auto self = shared_from_this();
      client.async_read_some(boost::asio::buffer(up), [self](boost::system::error_code ec, std::size_t n) {
        if (self->closed) return;
        if (ec) {
          if (self->held.empty()) return self->close();
          self->clientGone = true;
          boost::system::error_code ignored;
          self->client.close(ignored);
          return;
        }
        self->upLines.append(self->up, n);
        std::string out;
        std::size_t pos = 0, nl;
        while ((nl = self->upLines.find('\n', pos)) != std::string::npos) {
          std::string_view line(self->upLines.data() + pos, nl + 1 - pos);
          if (self->proxy.shouldHold(line))
            self->held.append(line);
          else
            out.append(line);
          pos = nl + 1;
        }
        self->upLines.erase(0, pos);
        boost::system::error_code wec;
        boost::asio::write(self->server, boost::asio::buffer(out), wec);
        if (wec) return self->close();
        self->pumpUp();
      });
    }
    void pumpDown() {
      auto self = shared_from_this();
      server.async_read_some(boost::asio::buffer(down), [self](boost::system::error_code ec, std::size_t n) {
        if (ec || self->closed) return self->close();
        self->downLines.append(self->down, n);
        std::string out;
        std::size_t pos = 0, nl;
        while ((nl = self->downLines.find('\n', pos)) != std::string::npos) {
          std::string_view line(self->downLines.data() + pos, nl + 1 - pos);
          if (self->clientGone)
            self->proxy.noteUnheard(line);
          else if (!self->proxy.shouldDrop(line))
            out.append(line);
          pos = nl + 1;
        }
        self->downLines.erase(0, pos);
        if (self->clientGone) return self->pumpDown();  // nobody to tell; the server side stays
        boost::system::error_code wec;
        boost::asio::write(self->client, boost::asio::buffer(out), wec);
        if (wec) return self->close();
        self->pumpDown();
      });
    }
  };

  void noteUnheard(std::string_view line) {
    std::lock_guard lock(mu_);
    unheard_.emplace_back(line);
  }

  bool shouldHold(std::string_view line) {
    std::lock_guard lock(mu_);
    if (holdNeedle_.empty() || line.find(holdNeedle_) == std::string_view::npos) return false;
    ++heldLines_;
    return true;
  }

  bool shouldDrop(std::string_view line) {
    std::lock_guard lock(mu_);
    if (dropNeedle_.empty() || line.find(dropNeedle_) == std::string_view::npos) return false;
    if (!dropEvery_) dropNeedle_.clear();
    ++dropped_;
    return true;
  }

  void accept() {
    auto pipe = std::make_shared<Pipe>(*this, io_);
    acceptor_.async_accept(pipe->client, [this, pipe](boost::system::error_code ec) {
      if (ec) return;
      if (refusing_) {
        pipe->close();
        accept();
        return;
      }
      boost::system::error_code cec;
      pipe->server.connect({boost::asio::ip::make_address("127.0.0.1"), upstream_}, cec);
      if (cec) {
        pipe->close();
      } else {
        pipes_.insert(pipe);
        pipe->pumpUp();
        pipe->pumpDown();
      }
      accept();
    });
  }

  std::uint16_t upstream_;
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_{io_.get_executor()};
  boost::asio::ip::tcp::acceptor acceptor_;
  std::set<std::shared_ptr<Pipe>> pipes_;
  std::thread thread_;
  mutable std::mutex mu_;
  std::string dropNeedle_;
  bool dropEvery_ = false;
  std::atomic<int> dropped_{0};
  std::string holdNeedle_;
  std::vector<std::string> unheard_;
  std::atomic<int> heldLines_{0};
  std::atomic<bool> refusing_{false};
};

}  // namespace tessera::net::testing
