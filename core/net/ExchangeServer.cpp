#include "core/net/SnapshotStore.h"
#include "core/net/ExchangeServer.h"

#include "core/net/ChildSnapshot.h"
#include "core/net/ClientMessage.h"
#include "core/net/ExchangeCore.h"
#include "core/net/ExchangeLog.h"
#include "core/net/Journal.h"
#include "core/net/LogonGate.h"
#include "core/net/ServerMessage.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <spdlog/spdlog.h>

#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

namespace tessera::net {
namespace {

namespace asio = boost::asio;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;
using TlsStream = ssl::stream<tcp::socket&>;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kReadBufferBytes = 64 * 1024;

// ThreadSanitizer does not support fork() in a threaded program: its builds serialize
// snapshots on the matching thread.
#if defined(__SANITIZE_THREAD__)
constexpr bool kSnapshotInChild = false;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
constexpr bool kSnapshotInChild = false;
#else
constexpr bool kSnapshotInChild = true;
#endif
#else
constexpr bool kSnapshotInChild = true;
#endif

// Why a session was closed, for the log.
enum class Why : std::uint8_t {
  PeerClosed,
  LoggedOff,
  IdleTimeout,
  LogonTimeout,
  LineTimeout,
  Oversized,
  SlowReader,
  TlsFailed,
  Shutdown
};

struct WhyText {
  LogKind kind;
  spdlog::level::level_enum level;
  const char* text;
};

WhyText whyText(Why w) {
  switch (w) {
    case Why::PeerClosed: return {LogKind::PeerClosed, spdlog::level::info, "peer closed"};
    case Why::LoggedOff: return {LogKind::LoggedOff, spdlog::level::info, "logged off by the exchange"};
    case Why::IdleTimeout: return {LogKind::IdleTimeout, spdlog::level::info, "idle timeout"};
    case Why::LogonTimeout: return {LogKind::LogonTimeout, spdlog::level::warn, "logon timeout"};
    case Why::LineTimeout: return {LogKind::LineTimeout, spdlog::level::warn, "line timeout (partial line)"};
    case Why::Oversized: return {LogKind::Oversized, spdlog::level::warn, "oversized line"};
    case Why::SlowReader: return {LogKind::SlowReader, spdlog::level::warn, "slow reader"};
    case Why::TlsFailed: return {LogKind::TlsFailed, spdlog::level::warn, "TLS handshake failed"};
    case Why::Shutdown: break;
  }
  return {LogKind::PeerClosed, spdlog::level::debug, "shutdown"};
}

std::string errorLine(std::string_view code, std::string_view reason) {
  std::string line = "{\"type\":\"error\",\"code\":\"";
  line += code;
  line += "\",\"reason\":\"";
  line += reason;
  line += "\"}\n";
  return line;
}

bool outOfDescriptors(const boost::system::error_code& ec) {
  return ec == boost::system::errc::too_many_files_open || ec == boost::system::errc::too_many_files_open_in_system ||
         ec == boost::system::errc::no_buffer_space || ec == boost::system::errc::not_enough_memory;
}

std::unique_ptr<ssl::context> makeServerTlsContext(const std::string& cert, const std::string& key) {
  if (cert.empty() || key.empty()) throw std::runtime_error("TLS needs both a certificate and a key");
  auto ctx = std::make_unique<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                   ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
  SSL_CTX_set_min_proto_version(ctx->native_handle(), TLS1_2_VERSION);
  boost::system::error_code ec;
  ctx->use_certificate_chain_file(cert, ec);
  if (ec) throw std::runtime_error("cannot use TLS certificate '" + cert + "': " + ec.message());
  ctx->use_private_key_file(key, ssl::context::pem, ec);
  if (ec) {
    throw std::runtime_error("cannot use TLS key '" + key + "' with certificate '" + cert + "': " + ec.message());
  }
  if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
    throw std::runtime_error("TLS key '" + key + "' does not match certificate '" + cert + "'");
  }
  return ctx;
}

}  // namespace

class ExchangeServer::Impl {
 public:
  struct Session;
  using SessionPtr = std::shared_ptr<Session>;

  struct Opened {
    SessionPtr session;
  };
  struct Closed {
    SessionId id;
  };
  // Requests and bad lines carry their session: the matching thread's `live` holds it from its
  // Opened to the end of the batch of its Closed, which comes after them.
  struct Request {
    Session* session;
    ClientMessage message;
    Clock::time_point read;
  };
  struct BadLine {
    Session* session;
    ParseError error;
  };
  struct Injected {
    InputEvent event;
    std::string account;
  };
  struct WallClock {
    Hour hour;
  };
  // A second passed: the call mode's periodic call may be due (ExchangeCore::callTick).
  struct CallTick {};
  // A session whose requests wait (backpressure) has drained its outbound queue enough.
  struct Drained {
    SessionId id;
  };
  using Item = std::variant<Opened, Closed, Request, BadLine, Injected, WallClock, CallTick, Drained>;

  struct Session : std::enable_shared_from_this<Session> {
    Session(Impl& server, tcp::socket s, SessionId i, asio::ip::address a, std::string text)
        : impl(server),
          socket(std::move(s)),
          id(i),
          remote(std::move(a)),
          address(std::move(text)),
          readBuffer(new char[kReadBufferBytes]),
          tokens(server.config.limits.burstMessages) {
      server.sessionObjects.fetch_add(1, std::memory_order_relaxed);
      if (server.sslContext) tls = std::make_unique<TlsStream>(socket, *server.sslContext);
    }
    ~Session() { impl.sessionObjects.fetch_sub(1, std::memory_order_relaxed); }
    Impl& impl;
    tcp::socket socket;
    // TLS sessions read and write through this stream, on the io thread only (the matching
    // thread queues their replies instead of sending them itself). Set before the session is
    // shared and kept to the end, so either thread may test it.
    std::unique_ptr<TlsStream> tls;
    bool ready = false;  // io thread: plaintext, or the TLS handshake is done
    SessionId id;
    asio::ip::address remote;
    std::string address;  // "ip:port", for the log
    // io thread. Released at close (a closed session may live on a little in handlers).
    std::unique_ptr<char[]> readBuffer;
    std::string partial;
    Clock::time_point partialSince;  // when `partial` began (line_timeout_seconds)
    const Clock::time_point opened = Clock::now();
    bool closed = false;   // io thread: no more reads, no more handlers
    bool reading = false;  // a read is in flight
    bool readingStopped = false;
    bool readIdle = false;   // no read in flight because of readPaused
    std::optional<Why> why;  // set when a close is decided
    // A logon is at the LogonGate: what arrives after it waits in `held` (and no more is read)
    // so that the session's requests reach the matching thread in the order sent.
    bool logonPending = false;
    std::string held;
    Clock::time_point lastRead = Clock::now();
    std::atomic<bool> loggedOn{false};  // set by the matching thread
    // Backpressure. `outstanding`: bytes handed over for sending and not yet written (queued
    // here, or on their way to the io thread). The matching thread sets readPaused when the
    // session's outstanding + being-built bytes pass the budget, and keeps the session's
    // requests in `deferred` (matching thread only) until the io thread reports a drain.
    std::atomic<std::size_t> outstanding{0};
    std::atomic<bool> readPaused{false};
    std::deque<Item> deferred;
    bool deferring = false;
    bool closedForMatching = false;  // matching thread: its Closed was processed
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

  explicit Impl(ExchangeConfig c)
      : config(std::move(c)), acceptor(io), acceptTimer(io), drainTimer(io), gate(config.accounts) {
    // A budget over the cap would never pause a session before dropping it.
    Limits& l = config.limits;
    l.outboundBudgetBytes = std::min(l.outboundBudgetBytes, l.maxPendingOutboundBytes);
  }

  ExchangeConfig config;
  std::atomic<std::int64_t> sessionObjects{0};  // before io: its handlers may hold sessions
  std::unique_ptr<ssl::context> sslContext;     // TLS on the client port (config.tlsCertFile)
  asio::io_context io;
  tcp::acceptor acceptor;
  asio::steady_timer acceptTimer;               // the pause after running out of descriptors
  asio::steady_timer drainTimer;                // stop(): the most time replies may take to leave
  bool draining = false;                        // io thread: stop() has begun; nothing more is read
  std::map<asio::ip::address, int> perAddress;  // io thread: open sessions by remote address
  LogonGate gate;                               // destroyed before io: its callbacks post there
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::unique_ptr<asio::steady_timer> ticker;
  std::thread ioThread;
  std::thread matchThread;
  std::unique_ptr<Journal> journal;
  std::unique_ptr<ExchangeCore> core;

  // Snapshots: after a commit, when one is due, the matching thread reads the snapshot's header
  // from the journal and forks a child that serializes the state (ChildSnapshot.h), so trading
  // pauses for the fork alone; the writer thread collects the child's bytes and writes them to
  // the snapshot store. Where a child cannot be forked (no memory, process limit, or a
  // ThreadSanitizer build, which does not support fork in a threaded program) the matching
  // thread serializes the state itself. A snapshot still being made when the next is due puts
  // that one off to a later batch. The last is taken and written at stop, in this process.
  std::unique_ptr<SnapshotStore> snapshots;
  std::uint64_t fingerprint = 0;
  std::uint64_t lastSnapshotSeq = 0;             // taken: matching thread (then stop())
  std::atomic<std::uint64_t> lastWrittenSeq{0};  // written: the writer thread
  Clock::time_point lastSnapshotAt = Clock::now();
  std::atomic<std::size_t> lastSnapshotBytes{0};  // the last one's size: room reserved at once
  struct SnapshotJob {
    std::uint64_t seq = 0;
    std::string bytes;                   // serialized here, or
    std::optional<ChildSnapshot> child;  // being serialized by a child
  };
  std::thread snapshotThread;
  std::mutex snapshotMutex;
  std::condition_variable snapshotWake;
  std::optional<SnapshotJob> snapshotToWrite;
  bool snapshotWriting = false;
  bool snapshotStop = false;
  std::atomic<std::uint64_t> statSnapshots{0}, statSnapshotPauseLast{0}, statSnapshotPauseMax{0};

  void maybeSnapshot() {
    if (!snapshots) return;
    const std::uint64_t seq = journal->lastSeq();
    if (seq == lastSnapshotSeq) return;
    const bool byEntries = config.snapshotEveryEntries > 0 &&
                           seq - lastSnapshotSeq >= static_cast<std::uint64_t>(config.snapshotEveryEntries);
    const bool byTime = config.snapshotEverySeconds > 0 &&
                        Clock::now() - lastSnapshotAt >= std::chrono::seconds(config.snapshotEverySeconds);
    if (!byEntries && !byTime) return;
    {
      std::lock_guard lock(snapshotMutex);
      if (snapshotWriting || snapshotToWrite) return;
    }
    SnapshotJob job = takeSnapshot(seq, kSnapshotInChild);
    {
      std::lock_guard lock(snapshotMutex);
      snapshotToWrite.emplace(std::move(job));
    }
    snapshotWake.notify_one();
  }

  // On the matching thread (or at stop, once it has ended): the time it takes is a pause in
  // trading.
  SnapshotJob takeSnapshot(std::uint64_t seq, bool inChild) {
    const auto t0 = Clock::now();
    SnapshotJob job;
    job.seq = seq;
    std::string header = core->snapshotHeader();
    const std::size_t expected = lastSnapshotBytes.load();
    if (inChild) {
      job.child = ChildSnapshot::start([&] { return core->snapshot(header, expected); });
      if (!job.child)
        exchangeLog()->warn("snapshot after journal entry {}: cannot fork ({}), serialized here", seq,
                            std::strerror(errno));
    }
    if (!job.child) {
      job.bytes = core->snapshot(std::move(header), expected);
      lastSnapshotBytes = job.bytes.size();
    }
    const auto micros =
        static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
    statSnapshotPauseLast = micros;
    if (micros > statSnapshotPauseMax) statSnapshotPauseMax = micros;
    lastSnapshotSeq = seq;
    lastSnapshotAt = Clock::now();
    if (job.child) {
      exchangeLog()->info("snapshot after journal entry {}: process {} serializes it (matching paused {} us)", seq,
                          job.child->pid(), micros);
    } else {
      exchangeLog()->info("snapshot after journal entry {}: {:.1f} MB taken in {} ms", seq,
                          static_cast<double>(job.bytes.size()) / (1 << 20), micros / 1000);
    }
    return job;
  }

  void writeSnapshot(SnapshotJob& job) {
    const auto t0 = Clock::now();
    if (job.child) {
      ChildSnapshot::Result r = job.child->collect();
      job.child.reset();
      if (!r.ok()) {
        // The journal holds everything: a restart replays more, nothing is lost.
        exchangeLog()->error("snapshot after journal entry {} not taken: {}", job.seq, r.error);
        return;
      }
      job.bytes = std::move(r.bytes);
      lastSnapshotBytes = job.bytes.size();
    }
    try {
      snapshots->write(job.seq, fingerprint, job.bytes);
      lastWrittenSeq = job.seq;
      ++statSnapshots;
      exchangeLog()->info("snapshot after journal entry {} ({:.1f} MB) written in {} ms", job.seq,
                          static_cast<double>(job.bytes.size()) / (1 << 20),
                          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count());
    } catch (const std::exception& e) {
      exchangeLog()->error("snapshot after journal entry {} not written: {}", job.seq, e.what());
    }
  }

  void snapshotLoop() {
    pthread_setname_np(pthread_self(), "tx-snapshot");
    for (;;) {
      SnapshotJob job;
      {
        std::unique_lock lock(snapshotMutex);
        snapshotWake.wait(lock, [this] { return snapshotToWrite.has_value() || snapshotStop; });
        if (!snapshotToWrite) return;
        job = std::move(*snapshotToWrite);
        snapshotToWrite.reset();
        snapshotWriting = true;
      }
      writeSnapshot(job);
      std::lock_guard lock(snapshotMutex);
      snapshotWriting = false;
    }
  }

  // At stop, after the last commit: the writer finishes what it has, then the state as it is
  // now is written, unless the last snapshot written is of it.
  void finishSnapshots() {
    if (!snapshots) return;
    {
      std::lock_guard lock(snapshotMutex);
      snapshotStop = true;
    }
    snapshotWake.notify_one();
    if (snapshotThread.joinable()) snapshotThread.join();
    const std::uint64_t seq = journal->lastSeq();
    if (seq != lastWrittenSeq.load()) {
      SnapshotJob job = takeSnapshot(seq, false);
      writeSnapshot(job);
    }
  }
  std::uint64_t replayed = 0;
  Hour clockAtStart = 0;
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
  std::atomic<std::uint64_t> statRefused{0}, statAcceptFailures{0}, statTimedOut{0}, statPaused{0}, statPeakOutbound{0};
  std::atomic<std::size_t> openSessions{0};
  // Matching thread: sessions paused in this batch, and those whose queue drained since.
  std::vector<SessionPtr> pausedNow, resumable;
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
        if (ec == asio::error::operation_aborted || draining) return;
        if (outOfDescriptors(ec)) {
          // The connection stays in the backlog; accepting again at once would only fail again,
          // as fast as the loop can go. Wait, then try.
          ++statAcceptFailures;
          logEvent(LogKind::AcceptBackoff, spdlog::level::warn, [&] {
            return "accept failed: " + ec.message() + "; retrying in " + std::to_string(config.limits.acceptBackoffMs) +
                   " ms";
          });
          acceptTimer.expires_after(std::chrono::milliseconds(config.limits.acceptBackoffMs));
          acceptTimer.async_wait([this](boost::system::error_code e) {
            if (!e && !draining) accept();
          });
          return;
        }
        accept();
        return;
      }
      admit(std::move(socket));
      accept();
    });
  }

  // io thread: a connection accepted, to refuse or to serve.
  void admit(tcp::socket socket) {
    boost::system::error_code ec;
    const tcp::endpoint peer = socket.remote_endpoint(ec);
    if (ec) return;  // already gone
    const asio::ip::address addr = peer.address();
    std::string text = addr.to_string() + ":" + std::to_string(peer.port());
    const Limits& l = config.limits;
    const char* refusal = nullptr;
    if (sessions.size() >= static_cast<std::size_t>(l.maxSessions)) {
      refusal = "too_many_sessions";
      logEvent(LogKind::SessionLimit, spdlog::level::warn,
               [&] { return "refused " + text + ": max_sessions (" + std::to_string(l.maxSessions) + ") reached"; });
    } else if (auto it = perAddress.find(addr); it != perAddress.end() && it->second >= l.maxSessionsPerAddress) {
      refusal = "too_many_sessions";
      logEvent(LogKind::AddressLimit, spdlog::level::warn, [&] {
        return "refused " + text + ": max_sessions_per_address (" + std::to_string(l.maxSessionsPerAddress) +
               ") reached for " + addr.to_string();
      });
    }
    if (refusal) {
      ++statRefused;
      // One line saying why, if the socket takes it at once; never waits for the peer. (Over
      // TLS it would take a handshake: the peer only sees the connection close.)
      if (!sslContext) {
        const std::string line = errorLine(refusal, "the exchange has too many sessions open; try later");
        ::send(socket.native_handle(), line.data(), line.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      }
      socket.close(ec);
      return;
    }
    socket.set_option(tcp::no_delay(true), ec);
    ++perAddress[addr];
    auto s = std::make_shared<Session>(*this, std::move(socket), nextSession++, addr, std::move(text));
    sessions.insert(s);
    openSessions.store(sessions.size(), std::memory_order_relaxed);
    ++statSessions;
    logEvent(LogKind::Accepted, spdlog::level::info,
             [&] { return "session " + std::to_string(s->id) + " accepted from " + s->address; });
    toMatching(Opened{s});
    if (!s->tls) {
      s->ready = true;
      read(s);
      return;
    }
    // The logon deadline covers the handshake too: a peer that never finishes it is closed.
    s->tls->async_handshake(ssl::stream_base::server, [this, s](boost::system::error_code e) {
      if (s->closed) return;
      if (e) {
        s->why = Why::TlsFailed;
        logEvent(LogKind::TlsFailed, spdlog::level::warn, [&] {
          return "session " + std::to_string(s->id) + " from " + s->address + " closed: TLS handshake failed (" +
                 e.message() + ")";
        });
        close(s, Why::TlsFailed, false);
        return;
      }
      s->ready = true;
      read(s);
    });
  }

  // A rate-limited line (ExchangeLog.h): at most one per kind per second. `text()` makes the
  // line only when it is written, so a flood costs no allocation.
  template <class F>
  static void logEvent(LogKind kind, spdlog::level::level_enum level, F&& text) {
    const auto log = exchangeLog();
    if (!log->should_log(level)) return;
    const long long n = logAdmit(kind);
    if (n < 0) return;
    log->log(level, "{}{}", text(), logLeftOut(n));
  }

  void read(const SessionPtr& s) {
    if (s->closed || s->readingStopped || draining || s->logonPending) return;
    if (s->readPaused.load(std::memory_order_acquire)) {
      s->readIdle = true;  // resumeReading() starts it again
      return;
    }
    s->reading = true;
    auto done = [this, s](boost::system::error_code ec, std::size_t n) {
      s->reading = false;
      if (s->closed) {
        s->readBuffer.reset();
        return;
      }
      if (ec) {
        // A half-sent line is dropped with the connection: it was never a request.
        close(s, Why::PeerClosed);
        return;
      }
      // stop() has begun: what arrives now is neither applied nor answered.
      if (draining) return;
      s->lastRead = Clock::now();
      onData(s, std::string_view(s->readBuffer.get(), n));
      read(s);
    };
    const auto buffer = asio::buffer(s->readBuffer.get(), kReadBufferBytes);
    if (s->tls)
      s->tls->async_read_some(buffer, std::move(done));
    else
      s->socket.async_read_some(buffer, std::move(done));
  }

  // io thread, posted by the matching thread when a paused session's requests are all done.
  void resumeReading(const SessionPtr& s) {
    if (s->closed || !s->readIdle) return;
    s->readIdle = false;
    const auto now = Clock::now();
    s->lastRead = now;  // the idle and line timeouts count from now, not from the pause
    if (!s->partial.empty()) s->partialSince = now;
    read(s);
  }

  bool takeToken(Session& s) {
    const auto now = Clock::now();
    const double elapsed = std::chrono::duration<double>(now - s.lastRefill).count();
    s.lastRefill = now;
    s.tokens = std::min(config.limits.burstMessages, s.tokens + elapsed * config.limits.maxMessagesPerSecond);
    if (s.tokens < 1.0) return false;
    s.tokens -= 1.0;
    return true;
  }

  void onLine(const SessionPtr& s, std::string_view line, std::vector<Item>& items, Clock::time_point readAt) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return;
    if (!takeToken(*s)) {
      logEvent(LogKind::RateLimited, spdlog::level::warn, [&] {
        return "session " + std::to_string(s->id) + " from " + s->address +
               ": over max_messages_per_second, requests dropped";
      });
      items.push_back(
          BadLine{s.get(),
                  ParseError{"rate_limited",
                             "more than " + std::to_string(static_cast<long long>(config.limits.maxMessagesPerSecond)) +
                                 " messages per second; request dropped",
                             "", std::nullopt}});
      return;
    }
    auto parsed = parseClientMessage(line);
    if (auto* m = std::get_if<ClientMessage>(&parsed)) {
      // A logon on a session that is logged on already is answered by the core without a key
      // check, so nobody can keep the gate busy with a valid key.
      if (std::holds_alternative<Logon>(m->request) && !s->loggedOn.load(std::memory_order_acquire)) {
        checkLogon(s, std::move(*m), readAt);
        return;
      }
      items.push_back(Request{s.get(), std::move(*m), readAt});
    } else {
      items.push_back(BadLine{s.get(), std::get<ParseError>(std::move(parsed))});
    }
  }

  void onData(const SessionPtr& s, std::string_view data) {
    std::vector<Item>& items = pending;
    const std::size_t before = items.size();
    const Clock::time_point readAt = s->lastRead;
    const std::size_t maxBytes = config.limits.maxMessageBytes;
    while (!data.empty() && !s->readingStopped) {
      if (s->logonPending) {
        s->held.append(data);
        break;
      }
      const std::size_t nl = data.find('\n');
      if (nl == std::string_view::npos) {
        if (s->partial.empty()) s->partialSince = readAt;
        s->partial.append(data);
        break;
      }
      if (s->partial.empty()) {
        if (nl <= maxBytes)
          onLine(s, data.substr(0, nl), items, readAt);
        else
          tooLarge(s, items);
      } else {
        s->partial.append(data.substr(0, nl));
        if (s->partial.size() <= maxBytes)
          onLine(s, s->partial, items, readAt);
        else
          tooLarge(s, items);
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
    gate.check(std::move(account), std::move(key), s->remote.to_string(),
               [this, s, m = std::move(m), readAt](LogonVerdict v) mutable {
                 asio::post(io, [this, s, m = std::move(m), readAt, v]() mutable {
                   auto& logon = std::get<Logon>(m.request);
                   logon.check = v.check;
                   logon.retryAfterMs = v.retryAfter.count();
                   s->logonPending = false;
                   // A session being closed (logout, failed logons, a deadline) or a server
                   // stopping takes nothing more to the matching thread.
                   if (s->closed || s->readingStopped || draining) return;
                   toMatching(Request{s.get(), std::move(m), readAt});
                   const std::string held = std::exchange(s->held, {});
                   onData(s, held);
                   if (!s->closed && !s->readingStopped && !s->logonPending) read(s);
                 });
               });
  }

  // An oversized line cannot be skipped safely (its end may never come), so the session is
  // told why and closed once the explanation is sent.
  void tooLarge(const SessionPtr& s, std::vector<Item>& items) {
    s->why = Why::Oversized;
    items.push_back(
        BadLine{s.get(), ParseError{"too_large",
                                    "a message may be at most " + std::to_string(config.limits.maxMessageBytes) +
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
  Offered offerLocked(Session& s, std::string_view bytes, const std::shared_ptr<const std::string>& owner) {
    if (s.writeClosed || bytes.empty()) return Offered::Done;
    std::size_t sent = 0;
    if (s.writeQueue.empty() && !s.tls) {
      const ssize_t n = ::send(s.socket.native_handle(), bytes.data(), bytes.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
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
    s.outstanding.fetch_add(bytes.size() - sent, std::memory_order_relaxed);
    const bool first = s.writeQueue.empty();
    if (first) s.lastWrite = Clock::now();  // the slow-reader clock starts with the queue
    s.writeQueue.push_back(owner && sent == 0 ? owner : std::make_shared<const std::string>(bytes.substr(sent)));
    return first ? Offered::StartWrite : Offered::Done;
  }

  // io thread. `inTransit`: bytes of `bytes` that handOff() counted as outstanding.
  void send(const SessionPtr& s, const std::shared_ptr<const std::string>& bytes, std::size_t inTransit = 0) {
    if (s->closed) return;
    Offered o;
    bool flushed;
    {
      std::lock_guard lock(s->writeMutex);
      o = offerLocked(*s, *bytes, bytes);
      flushed = s->closeWhenFlushed && s->writeQueue.empty();
    }
    if (inTransit) outstandingDown(s, inTransit);
    if (o == Offered::StartWrite)
      write(s);
    else if (o == Offered::Drop)
      drop(s);
    else if (flushed)
      close(s, Why::PeerClosed);
  }

  // io thread: `n` bytes of the session's are no longer outstanding. Tells the matching thread
  // when a paused session has drained to half its budget.
  void outstandingDown(const SessionPtr& s, std::size_t n) {
    const std::size_t before = s->outstanding.fetch_sub(n, std::memory_order_acq_rel);
    const std::size_t low = config.limits.outboundBudgetBytes / 2;
    if (before > low && before - n <= low && s->readPaused.load(std::memory_order_acquire)) {
      toMatching(Drained{s->id});
    }
  }

  // A slow reader: over max_pending_outbound_bytes, or (`stuck`) took no byte for
  // idle_timeout_seconds while replies waited.
  void drop(const SessionPtr& s, bool stuck = false) {
    if (s->closed) return;
    ++statDropped;
    std::size_t pending;
    {
      std::lock_guard lock(s->writeMutex);
      pending = s->pendingBytes;
    }
    s->why = Why::SlowReader;
    logEvent(LogKind::SlowReader, spdlog::level::warn, [&] {
      return "session " + std::to_string(s->id) + " from " + s->address + " dropped: slow reader (" +
             std::to_string(pending) + " bytes waiting" +
             (stuck ? ", none taken for " + std::to_string(config.limits.idleTimeoutSeconds) + " s)"
                    : ", max_pending_outbound_bytes " + std::to_string(config.limits.maxPendingOutboundBytes) + ")");
    });
    close(s, Why::SlowReader, false);
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
    auto done = [this, s](boost::system::error_code ec, std::size_t bytes) {
      if (s->closed) return;
      if (ec) {
        close(s, Why::PeerClosed);
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
      outstandingDown(s, bytes);
      if (more)
        write(s);
      else if (closeNow)
        close(s, Why::PeerClosed);
    };
    if (s->tls)
      asio::async_write(*s->tls, buffers, std::move(done));
    else
      asio::async_write(s->socket, buffers, std::move(done));
  }

  // io thread. `why` is logged unless an earlier decision (s->why) says otherwise.
  void close(const SessionPtr& s, Why why, bool log = true) {
    if (s->closed) return;
    s->closed = true;
    if (s->why) why = *s->why;
    {
      std::lock_guard lock(s->writeMutex);
      s->writeClosed = true;
      boost::system::error_code ignored;
      s->socket.shutdown(tcp::socket::shutdown_both, ignored);
      s->socket.close(ignored);
      std::deque<std::shared_ptr<const std::string>>().swap(s->writeQueue);
    }
    // What the session held is released now, not when its last handler lets go of it.
    std::string().swap(s->partial);
    if (!s->reading) s->readBuffer.reset();  // else the aborted read's handler does it
    sessions.erase(s);
    openSessions.store(sessions.size(), std::memory_order_relaxed);
    if (auto it = perAddress.find(s->remote); it != perAddress.end() && --it->second <= 0) {
      perAddress.erase(it);
    }
    if (log && why != Why::Shutdown) {
      const WhyText w = whyText(why);
      logEvent(w.kind, w.level,
               [&] { return "session " + std::to_string(s->id) + " from " + s->address + " closed: " + w.text; });
    }
    toMatching(Closed{s->id});
    if (draining && sessions.empty()) drainTimer.cancel();
  }

  void closeWhenFlushed(const SessionPtr& s, Why why) {
    if (s->closed) return;
    if (!s->why) s->why = why;
    s->readingStopped = true;
    bool now;
    {
      std::lock_guard lock(s->writeMutex);
      s->closeWhenFlushed = true;
      now = s->writing == 0 && s->writeQueue.empty();
    }
    if (now) close(s, why);
  }

  // io thread: tells the session why (one error line) and closes it once that is sent.
  void expire(const SessionPtr& s, Why why, std::string_view code, const std::string& reason) {
    ++statTimedOut;
    s->why = why;
    send(s, std::make_shared<const std::string>(errorLine(code, reason)));
    closeWhenFlushed(s, why);
  }

  void tick() {
    ticker->expires_after(std::chrono::seconds(1));
    ticker->async_wait([this](boost::system::error_code ec) {
      // stop() cancels the ticker, but a tick already due when it does still runs, with no
      // error: it must not arm the next one, or the io thread never runs out of work.
      if (ec || draining) return;
      const auto now = Clock::now();
      const Limits& l = config.limits;
      static const auto heartbeat = std::make_shared<const std::string>("{\"type\":\"heartbeat\"}\n");
      enum class Due { None, Heartbeat, Idle, Logon, Line, Stuck, Handshake };
      std::vector<std::pair<SessionPtr, Due>> due;
      for (const SessionPtr& s : sessions) {
        bool queued, stuck, quiet;
        {
          std::lock_guard lock(s->writeMutex);
          queued = !s->writeQueue.empty();
          stuck = queued && now - s->lastWrite > std::chrono::seconds(l.idleTimeoutSeconds);
          quiet = !queued && now - s->lastWrite > std::chrono::seconds(l.heartbeatSeconds);
          if (quiet) s->lastWrite = now;
        }
        const bool paused = s->readIdle || s->readPaused.load(std::memory_order_relaxed);
        if (!s->ready) {
          // Still in its TLS handshake: no line can be sent to it yet.
          if (now - s->opened > std::chrono::seconds(l.logonTimeoutSeconds)) due.emplace_back(s, Due::Handshake);
          continue;
        }
        if (stuck) {
          due.emplace_back(s, Due::Stuck);  // has not taken a byte for idle_timeout_seconds
        } else if (s->readingStopped) {
          continue;
        } else if (!s->loggedOn.load(std::memory_order_relaxed) &&
                   now - s->opened > std::chrono::seconds(l.logonTimeoutSeconds)) {
          due.emplace_back(s, Due::Logon);
        } else if (!paused && !s->partial.empty() &&
                   now - s->partialSince > std::chrono::seconds(l.lineTimeoutSeconds)) {
          due.emplace_back(s, Due::Line);
        } else if (!paused && now - s->lastRead > std::chrono::seconds(l.idleTimeoutSeconds)) {
          due.emplace_back(s, Due::Idle);
        } else if (quiet) {
          due.emplace_back(s, Due::Heartbeat);
        }
      }
      for (const auto& [s, what] : due) {
        switch (what) {
          case Due::Heartbeat: send(s, heartbeat); break;
          case Due::Idle:
            ++statTimedOut;
            close(s, Why::IdleTimeout);
            break;
          case Due::Logon:
            expire(s, Why::LogonTimeout, "logon_timeout",
                   "not logged on within " + std::to_string(l.logonTimeoutSeconds) + " seconds; closing the session");
            break;
          case Due::Line:
            expire(s, Why::LineTimeout, "line_timeout",
                   "a line was not completed within " + std::to_string(l.lineTimeoutSeconds) +
                       " seconds; closing the session");
            break;
          case Due::Stuck: drop(s, true); break;
          case Due::Handshake:
            ++statTimedOut;
            close(s, Why::LogonTimeout);
            break;
          case Due::None: break;
        }
      }
      if (config.followWallClock) {
        const Hour hour =
            std::chrono::duration_cast<std::chrono::hours>(std::chrono::system_clock::now().time_since_epoch()).count();
        if (hour != lastWallHour) {
          lastWallHour = hour;
          toMatching(WallClock{hour});
        }
      }
      if (config.callMode.any() && config.callMode.periodSeconds > 0) toMatching(CallTick{});
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
        queueReady.wait(lock, [this] { return !queue.empty() || stopping || !resumable.empty(); });
        // At stop, requests still held back by backpressure are dropped: never applied, never
        // answered.
        if (queue.empty() && stopping) break;
        batch.swap(queue);
      }
      const Clock::time_point picked = Clock::now();
      Clock::time_point oldest = picked;
      std::uint32_t requests = 0;
      auto apply = [&](Item& item) {
        std::visit(
            [&](auto& i) {
              using T = std::decay_t<decltype(i)>;
              if constexpr (std::is_same_v<T, Opened>) {
                live[i.session->id] = i.session;
                core->sessionOpened(i.session->id, i.session->address);
              } else if constexpr (std::is_same_v<T, Closed>) {
                core->sessionClosed(i.id);
                // Keep the pointer until this batch's replies are handed over: they may still
                // include the reason the session is being closed.
                if (auto it = live.find(i.id); it != live.end()) {
                  std::deque<Item>().swap(it->second->deferred);
                  it->second->deferring = false;
                }
              } else if constexpr (std::is_same_v<T, Request>) {
                Session& s = *i.session;
                if (s.deferring) return s.deferred.push_back(std::move(item));
                ++statMessages;
                ++requests;
                oldest = std::min(oldest, i.read);
                core->handle(s.id, i.message, out);
                if (std::holds_alternative<Logon>(i.message.request)) {
                  s.loggedOn.store(core->loggedOn(s.id), std::memory_order_relaxed);
                }
                checkBudget(s, out);
              } else if constexpr (std::is_same_v<T, BadLine>) {
                Session& s = *i.session;
                if (s.deferring) return s.deferred.push_back(std::move(item));
                core->handleParseError(s.id, i.error, out);
                checkBudget(s, out);
              } else if constexpr (std::is_same_v<T, Injected>) {
                core->inject(i.event, i.account, out);
              } else if constexpr (std::is_same_v<T, WallClock>) {
                if (i.hour > core->engine().now()) core->inject(ClockAdvance{i.hour}, "", out);
              } else if constexpr (std::is_same_v<T, CallTick>) {
                core->callTick(out);
              } else if constexpr (std::is_same_v<T, Drained>) {
                auto it = live.find(i.id);
                if (it != live.end() && it->second->deferring &&
                    it->second->outstanding.load(std::memory_order_acquire) <= config.limits.outboundBudgetBytes / 2) {
                  runDeferred(it->second, out);
                }
              }
            },
            item);
      };
      // Sessions whose replies drained since the last batch first: their held requests were
      // read before anything of theirs in this batch.
      for (std::size_t k = 0; k < resumable.size(); ++k) {
        const SessionPtr s = std::move(resumable[k]);
        if (s->deferring && !s->closedForMatching) runDeferred(s, out);
      }
      resumable.clear();
      for (Item& item : batch) apply(item);
      core->finishBatch(out);
      const Clock::time_point applied = Clock::now();
      journal->commit();
      const Clock::time_point committed = Clock::now();
      ++statBatches;
      deliver(out, live, requests);
      maybeSnapshot();
      // A session paused in this batch whose replies already left (the socket took them) will
      // see no write complete: it goes on in the next round.
      const std::size_t low = config.limits.outboundBudgetBytes / 2;
      for (SessionPtr& s : pausedNow) {
        if (s->deferring && s->outstanding.load(std::memory_order_acquire) <= low) {
          resumable.push_back(std::move(s));
        }
      }
      pausedNow.clear();
      if (requests) {
        auto micros = [](Clock::duration d) {
          return static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
        };
        const BatchTiming t{requests, micros(picked - oldest), micros(applied - picked), micros(committed - applied),
                            micros(Clock::now() - committed)};
        std::lock_guard lock(timingMutex);
        if (timings.size() < kMaxTimings) timings.push_back(t);
      }
      for (Item& item : batch) {
        if (auto* c = std::get_if<Closed>(&item)) {
          if (auto it = live.find(c->id); it != live.end()) {
            it->second->closedForMatching = true;
            live.erase(it);
          }
        }
      }
      batch.clear();
      out.clear();
    }
  }

  // Matching thread, after a request of `s`: if its outstanding bytes and those being built for
  // it in this batch pass the budget, its next requests wait until the io thread has sent
  // enough (Drained), and the io thread stops reading it meanwhile.
  void checkBudget(Session& s, Outbox& out) {
    const auto it = out.toSession.find(s.id);
    const std::size_t built = it == out.toSession.end() ? 0 : it->second.size();
    const std::size_t total = built + s.outstanding.load(std::memory_order_relaxed);
    if (total <= config.limits.outboundBudgetBytes) return;
    if (total > statPeakOutbound.load(std::memory_order_relaxed)) statPeakOutbound.store(total);
    if (s.deferring) return;
    s.deferring = true;
    s.readPaused.store(true, std::memory_order_release);
    ++statPaused;
    pausedNow.push_back(s.shared_from_this());
    logEvent(LogKind::Backpressure, spdlog::level::info, [&] {
      return "session " + std::to_string(s.id) + " from " + s.address + ": " + std::to_string(total) +
             " bytes of replies waiting; its requests wait until they drain";
    });
  }

  // Matching thread: runs a paused session's held requests until they are done or the budget
  // is passed again; done, the io thread reads the session again.
  void runDeferred(const SessionPtr& sp, Outbox& out) {
    Session& s = *sp;
    s.deferring = false;
    while (!s.deferred.empty()) {
      Item item = std::move(s.deferred.front());
      s.deferred.pop_front();
      if (auto* r = std::get_if<Request>(&item)) {
        ++statMessages;
        core->handle(s.id, r->message, out);
        if (std::holds_alternative<Logon>(r->message.request)) {
          s.loggedOn.store(core->loggedOn(s.id), std::memory_order_relaxed);
        }
      } else if (auto* b = std::get_if<BadLine>(&item)) {
        core->handleParseError(s.id, b->error, out);
      }
      checkBudget(s, out);
      if (s.deferring) return;  // paused again, the rest still held
    }
    s.readPaused.store(false, std::memory_order_release);
    asio::post(io, [this, sp] { resumeReading(sp); });
  }

  // Matching thread, after the commit: sends each session its lines (and market data) itself;
  // only sessions whose socket did not take everything at once need the io thread. A large
  // batch means the matching thread is the bottleneck and latency is in milliseconds anyway:
  // its writes go to the io thread instead, so the two threads share the work (and so do
  // the batches after it until the io thread has taken it, or they could overtake it).
  void deliver(Outbox& out, const std::unordered_map<SessionId, SessionPtr>& live, std::uint32_t requests) {
    if (requests > kHandOffRequests || handOffsPending.load(std::memory_order_acquire) > 0) {
      handOff(out, live);
      return;
    }
    struct IoWork {
      std::vector<SessionPtr> write, drop, close;
    };
    IoWork work;
    auto offer = [&](const SessionPtr& s, std::string_view bytes, const std::shared_ptr<const std::string>& owner) {
      Offered o;
      bool flushed;
      {
        std::lock_guard lock(s->writeMutex);
        o = offerLocked(*s, bytes, owner);
        flushed = s->closeWhenFlushed && s->writeQueue.empty();
      }
      if (o == Offered::StartWrite)
        work.write.push_back(s);
      else if (o == Offered::Drop)
        work.drop.push_back(s);
      else if (flushed)
        work.close.push_back(s);  // its last words are out
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
      for (const SessionPtr& s : w.close) closeWhenFlushed(s, Why::LoggedOff);
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
    // Counted as outstanding until the io thread has offered them, so that backpressure sees
    // bytes on their way too.
    for (auto& [id, bytes] : out.toSession) {
      auto it = live.find(id);
      if (it != live.end() && !bytes.empty()) {
        it->second->outstanding.fetch_add(bytes.size(), std::memory_order_relaxed);
        d.own.emplace_back(it->second, std::make_shared<const std::string>(std::move(bytes)));
      }
    }
    if (!out.marketData.empty()) {
      d.mdBytes = std::make_shared<const std::string>(std::move(out.marketData));
      for (SessionId id : out.subscribers) {
        auto it = live.find(id);
        if (it != live.end()) {
          it->second->outstanding.fetch_add(d.mdBytes->size(), std::memory_order_relaxed);
          d.md.push_back(it->second);
        }
      }
    }
    for (SessionId id : out.disconnect) {
      auto it = live.find(id);
      if (it != live.end()) d.close.push_back(it->second);
    }
    handOffsPending.fetch_add(1, std::memory_order_relaxed);
    asio::post(io, [this, d = std::move(d)] {
      for (const auto& [s, bytes] : d.own) send(s, bytes, bytes->size());
      for (const SessionPtr& s : d.md) send(s, d.mdBytes, d.mdBytes->size());
      for (const SessionPtr& s : d.close) closeWhenFlushed(s, Why::LoggedOff);
      handOffsPending.fetch_sub(1, std::memory_order_release);
    });
  }
};

ExchangeServer::ExchangeServer(ExchangeConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}

ExchangeServer::~ExchangeServer() { stop(); }

void ExchangeServer::start() {
  Impl& m = *impl_;
  if (m.started) return;
  // Address and TLS first: a refusal should not wait for a journal replay.
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(m.config.listenAddress, ec);
  if (ec) throw std::runtime_error("bad listen address '" + m.config.listenAddress + "'");
  if (!m.config.tlsCertFile.empty() || !m.config.tlsKeyFile.empty()) {
    m.sslContext = makeServerTlsContext(m.config.tlsCertFile, m.config.tlsKeyFile);
  } else if (!address.is_loopback()) {
    throw std::runtime_error("refusing to listen on " + m.config.listenAddress +
                             " in plaintext: API keys and orders would cross the network readable by anyone on the "
                             "path. Give a certificate and key (--tls-cert/--tls-key, or tls_cert/tls_key in the "
                             "config), or listen on a loopback address (127.0.0.1, ::1)");
  }

  auto opened = Journal::open(m.config.dbPath, m.config.syncFull);
  if (auto* err = std::get_if<std::string>(&opened)) throw JournalUnreadable(*err);
  m.journal = std::move(std::get<std::unique_ptr<Journal>>(opened));
  if (m.config.snapshots && m.config.dbPath != ":memory:" && !m.config.dbPath.empty()) {
    auto store = SnapshotStore::open(m.config.dbPath + ".snapshots");
    if (auto* err = std::get_if<std::string>(&store)) {
      // The journal alone is enough: start by a full replay and take no snapshots.
      exchangeLog()->error("{}; no snapshots", *err);
    } else {
      m.snapshots = std::move(std::get<std::unique_ptr<SnapshotStore>>(store));
    }
  }
  m.fingerprint = ExchangeCore::configFingerprint(m.config);
  m.core = ExchangeCore::start(m.config, *m.journal, m.config.snapshotsAtStart ? m.snapshots.get() : nullptr);
  m.lastSnapshotSeq = m.core->snapshotSeq();
  m.lastWrittenSeq = m.core->snapshotSeq();
  m.lastSnapshotAt = Clock::now();
  // The journal entries the state holds: those in the snapshot it started from and those
  // replayed after it (a caller asks whether there was anything to restore).
  m.replayed = m.core->snapshotSeq() + m.core->replayedEntries();
  m.clockAtStart = m.core->engine().now();

  const tcp::endpoint endpoint(address, m.config.port);
  m.acceptor.open(endpoint.protocol(), ec);
  if (!ec) m.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) m.acceptor.bind(endpoint, ec);
  if (!ec) m.acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("cannot listen on " + m.config.listenAddress + ":" + std::to_string(m.config.port) + ": " +
                             ec.message());
  }
  m.boundPort = m.acceptor.local_endpoint().port();
  exchangeLog()->info("listening on {}:{}{}, journal {} ({} journal entries: {} from a snapshot, {} replayed)",
                      m.config.listenAddress, m.boundPort, m.sslContext ? " (TLS)" : " (plaintext, loopback only)",
                      m.config.dbPath, m.replayed, m.core->snapshotSeq(), m.core->replayedEntries());
  m.work.emplace(m.io.get_executor());
  m.ticker = std::make_unique<asio::steady_timer>(m.io);
  m.accept();
  m.tick();
  m.started = true;
  if (m.snapshots) m.snapshotThread = std::thread([&m] { m.snapshotLoop(); });
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
  exchangeLog()->info("stopping: {} sessions open", m.openSessions.load());
  // 1. The io thread stops accepting and reading, and hands the matching thread what it has
  //    read. From here on nothing new is taken in.
  std::promise<void> quiet;
  asio::post(m.io, [&m, &quiet] {
    m.draining = true;
    boost::system::error_code ignored;
    m.acceptor.close(ignored);
    m.acceptTimer.cancel();
    m.ticker->cancel();
    m.pushAll(m.pending);
    quiet.set_value();
  });
  quiet.get_future().wait();
  // 2. The matching thread applies and commits everything queued, hands over its replies, and
  //    ends. The io thread keeps writing meanwhile.
  {
    std::lock_guard lock(m.queueMutex);
    m.stopping = true;
  }
  m.queueReady.notify_one();
  m.matchThread.join();
  // 3. Every reply is sent, then the sessions close (or after shutdown_drain_seconds, for
  //    peers that do not read).
  asio::post(m.io, [&m] {
    std::vector<Impl::SessionPtr> all(m.sessions.begin(), m.sessions.end());
    for (const auto& s : all) m.closeWhenFlushed(s, Why::Shutdown);
    if (!m.sessions.empty()) {
      m.drainTimer.expires_after(std::chrono::seconds(m.config.limits.shutdownDrainSeconds));
      m.drainTimer.async_wait([&m](boost::system::error_code ec) {
        if (ec) return;
        std::vector<Impl::SessionPtr> left(m.sessions.begin(), m.sessions.end());
        if (!left.empty()) {
          exchangeLog()->warn("stopping: {} sessions did not take their replies within {} s; closed", left.size(),
                              m.config.limits.shutdownDrainSeconds);
        }
        for (const auto& s : left) m.close(s, Why::Shutdown);
      });
    }
    m.work.reset();
  });
  m.ioThread.join();
  m.journal->commit();
  m.finishSnapshots();
  const ServerStats st = stats();
  exchangeLog()->info("stopped after {} requests in {} commits, {} sessions ({} dropped, {} refused)", st.messages,
                      st.batches, st.sessions, st.dropped, st.refused);
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
std::uint64_t ExchangeServer::snapshotEntries() const { return impl_->core ? impl_->core->snapshotSeq() : 0; }
Hour ExchangeServer::clockAtStart() const { return impl_->clockAtStart; }

std::vector<BatchTiming> ExchangeServer::takeBatchTimings() {
  std::lock_guard lock(impl_->timingMutex);
  return std::exchange(impl_->timings, {});
}

ServerStats ExchangeServer::stats() const {
  const Impl& m = *impl_;
  ServerStats s;
  s.messages = m.statMessages.load();
  s.batches = m.statBatches.load();
  s.sessions = m.statSessions.load();
  s.dropped = m.statDropped.load();
  s.refused = m.statRefused.load();
  s.acceptFailures = m.statAcceptFailures.load();
  s.timedOut = m.statTimedOut.load();
  s.paused = m.statPaused.load();
  s.peakOutboundBytes = m.statPeakOutbound.load();
  s.openSessions = m.openSessions.load();
  s.sessionObjects = static_cast<std::uint64_t>(std::max<std::int64_t>(0, m.sessionObjects.load()));
  s.snapshots = m.statSnapshots.load();
  s.lastSnapshotPauseMicros = m.statSnapshotPauseLast.load();
  s.maxSnapshotPauseMicros = m.statSnapshotPauseMax.load();
  s.startSnapshotSeq = m.core ? m.core->snapshotSeq() : 0;
  return s;
}

void ExchangeServer::inject(const InputEvent& event, std::string account) {
  impl_->push(Impl::Injected{event, std::move(account)});
}

}  // namespace tessera::net
