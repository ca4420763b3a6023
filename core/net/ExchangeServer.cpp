#include "core/net/ExchangeServer.h"

#include "core/net/ClientMessage.h"
#include "core/net/ExchangeCore.h"
#include "core/net/Journal.h"
#include "core/net/LogonGate.h"
#include "core/net/ServerMessage.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>

#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
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
  struct Request { SessionId id; ClientMessage message; Clock::time_point read; };
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
    bool closed = false;  // io thread: no more reads, no more handlers
    bool readingStopped = false;
    // A logon is at the LogonGate: what arrives after it waits in `held` (and no more is read)
    // so that the session's requests reach the matching thread in the order sent.
    bool logonPending = false;
    std::string held;
    std::string remote;  // the peer's address, for the logon throttle
    Clock::time_point lastRead = Clock::now();
    // Outbound state, shared by the two threads: the matching thread sends a batch's replies
    // itself when nothing is queued (saving a hop through the io thread); what the socket does
    // not take at once is queued here and written by the io thread. Invariant: a non-empty
    // writeQueue has an io-thread write in flight or posted. The socket is closed only under
    // this mutex, so the matching thread never sends on a descriptor that was reused.
    std::mutex writeMutex;
    std::deque<std::shared_ptr<const std::string>> writeQueue;
    std::size_t writing = 0;  // buffers of writeQueue in flight
    std::size_t pendingBytes = 0;
    bool writeClosed = false;
    bool closeWhenFlushed = false;
    Clock::time_point lastWrite = Clock::now();
    double tokens;
    Clock::time_point lastRefill = Clock::now();
  };

  explicit Impl(ExchangeConfig c) : config(std::move(c)), acceptor(io), gate(config.accounts) {}

  ExchangeConfig config;
  asio::io_context io;
  tcp::acceptor acceptor;
  LogonGate gate;  // destroyed before io: its callbacks post there
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

  // io thread only. Items read in one round of ready sockets go to the matching thread
  // together (one lock, one wake-up), in the order they were read.
  std::vector<Item> pending;
  bool flushPosted = false;
  std::unordered_set<SessionPtr> sessions;
  SessionId nextSession = 1;
  Hour lastWallHour = 0;

  std::atomic<std::uint64_t> statMessages{0}, statBatches{0}, statSessions{0}, statDropped{0};
  mutable std::mutex timingMutex;
  std::vector<BatchTiming> timings;  // since the last takeBatchTimings(), at most kMaxTimings
  static constexpr std::size_t kMaxTimings = 1 << 20;
  // Batches of more requests than this hand their writes to the io thread (see deliver()).
  static constexpr std::uint32_t kHandOffRequests = 256;
  std::atomic<int> handOffsPending{0};

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

  // Queues an item for the matching thread; it leaves once the io thread has handled every
  // socket that was ready (a handler posted now runs after those already queued).
  void toMatching(Item item) {
    pending.push_back(std::move(item));
    flushSoon();
  }
  void flushSoon() {
    if (flushPosted) return;
    flushPosted = true;
    asio::post(io, [this] {
      flushPosted = false;
      pushAll(pending);
    });
  }

  void accept() {
    acceptor.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
      if (ec) {
        if (ec != asio::error::operation_aborted) accept();
        return;
      }
      boost::system::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      auto s = std::make_shared<Session>(*this, std::move(socket), nextSession++);
      s->remote = s->socket.remote_endpoint(ignored).address().to_string();
      sessions.insert(s);
      ++statSessions;
      toMatching(Opened{s});
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
                                if (!s->closed && !s->readingStopped && !s->logonPending) read(s);
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

  void onLine(const SessionPtr& s, std::string_view line, std::vector<Item>& items, Clock::time_point readAt) {
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
      if (std::holds_alternative<Logon>(m->request)) {
        checkLogon(s, std::move(*m), readAt);
        return;
      }
      items.push_back(Request{s->id, std::move(*m), readAt});
    } else {
      items.push_back(BadLine{s->id, std::get<ParseError>(std::move(parsed))});
    }
  }

  void onData(const SessionPtr& s, std::string_view data) {
    std::vector<Item>& items = pending;
    const std::size_t before = items.size();
    const Clock::time_point readAt = s->lastRead;
    const std::size_t maxBytes = config.limits.maxMessageBytes;
    while (!data.empty()) {
      if (s->logonPending) {
        s->held.append(data);
        break;
      }
      const std::size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        s->partial.append(data);
        break;
      }
      if (s->partial.empty()) {
        if (nl <= maxBytes) onLine(s, data.substr(0, nl), items, readAt);
        else tooLarge(s, items);
      } else {
        s->partial.append(data.substr(0, nl));
        if (s->partial.size() <= maxBytes) onLine(s, s->partial, items, readAt);
        else tooLarge(s, items);
        s->partial.clear();
      }
      if (s->readingStopped) break;
      data.remove_prefix(nl + 1);
    }
    if (!s->readingStopped && s->partial.size() > maxBytes) tooLarge(s, items);
    if (items.size() > before) flushSoon();
  }

  // The key is checked on the gate's thread; the logon goes on to the matching thread with the
  // verdict, and the session's reading resumes with what arrived meanwhile.
  void checkLogon(const SessionPtr& s, ClientMessage m, Clock::time_point readAt) {
    s->logonPending = true;
    auto& logon = std::get<Logon>(m.request);
    std::string account = logon.account, key = std::move(logon.key);
    logon.key.clear();
    gate.check(std::move(account), std::move(key), s->remote,
               [this, s, m = std::move(m), readAt](LogonVerdict v) mutable {
                 asio::post(io, [this, s, m = std::move(m), readAt, v]() mutable {
                   auto& logon = std::get<Logon>(m.request);
                   logon.check = v.check;
                   logon.retryAfterMs = v.retryAfter.count();
                   s->logonPending = false;
                   if (s->closed) return;
                   toMatching(Request{s->id, std::move(m), readAt});
                   const std::string held = std::exchange(s->held, {});
                   onData(s, held);
                   if (!s->closed && !s->readingStopped && !s->logonPending) read(s);
                 });
               });
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
    {
      std::lock_guard lock(s->writeMutex);
      s->closeWhenFlushed = true;
    }
    s->partial.clear();
    ++statDropped;
  }

  enum class Offered { Done, StartWrite, Drop };

  // Either thread, holding s.writeMutex. Sends at once when nothing is queued (MSG_DONTWAIT:
  // never blocks); queues whatever the socket did not take.
  // `owner`, if given, holds `bytes` and is queued as it is; otherwise what is queued is copied.
  Offered offerLocked(Session& s, std::string_view bytes,
                      const std::shared_ptr<const std::string>& owner) {
    if (s.writeClosed || bytes.empty()) return Offered::Done;
    std::size_t sent = 0;
    if (s.writeQueue.empty()) {
      const ssize_t n = ::send(s.socket.native_handle(), bytes.data(), bytes.size(),
                               MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return Offered::Drop;
      sent = n > 0 ? static_cast<std::size_t>(n) : 0;
      if (sent) s.lastWrite = Clock::now();
      if (sent == bytes.size()) return Offered::Done;
    }
    s.pendingBytes += bytes.size() - sent;
    if (s.pendingBytes > config.limits.maxPendingOutboundBytes) {
      // A consumer that does not read must not make the server hold unbounded memory.
      return Offered::Drop;
    }
    const bool first = s.writeQueue.empty();
    s.writeQueue.push_back(owner && sent == 0
                               ? owner
                               : std::make_shared<const std::string>(bytes.substr(sent)));
    return first ? Offered::StartWrite : Offered::Done;
  }

  // io thread.
  void send(const SessionPtr& s, const std::shared_ptr<const std::string>& bytes) {
    if (s->closed) return;
    Offered o;
    bool flushed;
    {
      std::lock_guard lock(s->writeMutex);
      o = offerLocked(*s, *bytes, bytes);
      flushed = s->closeWhenFlushed && s->writeQueue.empty();
    }
    if (o == Offered::StartWrite) write(s);
    else if (o == Offered::Drop) drop(s);
    else if (flushed) close(s);
  }

  void drop(const SessionPtr& s) {
    if (s->closed) return;
    ++statDropped;
    close(s);
  }

  // io thread.
  void write(const SessionPtr& s) {
    if (s->closed) return;
    std::vector<asio::const_buffer> buffers;
    {
      std::lock_guard lock(s->writeMutex);
      if (s->writing || s->writeQueue.empty()) return;
      const std::size_t n = std::min<std::size_t>(s->writeQueue.size(), 64);
      buffers.reserve(n);
      // Deque elements stay put while the other thread appends, so the buffers stay valid.
      for (std::size_t i = 0; i < n; ++i) buffers.emplace_back(asio::buffer(*s->writeQueue[i]));
      s->writing = n;
    }
    asio::async_write(s->socket, buffers, [this, s](boost::system::error_code ec, std::size_t bytes) {
      if (s->closed) return;
      if (ec) {
        close(s);
        return;
      }
      bool more, closeNow;
      {
        std::lock_guard lock(s->writeMutex);
        s->lastWrite = Clock::now();
        s->pendingBytes -= bytes;
        for (std::size_t i = 0; i < s->writing; ++i) s->writeQueue.pop_front();
        s->writing = 0;
        more = !s->writeQueue.empty();
        closeNow = !more && s->closeWhenFlushed;
      }
      if (more) write(s);
      else if (closeNow) close(s);
    });
  }

  void close(const SessionPtr& s) {
    if (s->closed) return;
    s->closed = true;
    {
      std::lock_guard lock(s->writeMutex);
      s->writeClosed = true;
      boost::system::error_code ignored;
      s->socket.shutdown(tcp::socket::shutdown_both, ignored);
      s->socket.close(ignored);
      s->writeQueue.clear();
    }
    sessions.erase(s);
    toMatching(Closed{s->id});
  }

  void closeWhenFlushed(const SessionPtr& s) {
    if (s->closed) return;
    s->readingStopped = true;
    bool now;
    {
      std::lock_guard lock(s->writeMutex);
      s->closeWhenFlushed = true;
      now = s->writing == 0 && s->writeQueue.empty();
    }
    if (now) close(s);
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
        } else {
          bool quiet;
          {
            std::lock_guard lock(s->writeMutex);
            quiet = now - s->lastWrite > std::chrono::seconds(config.limits.heartbeatSeconds) &&
                    s->writeQueue.empty();
            if (quiet) s->lastWrite = now;
          }
          if (quiet) send(s, heartbeat);
        }
      }
      for (const SessionPtr& s : idle) close(s);
      if (config.followWallClock) {
        const Hour hour = std::chrono::duration_cast<std::chrono::hours>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
        if (hour != lastWallHour) {
          lastWallHour = hour;
          toMatching(WallClock{hour});
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
      const Clock::time_point picked = Clock::now();
      Clock::time_point oldest = picked;
      std::uint32_t requests = 0;
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
                ++requests;
                oldest = std::min(oldest, i.read);
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
      const Clock::time_point applied = Clock::now();
      journal->commit();
      const Clock::time_point committed = Clock::now();
      ++statBatches;
      deliver(out, live, requests);
      if (requests) {
        auto micros = [](Clock::duration d) {
          return static_cast<std::uint32_t>(
              std::chrono::duration_cast<std::chrono::microseconds>(d).count());
        };
        const BatchTiming t{requests, micros(picked - oldest), micros(applied - picked),
                            micros(committed - applied), micros(Clock::now() - committed)};
        std::lock_guard lock(timingMutex);
        if (timings.size() < kMaxTimings) timings.push_back(t);
      }
      for (Item& item : batch) {
        if (auto* c = std::get_if<Closed>(&item)) live.erase(c->id);
      }
      batch.clear();
      out.clear();
    }
  }

  // Matching thread, after the commit: sends each session its lines (and market data) itself;
  // only sessions whose socket did not take everything at once need the io thread. A large
  // batch means the matching thread is the bottleneck and latency is in milliseconds anyway:
  // its writes go to the io thread instead, so the two threads share the work (and so do
  // the batches after it until the io thread has taken it, or they could overtake it).
  void deliver(Outbox& out, const std::unordered_map<SessionId, SessionPtr>& live,
               std::uint32_t requests) {
    if (requests > kHandOffRequests || handOffsPending.load(std::memory_order_acquire) > 0) {
      handOff(out, live);
      return;
    }
    struct IoWork {
      std::vector<SessionPtr> write, drop, close;
    };
    IoWork work;
    auto offer = [&](const SessionPtr& s, std::string_view bytes,
                     const std::shared_ptr<const std::string>& owner) {
      Offered o;
      bool flushed;
      {
        std::lock_guard lock(s->writeMutex);
        o = offerLocked(*s, bytes, owner);
        flushed = s->closeWhenFlushed && s->writeQueue.empty();
      }
      if (o == Offered::StartWrite) work.write.push_back(s);
      else if (o == Offered::Drop) work.drop.push_back(s);
      else if (flushed) work.close.push_back(s);  // its last words are out
    };
    static const std::shared_ptr<const std::string> none;
    for (auto& [id, bytes] : out.toSession) {
      auto it = live.find(id);
      if (it != live.end()) offer(it->second, bytes, none);
    }
    if (!out.marketData.empty()) {
      const auto md = std::make_shared<const std::string>(std::move(out.marketData));
      for (SessionId id : out.subscribers) {
        auto it = live.find(id);
        if (it != live.end()) offer(it->second, *md, md);
      }
    }
    for (SessionId id : out.disconnect) {
      auto it = live.find(id);
      if (it != live.end()) work.close.push_back(it->second);
    }
    if (work.write.empty() && work.drop.empty() && work.close.empty()) return;
    asio::post(io, [this, w = std::move(work)] {
      for (const SessionPtr& s : w.write) write(s);
      for (const SessionPtr& s : w.drop) drop(s);
      for (const SessionPtr& s : w.close) closeWhenFlushed(s);
    });
  }

  void handOff(Outbox& out, const std::unordered_map<SessionId, SessionPtr>& live) {
    struct Delivery {
      std::vector<std::pair<SessionPtr, std::shared_ptr<const std::string>>> own;
      std::vector<SessionPtr> md;
      std::shared_ptr<const std::string> mdBytes;
      std::vector<SessionPtr> close;
    };
    Delivery d;
    for (auto& [id, bytes] : out.toSession) {
      auto it = live.find(id);
      if (it != live.end() && !bytes.empty()) {
        d.own.emplace_back(it->second, std::make_shared<const std::string>(std::move(bytes)));
      }
    }
    if (!out.marketData.empty()) {
      d.mdBytes = std::make_shared<const std::string>(std::move(out.marketData));
      for (SessionId id : out.subscribers) {
        auto it = live.find(id);
        if (it != live.end()) d.md.push_back(it->second);
      }
    }
    for (SessionId id : out.disconnect) {
      auto it = live.find(id);
      if (it != live.end()) d.close.push_back(it->second);
    }
    handOffsPending.fetch_add(1, std::memory_order_relaxed);
    asio::post(io, [this, d = std::move(d)] {
      for (const auto& [s, bytes] : d.own) send(s, bytes);
      for (const SessionPtr& s : d.md) send(s, d.mdBytes);
      for (const SessionPtr& s : d.close) closeWhenFlushed(s);
      handOffsPending.fetch_sub(1, std::memory_order_release);
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
    pthread_setname_np(pthread_self(), "tx-match");  // for top -H and perf
    try {
      m.matchLoop();
    } catch (const std::exception& e) {
      // Only a failing journal gets here: nothing more may be acknowledged, so stop serving.
      std::cerr << "tessera-exchange: fatal: " << e.what() << "\n";
      std::_Exit(3);
    }
  });
  m.ioThread = std::thread([&m] {
    pthread_setname_np(pthread_self(), "tx-io");
    m.io.run();
  });
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

std::vector<BatchTiming> ExchangeServer::takeBatchTimings() {
  std::lock_guard lock(impl_->timingMutex);
  return std::exchange(impl_->timings, {});
}

ServerStats ExchangeServer::stats() const {
  return ServerStats{impl_->statMessages.load(), impl_->statBatches.load(),
                     impl_->statSessions.load(), impl_->statDropped.load()};
}

void ExchangeServer::inject(const InputEvent& event, std::string account) {
  impl_->push(Impl::Injected{event, std::move(account)});
}

}  // namespace tessera::net
