// TLS on the client port, over loopback: ExchangeClients that verify the server against its CA
// trade; a client given another CA refuses the server; plaintext to a TLS port is closed; the
// server will not listen in plaintext anywhere but on loopback. The certificates come from
// scripts/make-dev-cert.sh, as a developer's do.
#include "NetTestSupport.h"
#include "core/net/ClientCommand.h"
#include "core/net/ExchangeClient.h"
#include "core/net/ExchangeServer.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <boost/asio/ssl.hpp>

#include <mutex>
#include <sstream>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using namespace std::chrono_literals;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

struct States {
  std::mutex mu;
  std::vector<ConnectionState> states;
  std::vector<std::string> details;
  std::vector<OrderUpdate> orders;
  ClientCallbacks callbacks() {
    ClientCallbacks cb;
    cb.onConnection = [this](ConnectionState s, const std::string& d) {
      std::lock_guard l(mu);
      states.push_back(s);
      details.push_back(d);
    };
    cb.onOrder = [this](const OrderUpdate& u) {
      std::lock_guard l(mu);
      orders.push_back(u);
    };
    return cb;
  }
  bool has(ConnectionState s) {
    std::lock_guard l(mu);
    return std::find(states.begin(), states.end(), s) != states.end();
  }
  bool said(const std::string& text) {
    std::lock_guard l(mu);
    for (const auto& d : details) {
      if (d.find(text) != std::string::npos) return true;
    }
    return false;
  }
  bool hasOrder(const std::string& clOrdId, OrderState s) {
    std::lock_guard l(mu);
    for (const auto& u : orders) {
      if (u.clOrdId == clOrdId && u.state == s) return true;
    }
    return false;
  }
};

ClientOptions tlsOptions(std::uint16_t port, const std::string& account, const std::string& ca) {
  ClientOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  o.account = account;
  o.key = account + "-key";
  o.marketData = false;
  o.backoffMin = 50ms;
  o.backoffMax = 200ms;
  o.caFile = ca;
  return o;
}

OrderRequest request(Side side, GpuCount gpus, Hour start, Hour end, Price limit) {
  OrderRequest o;
  o.side = side;
  o.cluster = 1;
  o.gpus = gpus;
  o.start = start;
  o.end = end;
  o.limit = limit;
  return o;
}

}  // namespace

class TestExchangeTls : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::string good_, other_;  // two development CAs, each with its server certificate

  static bool makeCert(const std::string& into) {
    QProcess p;
    p.start("bash", {QStringLiteral(TESSERA_SOURCE_DIR "/scripts/make-dev-cert.sh"), QString::fromStdString(into)});
    return p.waitForFinished(30000) && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
  }

  ExchangeConfig tlsConfig(const std::string& certs) {
    ExchangeConfig c = marketConfig();
    c.tlsCertFile = certs + "/server.crt";
    c.tlsKeyFile = certs + "/server.key";
    return c;
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    good_ = dir_.filePath("good").toStdString();
    other_ = dir_.filePath("other").toStdString();
    QVERIFY(makeCert(good_));
    QVERIFY(makeCert(other_));
  }

  void clientsVerifyTheServerAndTrade() {
    ExchangeServer server(tlsConfig(good_));
    server.start();
    States p, a;
    ExchangeClient provider(tlsOptions(server.port(), "provider", good_ + "/ca.crt"), p.callbacks());
    ExchangeClient alice(tlsOptions(server.port(), "alice", good_ + "/ca.crt"), a.callbacks());
    provider.start();
    alice.start();
    QVERIFY(eventually([&] { return p.has(ConnectionState::LoggedOn) && a.has(ConnectionState::LoggedOn); }));
    provider.placeOrder(request(Side::Sell, 8, kNow, kNow + 4, kDollar), "p1");
    QVERIFY(eventually([&] { return p.hasOrder("p1", OrderState::Accepted); }));
    alice.placeOrder(request(Side::Buy, 8, kNow, kNow + 4, 2 * kDollar), "a1");
    QVERIFY(eventually([&] { return a.hasOrder("a1", OrderState::Filled); }));
    QVERIFY(eventually([&] { return p.hasOrder("p1", OrderState::Filled); }));
    // Many replies in one go go through the io thread's TLS writes.
    for (int i = 0; i < 300; ++i) {
      alice.placeOrder(request(Side::Buy, 1, kNow + 10, kNow + 11, 1000 + i), "b" + std::to_string(i));
    }
    QVERIFY(eventually([&] { return a.hasOrder("b299", OrderState::Accepted); }));
  }

  void cliSpeaksTlsWithItsCa() {
    ExchangeServer server(tlsConfig(good_));
    server.start();
    std::vector<std::string> args = {"--connect", "localhost:" + std::to_string(server.port()),
                                     "--account", "alice",
                                     "--key",     "alice-key",
                                     "--ca",      good_ + "/ca.crt",
                                     "balance"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    std::ostringstream out, err;
    QCOMPARE(runClientCommand(static_cast<int>(argv.size()), argv.data(), out, err), 0);
    QVERIFY2(out.str().find("cash=$10000") != std::string::npos, (out.str() + err.str()).c_str());
  }

  void clientWithAnotherCaRefusesTheServer() {
    ExchangeServer server(tlsConfig(good_));
    server.start();
    States s;
    ExchangeClient alice(tlsOptions(server.port(), "alice", other_ + "/ca.crt"), s.callbacks());
    alice.start();
    QVERIFY(eventually([&] { return s.said("certificate verify failed"); }));
    std::this_thread::sleep_for(300ms);
    QVERIFY(!s.has(ConnectionState::LoggedOn));
    alice.stop();
    // Nor does the server serve a session that never completed the handshake.
    QCOMPARE(server.stats().messages, std::uint64_t(0));
  }

  void clientChecksTheServerName() {
    // The certificate names localhost, 127.0.0.1 and ::1: "127.0.0.2" is another host.
    ExchangeConfig cfg = tlsConfig(good_);
    cfg.listenAddress = "127.0.0.2";
    ExchangeServer server(cfg);
    server.start();
    States s;
    ClientOptions o = tlsOptions(server.port(), "alice", good_ + "/ca.crt");
    o.host = "127.0.0.2";
    ExchangeClient alice(o, s.callbacks());
    alice.start();
    QVERIFY(eventually([&] { return s.said("certificate verify failed"); }));
    QVERIFY(!s.has(ConnectionState::LoggedOn));
  }

  void plaintextToATlsPortIsClosed() {
    ExchangeServer server(tlsConfig(good_));
    server.start();
    LineClient plain(server.port());
    plain.send("{\"type\":\"logon\",\"account\":\"alice\",\"key\":\"alice-key\"}");
    QVERIFY(plain.closedByServer());
    QCOMPARE(server.stats().messages, std::uint64_t(0));
    // A plaintext client library configured without TLS gets nowhere either.
    States s;
    ClientOptions o = tlsOptions(server.port(), "alice", "");
    o.tls = false;
    ExchangeClient alice(o, s.callbacks());
    alice.start();
    std::this_thread::sleep_for(500ms);
    QVERIFY(!s.has(ConnectionState::LoggedOn));
  }

  void plaintextOnlyOnLoopback() {
    ExchangeConfig cfg = marketConfig();
    cfg.listenAddress = "0.0.0.0";
    ExchangeServer plain(cfg);
    try {
      plain.start();
      QFAIL("listened in plaintext on 0.0.0.0");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("refusing to listen on 0.0.0.0 in plaintext") != std::string::npos, e.what());
    }
    // With a certificate it listens there (reached here over loopback).
    ExchangeConfig tls = tlsConfig(good_);
    tls.listenAddress = "0.0.0.0";
    ExchangeServer server(tls);
    server.start();
    States s;
    ExchangeClient alice(tlsOptions(server.port(), "alice", good_ + "/ca.crt"), s.callbacks());
    alice.start();
    QVERIFY(eventually([&] { return s.has(ConnectionState::LoggedOn); }));
    // A key that is not the certificate's is refused at start.
    ExchangeConfig mixed = tlsConfig(good_);
    mixed.tlsKeyFile = other_ + "/server.key";
    ExchangeServer bad(mixed);
    try {
      bad.start();
      QFAIL("started with a key that does not match the certificate");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("cannot use TLS key") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestExchangeTls)
#include "test_exchange_tls.moc"
