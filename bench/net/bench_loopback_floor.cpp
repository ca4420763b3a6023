// The transport floor of bench_exchange_loopback: the same load generator (50 clients, one
// market-data subscriber, the same phases) against a server that only answers. It keeps the
// exchange server's thread structure — an io thread reads and splits lines, a replying thread
// woken through a mutex and condition variable sends each session its replies with one
// non-blocking send per batch, and market data to the subscriber once per batch — but has no
// parsing beyond the cl_ord_id, no matching and no journal. What it costs is what loopback TCP,
// wake-ups and the load generator cost this machine before the exchange does any work.
//   --inline   the io thread answers itself (no hand-off): the floor of any server design.
// See README.md.
#include "LoopbackLoad.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

using namespace tessera::bench;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Blocks (in poll) only when the socket's buffer is full, which the load generator's reading
// makes rare; a benchmark may do that, a server may not.
void sendAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, 100);
    } else {
      return;  // the peer went away: the benchmark is ending
    }
  }
}

class FloorServer {
 public:
  explicit FloorServer(bool inlineReplies)
      : inline_(inlineReplies), acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {}

  std::uint16_t port() const { return acceptor_.local_endpoint().port(); }
  std::uint64_t batches() const { return batches_.load(); }

  void start() {
    accept();
    ioThread_ = std::thread([this] {
      pthread_setname_np(pthread_self(), "tx-io");
      io_.run();
    });
    if (!inline_) {
      replyThread_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "tx-match");
        replyLoop();
      });
    }
  }

  void stop() {
    io_.stop();
    ioThread_.join();
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_one();
    if (replyThread_.joinable()) replyThread_.join();
  }

 private:
  struct Session {
    explicit Session(tcp::socket s) : socket(std::move(s)) {}
    tcp::socket socket;
    char buf[65536];
    std::string partial;
    std::string replies;  // the replying thread's, between wake-ups
  };
  using SessionPtr = std::shared_ptr<Session>;
  struct Ack {
    SessionPtr session;
    std::string clOrdId;
  };

  void accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) return;
      socket.set_option(tcp::no_delay(true));
      auto s = std::make_shared<Session>(std::move(socket));
      sessions_.insert(s);
      read(s);
      accept();
    });
  }

  void read(const SessionPtr& s) {
    s->socket.async_read_some(asio::buffer(s->buf), [this, s](boost::system::error_code ec, std::size_t n) {
      if (ec) {
        sessions_.erase(s);
        return;
      }
      onData(s, std::string_view(s->buf, n));
      read(s);
    });
  }

  void onData(const SessionPtr& s, std::string_view data) {
    while (!data.empty()) {
      const std::size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        s->partial.append(data);
        return;
      }
      std::string_view line = data.substr(0, nl);
      if (!s->partial.empty()) {
        s->partial.append(line);
        line = s->partial;
      }
      onLine(s, line);
      s->partial.clear();
      data.remove_prefix(nl + 1);
    }
  }

  void onLine(const SessionPtr& s, std::string_view line) {
    if (line.find("\"logon\"") != std::string_view::npos) {
      sendAll(s->socket.native_handle(), "{\"type\":\"logon_ack\"}\n");
    } else if (line.find("\"subscribe\"") != std::string_view::npos) {
      std::lock_guard lock(mutex_);
      subscribers_.push_back(s);
    } else if (const auto k = line.find("\"cl_ord_id\":\""); k != std::string_view::npos) {
      const std::size_t from = k + 13, to = line.find('"', from);
      pending_.push_back(Ack{s, std::string(line.substr(from, to - from))});
      // Hand over once every socket that was ready has been read, as the exchange does.
      if (!flushPosted_) {
        flushPosted_ = true;
        asio::post(io_, [this] {
          flushPosted_ = false;
          handOver();
        });
      }
    }
  }

  // io thread: the orders read since the last hand-over, answered here or queued for the
  // replying thread.
  void handOver() {
    if (inline_) {
      answer(pending_);
    } else {
      {
        std::lock_guard lock(mutex_);
        for (Ack& a : pending_) queue_.push_back(std::move(a));
      }
      ready_.notify_one();
    }
    pending_.clear();
  }

  void replyLoop() {
    std::vector<Ack> batch;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return !queue_.empty() || stopping_; });
        if (queue_.empty()) return;
        batch.swap(queue_);
      }
      answer(batch);
      batch.clear();
    }
  }

  // One send per session and one market-data send per subscriber for the whole batch, as the
  // exchange server's matching thread does. The ack is the size of the exchange's own ack.
  void answer(const std::vector<Ack>& batch) {
    ++batches_;
    std::vector<Session*> touched;
    marketData_.clear();
    for (const Ack& a : batch) {
      if (a.session->replies.empty()) touched.push_back(a.session.get());
      a.session->replies += "{\"type\":\"exec\",\"order_id\":" + std::to_string(++nextOrderId_) + ",\"cl_ord_id\":\"" +
                            a.clOrdId +
                            "\",\"state\":\"accepted\",\"side\":\"buy\",\"cluster\":1,\"gpus\":1,\"start\":600000,"
                            "\"end\":600001,\"limit\":2000000,\"leaves\":1}\n";
      marketData_ += "{\"type\":\"md\",\"seq\":" + std::to_string(nextOrderId_) +
                     ",\"cluster\":1,\"hour\":600000,\"side\":\"buy\",\"levels\":[[2000000,1]]}\n";
    }
    for (Session* s : touched) {
      sendAll(s->socket.native_handle(), s->replies);
      s->replies.clear();
    }
    std::vector<SessionPtr> subscribers;
    {
      std::lock_guard lock(mutex_);
      subscribers = subscribers_;
    }
    for (const SessionPtr& s : subscribers) sendAll(s->socket.native_handle(), marketData_);
  }

  const bool inline_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  std::thread ioThread_, replyThread_;
  std::unordered_set<SessionPtr> sessions_;  // io thread
  std::vector<Ack> pending_;                 // io thread
  bool flushPosted_ = false;                 // io thread
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<Ack> queue_;
  std::vector<SessionPtr> subscribers_;
  bool stopping_ = false;
  std::string marketData_;  // the answering thread's
  std::uint64_t nextOrderId_ = 0;
  std::atomic<std::uint64_t> batches_{0};
};

}  // namespace

int main(int argc, char** argv) {
  LoadOptions o;
  bool inlineReplies = false;
  std::vector<char*> args{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--inline") == 0)
      inlineReplies = true;
    else
      args.push_back(argv[i]);
  }
  if (!parseLoadOptions(static_cast<int>(args.size()), args.data(), o,
                        "usage: bench_loopback_floor [--inline] [--clients N] [--window W] [--seconds S] "
                        "[--rates R1,R2] [--md-subscribers N]"))
    return 2;
  FloorServer server(inlineReplies);
  server.start();
  std::printf("answer-only server on 127.0.0.1:%u (%s), %d clients, window %d, %d market-data subscriber(s)\n",
              server.port(), inlineReplies ? "io thread answers" : "io thread hands off to a replying thread",
              o.clients, o.window, o.mdSubscribers);
  printLoadAverage();
  asio::io_context io;
  LoopbackLoad load(io, server.port(), o);
  runLoadPhases(load, o, ServerProbe{[&] { return server.batches(); }, [] {}, [] {}});
  server.stop();
  return 0;
}
