#include "core/net/ExchangeServer.h"

#include "core/net/ClientMessage.h"
#include "core/net/ExchangeCore.h"
#include "core/net/Journal.h"
#include "core/net/ServerMessage.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <iostream>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace tessera::net {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

}  // namespace

class ExchangeServer::Impl {
 public:
  struct Session;
  using SessionPtr = std::shared_ptr<Session>;

  struct Opened { SessionPtr session; };
  struct Closed { SessionId id; };
  struct Request { SessionId id; ClientMessage message; };
  struct BadLine { SessionId id; ParseError error; };
  struct Injected { InputEvent event; std::string account; };
  struct WallClock { Hour hour; };
  using Item = std::variant<Opened, Closed, Request, BadLine, Injected, WallClock>;

  struct Session : std::enable_shared_from_this<Session> {
    Session(Impl& server, tcp::socket s, SessionId i)
        : impl(server), socket(std::move(s)), id(i), tokens(server.config.limits.burstMessages) {}
    Impl& impl;
    tcp::socket socket;
    SessionId id;
    std::array<char, 64 * 1024> readBuffer{};
    std::string partial;
    std::deque<std::shared_ptr<const std::string>> writeQueue;
    std::size_t writing = 0;  // buffers of writeQueue in flight
    std::size_t pendingBytes = 0;
    bool closed = false;
    bool closeWhenFlushed = false;
    bool readingStopped = false;
    Clock::time_point lastRead = Clock::now();
    Clock::time_point lastWrite = Clock::now();
    double tokens;
    Clock::time_point lastRefill = Clock::now();
  };

  explicit Impl(ExchangeConfig c) : config(std::move(c)), acceptor(io) {}

  ExchangeConfig config;
  asio::io_context io;
  tcp::acceptor acceptor;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::unique_ptr<asio::steady_timer> ticker;
  std::thread ioThread;
  std::thread matchThread;
  std::unique_ptr<Journal> journal;
  std::unique_ptr<ExchangeCore> core;
  std::uint64_t replayed = 0;
  std::uint16_t boundPort = 0;
  bool started = false;
  bool stopped = false;

  // Network -> matching thread.
  std::mutex queueMutex;
  std::condition_variable queueReady;
  std::vector<Item> queue;
  bool stopping = false;

  // io thread only.
  std::unordered_set<SessionPtr> sessions;
  SessionId nextSession = 1;
  Hour lastWallHour = 0;

  std::atomic<std::uint64_t> statMessages{0}, statBatches{0}, statSessions{0}, statDropped{0};

  void push(Item item) {
    {
      std::lock_guard lock(queueMutex);
      queue.push_back(std::move(item));
    }
    queueReady.notify_one();
  }
  void pushAll(std::vector<Item>& items) {
    if (items.empty()) return;
    {
      std::lock_guard lock(queueMutex);
      if (queue.empty()) {
        queue.swap(items);
      } else {
        for (Item& i : items) queue.push_back(std::move(i));
      }
    }
    items.clear();
    queueReady.notify_one();
  }

  // ---- io thread ----

  void accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec != asio::error::operation_aborted) accept();
        return;
      }
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto s = std::make_shared<Session>(*this, std::move(socket), nextSession++);
      sessions.insert(s);
      ++statSessions;
      push(Opened{s});
      read(s);
      accept();
    });
  }

  void read(const SessionPtr& s) {
    s->socket.async_read_some(asio::buffer(s->readBuffer),
                              [this, s](boost::system::error_code ec, std::size_t n) {
                                if (s->closed) return;
                                if (ec) {
                                  // A half-sent line is dropped with the connection: it was
                                  // never a request.
                                  close(s);
                                  return;
                                }
                                s->lastRead = Clock::now();
                                onData(s, std::string_view(s->readBuffer.data(), n));
                                if (!s->closed && !s->readingStopped) read(s);
                              });
  }

  bool takeToken(Session& s) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - s.lastRefill).count();
    s.lastRefill = now;
    s.tokens = std::min(config.limits.burstMessages,
                        s.tokens + elapsed * config.limits.maxMessagesPerSecond);
    if (s.tokens < 1.0) return false;
    s.tokens -= 1.0;
    return true;
  }

  void onLine(const SessionPtr& s, std::string_view line, std::vector<Item>& items) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return;
    if (!takeToken(*s)) {
      items.push_back(BadLine{s->id, ParseError{"rate_limited",
                                                "more than " +
                                                    std::to_string(static_cast<long long>(
                                                        config.limits.maxMessagesPerSecond)) +
                                                    " messages per second; request dropped",
                                                "", std::nullopt}});
      return;
    }
    auto parsed = parseClientMessage(line);
    if (auto* m = std::get_if<ClientMessage>(&parsed)) {
      items.push_back(Request{s->id, std::move(*m)});
    } else {
      items.push_back(BadLine{s->id, std::get<ParseError>(std::move(parsed))});
    }
  }

  void onData(const SessionPtr& s, std::string_view data) {
    std::vector<Item> items;
    const std::size_t maxBytes = config.limits.maxMessageBytes;
    while (!data.empty()) {
      const std::size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        s->partial.append(data);
        break;
      }
      if (s->partial.empty()) {
        if (nl <= maxBytes) onLine(s, data.substr(0, nl), items);
        else tooLarge(s, items);
      } else {
        s->partial.append(data.substr(0, nl));
        if (s->partial.size() <= maxBytes) onLine(s, s->partial, items);
        else tooLarge(s, items);
        s->partial.clear();
      }
      if (s->readingStopped) break;
      data.remove_prefix(nl + 1);
    }
    if (!s->readingStopped && s->partial.size() > maxBytes) tooLarge(s, items);
    pushAll(items);
  }

  // An oversized line cannot be skipped safely (its end may never come), so the session is
  // told why and closed once the explanation is sent.
  void tooLarge(const SessionPtr& s, std::vector<Item>& items) {
    items.push_back(BadLine{s->id, ParseError{"too_large",
                                              "a message may be at most " +
                                                  std::to_string(config.limits.maxMessageBytes) +
                                                  " bytes; closing the session",
                                              "", std::nullopt}});
    items.push_back(Closed{s->id});
    s->readingStopped = true;
    s->closeWhenFlushed = true;
    s->partial.clear();
    ++statDropped;
  }

  void send(const SessionPtr& s, std::shared_ptr<const std::string> bytes) {
    if (s->closed || bytes->empty()) return;
    s->pendingBytes += bytes->size();
    if (s->pendingBytes > config.limits.maxPendingOutboundBytes) {
      // A consumer that does not read must not make the server hold unbounded memory.
      ++statDropped;
      close(s);
      return;
    }
    s->writeQueue.push_back(std::move(bytes));
    if (s->writing == 0) write(s);
  }

  void write(const SessionPtr& s) {
    std::vector<asio::const_buffer> buffers;
    const std::size_t n = std::min<std::size_t>(s->writeQueue.size(), 64);
    buffers.reserve(n);
    for (std::size_t i = 0; i < n; ++i) buffers.emplace_back(asio::buffer(*s->writeQueue[i]));
    s->writing = n;
    asio::async_write(s->socket, buffers, [this, s](boost::system::error_code ec, std::size_t bytes) {
      if (s->closed) return;
      if (ec) {
        close(s);
        return;
      }
      s->lastWrite = Clock::now();
      s->pendingBytes -= bytes;
      for (std::size_t i = 0; i < s->writing; ++i) s->writeQueue.pop_front();
      s->writing = 0;
      if (!s->writeQueue.empty()) write(s);
      else if (s->closeWhenFlushed) close(s);
    });
  }

  void close(const SessionPtr& s) {
    if (s->closed) return;
    s->closed = true;
    boost::system::error_code ignored;
    s->socket.shutdown(tcp::socket::shutdown_both, ignored);
    s->socket.close(ignored);
    s->writeQueue.clear();
    sessions.erase(s);
    push(Closed{s->id});
  }

  void closeWhenFlushed(const SessionPtr& s) {
    if (s->closed) return;
    s->closeWhenFlushed = true;
    s->readingStopped = true;
    if (s->writing == 0 && s->writeQueue.empty()) close(s);
  }

  void tick() {
    ticker->expires_after(std::chrono::seconds(1));
    ticker->async_wait([this](boost::system::error_code ec) {
      if (ec) return;
      const auto now = Clock::now();
      static const auto heartbeat = std::make_shared<const std::string>("{\"type\":\"heartbeat\"}\n");
      std::vector<SessionPtr> idle;
      for (const SessionPtr& s : sessions) {
        if (now - s->lastRead > std::chrono::seconds(config.limits.idleTimeoutSeconds)) {
          idle.push_back(s);
        } else if (now - s->lastWrite > std::chrono::seconds(config.limits.heartbeatSeconds) &&
                   s->writeQueue.empty()) {
          s->lastWrite = now;
          send(s, heartbeat);
        }
      }
      for (const SessionPtr& s : idle) close(s);
      if (config.followWallClock) {
        const Hour hour = std::chrono::duration_cast<std::chrono::hours>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
        if (hour != lastWallHour) {
          lastWallHour = hour;
          push(WallClock{hour});
        }
      }
      tick();
    });
  }

  // ---- matching thread ----

  void matchLoop() {
    std::unordered_map<SessionId, SessionPtr> live;
    std::vector<Item> batch;
    Outbox out;
    for (;;) {
      {
        std::unique_lock lock(queueMutex);
        queueReady.wait(lock, [this] { return !queue.empty() || stopping; });
        if (queue.empty()) break;
        batch.swap(queue);
      }
      for (Item& item : batch) {
        std::visit(
            [&](auto& i) {
              using T = std::decay_t<decltype(i)>;
              if constexpr (std::is_same_v<T, Opened>) {
                live[i.session->id] = i.session;
                core->sessionOpened(i.session->id);
              } else if constexpr (std::is_same_v<T, Closed>) {
                core->sessionClosed(i.id);
                // Keep the pointer until this batch's replies are handed over: they may still
                // include the reason the session is being closed.
              } else if constexpr (std::is_same_v<T, Request>) {
                ++statMessages;
                core->handle(i.id, i.message, out);
              } else if constexpr (std::is_same_v<T, BadLine>) {
                core->handleParseError(i.id, i.error, out);
              } else if constexpr (std::is_same_v<T, Injected>) {
                core->inject(i.event, i.account, out);
              } else if constexpr (std::is_same_v<T, WallClock>) {
                if (i.hour > core->engine().now()) core->inject(ClockAdvance{i.hour}, "", out);
              }
            },
            item);
      }
      core->finishBatch(out);
      journal->commit();
      ++statBatches;
      deliver(out, live);
      for (Item& item : batch) {
        if (auto* c = std::get_if<Closed>(&item)) live.erase(c->id);
      }
      batch.clear();
      out.clear();
    }
  }

  void deliver(Outbox& out, const std::unordered_map<SessionId, SessionPtr>& live) {
    struct Delivery {
      std::vector<std::pair<SessionPtr, std::shared_ptr<const std::string>>> own;
      std::vector<SessionPtr> md;
      std::shared_ptr<const std::string> mdBytes;
      std::vector<SessionPtr> close;
    };
    auto d = std::make_shared<Delivery>();
    for (auto& [id, bytes] : out.toSession) {
      auto it = live.find(id);
      if (it != live.end() && !bytes.empty()) {
        d->own.emplace_back(it->second, std::make_shared<const std::string>(std::move(bytes)));
      }
    }
    if (!out.marketData.empty()) {
      d->mdBytes = std::make_shared<const std::string>(std::move(out.marketData));
      for (SessionId id : out.subscribers) {
        auto it = live.find(id);
        if (it != live.end()) d->md.push_back(it->second);
      }
    }
    for (SessionId id : out.disconnect) {
      auto it = live.find(id);
      if (it != live.end()) d->close.push_back(it->second);
    }
    if (d->own.empty() && d->md.empty() && d->close.empty()) return;
    asio::post(io, [this, d] {
      for (auto& [s, bytes] : d->own) send(s, bytes);
      for (auto& s : d->md) send(s, d->mdBytes);
      for (auto& s : d->close) closeWhenFlushed(s);
    });
  }
};

ExchangeServer::ExchangeServer(ExchangeConfig config)
    : impl_(std::make_unique<Impl>(std::move(config))) {}

ExchangeServer::~ExchangeServer() { stop(); }

void ExchangeServer::start() {
  Impl& m = *impl_;
  if (m.started) return;
  auto opened = Journal::open(m.config.dbPath, m.config.syncFull);
  if (auto* err = std::get_if<std::string>(&opened)) throw std::runtime_error(*err);
  m.journal = std::move(std::get<std::unique_ptr<Journal>>(opened));
  m.core = std::make_unique<ExchangeCore>(m.config, *m.journal);
  m.replayed = m.core->replayedEntries();

  boost::system::error_code ec;
  const auto address = asio::ip::make_address(m.config.listenAddress, ec);
  if (ec) throw std::runtime_error("bad listen address '" + m.config.listenAddress + "'");
  const tcp::endpoint endpoint(address, m.config.port);
  m.acceptor.open(endpoint.protocol(), ec);
  if (!ec) m.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(endpoint, ec);
  if (!ec) m.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("cannot listen on " + m.config.listenAddress + ":" +
                             std::to_string(m.config.port) + ": " + ec.message());
  }
  m.boundPort = m.acceptor.local_endpoint().port();
  m.work.emplace(m.io.get_executor());
  m.ticker = std::make_unique<asio::steady_timer>(m.io);
  m.accept();
  m.tick();
  m.started = true;
  m.matchThread = std::thread([&m] {
    try {
      m.matchLoop();
    } catch (const std::exception& e) {
      // Only a failing journal gets here: nothing more may be acknowledged, so stop serving.
      std::cerr << "tessera-exchange: fatal: " << e.what() << "\n";
      std::_Exit(3);
    }
  });
  m.ioThread = std::thread([&m] { m.io.run(); });
}

void ExchangeServer::stop() {
  Impl& m = *impl_;
  if (!m.started || m.stopped) return;
  m.stopped = true;
  asio::post(m.io, [&m] {
    boost::system::error_code ignored;
    m.acceptor.close(ignored);
    m.ticker->cancel();
    std::vector<Impl::SessionPtr> all(m.sessions.begin(), m.sessions.end());
    for (const auto& s : all) m.close(s);
    m.work.reset();
  });
  m.ioThread.join();
  {
    std::lock_guard lock(m.queueMutex);
    m.stopping = true;
  }
  m.queueReady.notify_one();
  m.matchThread.join();
  m.journal->commit();
}

void ExchangeServer::runUntilSignalled() {
  Impl& m = *impl_;
  std::mutex mu;
  std::condition_variable cv;
  bool signalled = false;
  asio::signal_set signals(m.io, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code ec, int) {
    if (ec) return;
    std::lock_guard lock(mu);
    signalled = true;
    cv.notify_one();
  });
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return signalled; });
  }
  stop();
}

std::uint16_t ExchangeServer::port() const { return impl_->boundPort; }
std::uint64_t ExchangeServer::replayedEntries() const { return impl_->replayed; }

ServerStats ExchangeServer::stats() const {
  return ServerStats{impl_->statMessages.load(), impl_->statBatches.load(),
                     impl_->statSessions.load(), impl_->statDropped.load()};
}

void ExchangeServer::inject(const InputEvent& event, std::string account) {
  impl_->push(Impl::Injected{event, std::move(account)});
}

}  // namespace tessera::net
