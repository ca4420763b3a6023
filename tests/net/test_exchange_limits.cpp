// The server's hardening over real loopback sockets: session limits (total and per address),
// the logon and line deadlines, memory released on close, the acceptor's pause when out of
// descriptors, backpressure on sessions whose replies pile up, a shutdown that answers what it
// applied, and the log.
#include "NetTestSupport.h"
#include "core/net/ExchangeLog.h"
#include "core/net/ExchangeServer.h"

#include <QTemporaryDir>
#include <QtTest>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

// Built with a sanitizer: GCC says so with __SANITIZE_*__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TESSERA_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TESSERA_TEST_SANITIZED 1
#endif
#endif
using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

std::size_t rssBytes() {
  std::ifstream in("/proc/self/statm");
  std::size_t pages = 0, resident = 0;
  in >> pages >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

int stopDelayMicros() {
  const char* e = std::getenv("STOP_DELAY_US");
  return e ? std::atoi(e) : 2000;
}

std::string fileText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

// Market data to replay: the provider lists and cancels 400 orders over 48 hours (each touches
// 48 cells twice). True once the exchange has applied them all.
bool publishMarketData(std::uint16_t port) {
  LineClient provider(port);
  if (!provider.logon("provider")) return false;
  std::string batch;
  for (int n = 0; n < 400; ++n) {
    batch += order("m" + std::to_string(n), "sell", 1, 1, kNow, kNow + 48, kDollar + n) + "\n";
    batch += "{\"type\":\"cancel\",\"cl_ord_id\":\"m" + std::to_string(n) + "\"}\n";
  }
  provider.sendRaw(batch);
  provider.send("{\"type\":\"heartbeat\",\"req\":99}");
  return provider.until("heartbeat", 20000ms).has_value();
}

// The market data's latest sequence number, from a fresh subscriber's snapshot.
std::uint64_t lastSeq(std::uint16_t port) {
  LineClient c(port);
  if (!c.logon("alice")) return 0;
  c.send("{\"type\":\"subscribe\"}");
  auto snapshot = c.until("md_snapshot");
  return snapshot ? (*snapshot)["seq"].get<std::uint64_t>() : 0;
}

class TestExchangeLimits : public QObject {
  Q_OBJECT
 private slots:
  void init() { resetLogLimits(); }

  void sessionsAreLimitedInTotalAndPerAddress() {
    ExchangeConfig cfg = marketConfig();
    cfg.limits.maxSessions = 3;
    cfg.limits.maxSessionsPerAddress = 2;
    ExchangeServer server(cfg);
    server.start();
    LineClient a1(server.port()), a2(server.port());
    QVERIFY(a1.logon("alice"));
    QVERIFY(a2.logon("alice"));
    // A third from the same address is told why and closed.
    LineClient a3(server.port());
    auto refused = a3.read();
    QVERIFY(refused.has_value());
    QCOMPARE((*refused)["code"].get<std::string>(), std::string("too_many_sessions"));
    QVERIFY(a3.closedByServer());
    // Another address still gets in, up to the total.
    LineClient b1(server.port(), "127.0.0.2");
    QVERIFY(b1.logon("bob"));
    LineClient c1(server.port(), "127.0.0.3");
    QVERIFY(c1.closedByServer());
    QCOMPARE(server.stats().refused, std::uint64_t(2));
    // A closed session frees its place.
    a1.close();
    QVERIFY(eventually([&] { return server.stats().openSessions == 2; }));
    LineClient a4(server.port());
    QVERIFY(a4.logon("alice"));
  }

  void logonDeadlineIgnoresHeartbeats() {
    ExchangeConfig cfg = marketConfig();
    cfg.limits.logonTimeoutSeconds = 1;
    ExchangeServer server(cfg);
    server.start();
    LineClient trader(server.port());
    QVERIFY(trader.logon("alice"));
    LineClient lurker(server.port());
    const auto start = std::chrono::steady_clock::now();
    bool closed = false;
    std::optional<json> error;
    while (std::chrono::steady_clock::now() - start < 5s && !closed) {
      lurker.send("{\"type\":\"heartbeat\"}");
      while (auto j = lurker.read(200ms)) {
        if ((*j)["type"] == "error") error = j;
      }
      closed = lurker.sawClose();
    }
    QVERIFY(closed);
    QVERIFY(std::chrono::steady_clock::now() - start < 4s);
    QVERIFY(error.has_value());
    QCOMPARE((*error)["code"].get<std::string>(), std::string("logon_timeout"));
    // The logged-on session is still served.
    trader.send("{\"type\":\"balance\",\"req\":5}");
    QVERIFY(trader.until("balance").has_value());
    QVERIFY(server.stats().timedOut >= 1);
  }

  void partialLineMustCompleteInTime() {
    ExchangeConfig cfg = marketConfig();
    cfg.limits.lineTimeoutSeconds = 1;
    ExchangeServer server(cfg);
    server.start();
    LineClient slow(server.port());
    QVERIFY(slow.logon("alice"));
    // One byte every 200 ms: the session never goes idle, but the line never ends.
    const std::string line = "{\"type\":\"balance\",\"req\":1}";
    const auto start = std::chrono::steady_clock::now();
    std::optional<json> error;
    bool closed = false;
    for (std::size_t i = 0; i < line.size() && !closed; ++i) {
      try {
        slow.sendRaw(line.substr(i, 1));
      } catch (const std::exception&) {
        closed = true;
        break;
      }
      if (auto j = slow.read(200ms)) {
        if ((*j)["type"] == "error") error = j;
      }
      closed = error.has_value() && slow.closedByServer(50ms);
    }
    QVERIFY(error.has_value());
    QCOMPARE((*error)["code"].get<std::string>(), std::string("line_timeout"));
    QVERIFY(slow.closedByServer());
    QVERIFY(std::chrono::steady_clock::now() - start < 4s);
    // A line sent in pieces within the deadline is fine.
    LineClient ok(server.port());
    QVERIFY(ok.logon("alice"));
    ok.sendRaw("{\"type\":\"bal");
    std::this_thread::sleep_for(300ms);
    ok.sendRaw("ance\",\"req\":2}\n");
    QCOMPARE((*ok.until("balance"))["req"].get<int>(), 2);
  }

  void closedSessionsAreFreed() {
    ExchangeServer server(marketConfig());
    server.start();
    {
      std::vector<std::unique_ptr<LineClient>> clients;
      for (int i = 0; i < 50; ++i) {
        clients.push_back(std::make_unique<LineClient>(server.port()));
        clients.back()->sendRaw("{\"type\":\"heartb");  // a partial line held by the server
      }
      QVERIFY(eventually([&] { return server.stats().openSessions == 50; }));
      QVERIFY(server.stats().sessionObjects >= 50);
    }
    // Closed by the peers: every session object (and its 64 KiB read buffer) goes.
    QVERIFY(eventually([&] { return server.stats().openSessions == 0; }));
    QVERIFY2(eventually([&] { return server.stats().sessionObjects == 0; }),
             qPrintable(QString::number(server.stats().sessionObjects)));
  }

  void acceptPausesWhenOutOfDescriptors() {
    ExchangeConfig cfg = marketConfig();
    cfg.limits.acceptBackoffMs = 100;
    ExchangeServer server(cfg);
    server.start();
    // The client's socket first; then every other descriptor is taken, so the server's accept
    // fails with EMFILE.
    const int client = ::socket(AF_INET, SOCK_STREAM, 0);
    QVERIFY(client >= 0);
    const int any = ::open("/dev/null", O_RDONLY);  // (standard input may be closed under CI)
    QVERIFY(any >= 0);
    rlimit old{};
    QCOMPARE(getrlimit(RLIMIT_NOFILE, &old), 0);
    rlimit low = old;
    low.rlim_cur = std::min<rlim_t>(old.rlim_cur, 4096);
    QCOMPARE(setrlimit(RLIMIT_NOFILE, &low), 0);
    std::vector<int> fillers;
    for (int fd; (fd = ::dup(any)) >= 0;) fillers.push_back(fd);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(server.port());
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::connect(client, reinterpret_cast<sockaddr*>(&to), sizeof to), 0);  // in the backlog
    std::this_thread::sleep_for(300ms);
    const std::uint64_t before = server.stats().acceptFailures;
    std::this_thread::sleep_for(1000ms);
    const std::uint64_t failures = server.stats().acceptFailures - before;
    for (int fd : fillers) ::close(fd);
    ::close(any);
    QCOMPARE(setrlimit(RLIMIT_NOFILE, &old), 0);
    QVERIFY(fillers.size() > 0);
    // About one try per 100 ms, not a spinning loop.
    QVERIFY2(failures >= 3 && failures <= 15, qPrintable(QString::number(failures)));
    // With descriptors back, the waiting connection is accepted and served.
    const std::string logon = "{\"type\":\"logon\",\"account\":\"alice\",\"key\":\"alice-key\"}\n";
    QCOMPARE(::send(client, logon.data(), logon.size(), MSG_NOSIGNAL), ssize_t(logon.size()));
    timeval tv{3, 0};
    setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[4096];
    const ssize_t n = ::recv(client, buf, sizeof buf, 0);
    ::close(client);
    QVERIFY(n > 0);
    QVERIFY(std::string(buf, n).find("logon_ack") != std::string::npos);
  }

  // Issue item 3: 40 replay-subscribes sent without reading cost about one outbound budget,
  // not 40 replays; the session gets them all once it reads; others trade meanwhile.
  void repliesArePacedByTheOutboundBudget() {
    ExchangeConfig cfg = marketConfig();
    cfg.limits.outboundBudgetBytes = 256 * 1024;
    cfg.limits.maxPendingOutboundBytes = 4 * 1024 * 1024;
    ExchangeServer server(cfg);
    server.start();
    QVERIFY(publishMarketData(server.port()));
    // One replay: the last 5,000 lines (a resume replays at most 1 MiB).
    const std::uint64_t from = lastSeq(server.port()) - 4999;
    LineClient probe(server.port());
    QVERIFY(probe.logon("bob"));
    probe.send("{\"type\":\"subscribe\",\"from_seq\":" + std::to_string(from) + "}");
    std::size_t replayLines = 0;
    {
      auto first = probe.read();
      QVERIFY(first.has_value());
      QCOMPARE((*first)["type"].get<std::string>(), std::string("md_resume"));
      replayLines = (*first)["seq"].get<std::size_t>() - from + 1;
    }
    probe.close();
    QVERIFY2(replayLines == 5000, qPrintable(QString::number(replayLines)));

    const std::size_t rssBefore = rssBytes();
    LineClient hog(server.port());
    QVERIFY(hog.logon("carol"));
    std::string subscribes;
    for (int i = 0; i < 40; ++i) subscribes += "{\"type\":\"subscribe\",\"from_seq\":" + std::to_string(from) + "}\n";
    hog.sendRaw(subscribes);
    QVERIFY(eventually([&] { return server.stats().paused >= 1; }));
    std::this_thread::sleep_for(500ms);
    const ServerStats st = server.stats();
    const std::size_t replayBytes = replayLines * 120;  // generous: md lines are shorter
    QVERIFY2(st.peakOutboundBytes <= cfg.limits.outboundBudgetBytes + 2 * replayBytes,
             qPrintable(QString::number(st.peakOutboundBytes)));
    // Resident memory measures the replies held only without a sanitizer: AddressSanitizer's
    // quarantine keeps freed memory resident, and both sanitizers map shadow memory as it goes.
#if !defined(TESSERA_TEST_SANITIZED)
    const std::size_t grown = rssBytes() > rssBefore ? rssBytes() - rssBefore : 0;
    QVERIFY2(grown < 10 * replayBytes, qPrintable(QString::number(grown)));  // 40 would be 40x
#else
    (void)rssBefore;
#endif
    QCOMPARE(st.dropped, std::uint64_t(0));

    // Others trade meanwhile.
    LineClient alice(server.port());
    QVERIFY(alice.logon("alice"));
    const auto t0 = std::chrono::steady_clock::now();
    alice.send(order("a1", "buy", 2, 1, kNow, kNow + 1, kDollar));
    QCOMPARE((*alice.exec("a1"))["state"].get<std::string>(), std::string("accepted"));
    QVERIFY(std::chrono::steady_clock::now() - t0 < 1s);

    // The hog reads at last and gets every reply, in order.
    int resumes = 0;
    while (auto j = hog.read(2000ms)) {
      if ((*j)["type"] == "md_resume") ++resumes;
    }
    QCOMPARE(resumes, 40);
    QCOMPARE(server.stats().dropped, std::uint64_t(0));
  }

  void sessionThatNeverReadsIsDropped() {
    ExchangeConfig cfg = marketConfig();
    cfg.limits.outboundBudgetBytes = 64 * 1024;
    cfg.limits.maxPendingOutboundBytes = 64 * 1024 * 1024;  // not reached: dropped for taking nothing
    cfg.limits.idleTimeoutSeconds = 2;
    ExchangeServer server(cfg);
    server.start();
    QVERIFY(publishMarketData(server.port()));
    const std::uint64_t from = lastSeq(server.port()) - 4999;
    LineClient hog(server.port());
    QVERIFY(hog.logon("carol"));
    std::string subscribes;
    for (int i = 0; i < 40; ++i) subscribes += "{\"type\":\"subscribe\",\"from_seq\":" + std::to_string(from) + "}\n";
    hog.sendRaw(subscribes);
    // It keeps sending (so it is not idle) but takes nothing.
    bool dropped = false;
    for (int i = 0; i < 60 && !dropped; ++i) {
      std::this_thread::sleep_for(100ms);
      try {
        hog.sendRaw("{\"type\":\"heartbeat\"}\n");
      } catch (const std::exception&) {
      }
      dropped = server.stats().dropped == 1;
    }
    QVERIFY(dropped);
    QVERIFY(hog.closedByServer(5000ms));
  }

  // Issue item 10: a stop in the middle of a stream of orders answers every order it applied;
  // the journal after a restart holds exactly the orders that were acknowledged.
  void stopAnswersWhatItApplied() {
#if defined(__SANITIZE_THREAD__)
    // Its chunked sending is sized for uninstrumented speed: under ThreadSanitizer the loop ends
    // before the stop it waits for. The server's threads are still checked by the tests above.
    QSKIP("paced for uninstrumented speed");
#endif
    QTemporaryDir dir;
    ExchangeConfig cfg = marketConfig();
    cfg.dbPath = dir.filePath("journal.db").toStdString();
    std::set<std::string> acked;
    int sent = 0;
    {
      ExchangeServer server(cfg);
      server.start();
      LineClient alice(server.port());
      QVERIFY(alice.logon("alice"));
      std::thread stopper;
      bool sending = true;
      // Orders go out in chunks, never blocking (the server stops reading at stop()); replies
      // are read in between, until the server has closed the session.
      for (int chunk = 0; chunk < 400; ++chunk) {
        if (sending) {
          std::string bytes;
          for (int k = sent; k < sent + 50; ++k) {
            bytes += order("o" + std::to_string(k), "buy", 1, 1, kNow + 10, kNow + 11, 10) + "\n";
          }
          if (alice.trySend(bytes))
            sent += 50;
          else
            sending = false;  // a partial line at most: never a request
        }
        while (auto j = alice.read(2ms)) {
          if ((*j)["type"] == "exec" && (*j)["state"] == "accepted") {
            acked.insert((*j)["cl_ord_id"].get<std::string>());
          }
        }
        if (!stopper.joinable() && acked.size() >= 500) {
          // A burst the server is still working through when it is told to stop.
          for (int b = 0; b < 20 && sending; ++b) {
            std::string bytes;
            for (int k = sent; k < sent + 50; ++k) {
              bytes += order("o" + std::to_string(k), "buy", 1, 1, kNow + 10, kNow + 11, 10) + "\n";
            }
            if (alice.trySend(bytes))
              sent += 50;
            else
              sending = false;
          }
          // Read by the io thread and queued for the matching thread, not yet all applied.
          std::this_thread::sleep_for(std::chrono::microseconds(stopDelayMicros()));
          stopper = std::thread([&] { server.stop(); });
        }
        if (stopper.joinable() && alice.sawClose()) break;
      }
      while (auto j = alice.read(5000ms)) {
        if ((*j)["type"] == "exec" && (*j)["state"] == "accepted") {
          acked.insert((*j)["cl_ord_id"].get<std::string>());
        }
      }
      QVERIFY(stopper.joinable());
      stopper.join();
    }
    QVERIFY(acked.size() >= 500);
    QVERIFY2(static_cast<int>(acked.size()) < sent, "the stop came after everything was sent");
    ExchangeServer again(cfg);
    again.start();
    LineClient alice(again.port());
    QVERIFY(alice.logon("alice"));
    alice.send("{\"type\":\"orders\"}");
    auto orders = alice.until("orders", 10000ms);
    QVERIFY(orders.has_value());
    std::set<std::string> applied;
    for (const json& o : (*orders)["orders"]) applied.insert(o["cl_ord_id"].get<std::string>());
    QCOMPARE(applied.size(), acked.size());
    QVERIFY(applied == acked);
  }

  void failedLogonsAndDisconnectsAreLogged() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("exchange.log").toStdString();
    auto logger =
        std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, true));
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::trace);
    setExchangeLogger(logger);
    {
      ExchangeServer server(marketConfig());
      server.start();
      // From its own address: the failed logons below slow down the address they come from.
      LineClient c(server.port(), "127.0.0.9");
      c.send("{\"type\":\"logon\",\"account\":\"alice\",\"key\":\"wrong\"}");
      QCOMPARE((*c.read())["code"].get<std::string>(), std::string("auth_failed"));
      // More in the same second are left out of the log, and counted.
      for (int i = 0; i < 5; ++i) {
        LineClient d(server.port());
        d.send("{\"type\":\"logon\",\"account\":\"mallory\",\"key\":\"x\"}");
        QVERIFY(d.read().has_value());
      }
      std::this_thread::sleep_for(600ms);  // alice's one failure delays her next logon 0.5 s
      QVERIFY(c.logon("alice"));
      // Rejects are logged with the account and the code.
      c.send("{\"type\":\"cancel\",\"order_id\":999}");
      QCOMPARE((*c.read())["code"].get<std::string>(), std::string("unknown_order"));
      c.close();
      QVERIFY(eventually([&] { return server.stats().openSessions == 0; }));
      std::this_thread::sleep_for(1100ms);
      // The parser refuses an escaped control character in an account name; the log writes any
      // client text that reaches it with control characters replaced.
      LineClient e(server.port());
      e.send("{\"type\":\"logon\",\"account\":\"nobody\\n2026-01-01 forged\",\"key\":\"x\"}");
      const auto refused = e.read();
      QVERIFY(refused.has_value());
      QCOMPARE((*refused)["code"].get<std::string>(), std::string("bad_field"));
      logFailedLogon("nobody\n2026-01-01 forged", "127.0.0.1:1", "wrong key");
    }
    setExchangeLogger(nullptr);
    const std::string log = fileText(path);
    QVERIFY2(log.find("failed logon: account 'alice' from 127.0.0.9:") != std::string::npos, log.c_str());
    QVERIFY2(log.find("wrong key") != std::string::npos, log.c_str());
    QVERIFY2(log.find("logon: account alice from 127.0.0.9:") != std::string::npos, log.c_str());
    QVERIFY2(log.find("closed: peer closed") != std::string::npos, log.c_str());
    QVERIFY2(log.find("rejected: account alice: unknown_order") != std::string::npos, log.c_str());
    QVERIFY2(log.find("failed logon: account 'nobody?2026-01-01 forged'") != std::string::npos, log.c_str());
    QVERIFY2(log.find("5 more like it left out") != std::string::npos, log.c_str());
    QVERIFY2(log.find("listening on 127.0.0.1:") != std::string::npos, log.c_str());
    QVERIFY2(log.find("stopped after") != std::string::npos, log.c_str());
    // A client's newline cannot forge a line of its own.
    QVERIFY2(log.find("\n2026-01-01 forged") == std::string::npos, log.c_str());
  }
};

QTEST_GUILESS_MAIN(TestExchangeLimits)
#include "test_exchange_limits.moc"
