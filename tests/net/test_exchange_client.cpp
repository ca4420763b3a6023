// ExchangeClient against a real server over loopback: the book mirror, order updates, gap
// recovery (a proxy loses a market-data line), reconnect with backoff (a proxy cuts the
// connection), refused credentials, and the embedded exchange with its injector.
#include "NetTestSupport.h"
#include "TcpProxy.h"
#include "core/net/EmbeddedExchange.h"
#include "core/net/ExchangeClient.h"
#include "core/net/ExchangeServer.h"

#include <QtTest>

#include <atomic>

#include <mutex>
#include <set>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

// What a client's callbacks saw, safe to read from the test thread.
struct Recorder {
  std::mutex mu;
  std::vector<ConnectionState> states;
  std::vector<OrderUpdate> orders;
  std::vector<RequestError> errors;
  std::vector<Trade> trades;
  std::optional<Balance> balance;
  int snapshots = 0;
  std::vector<SettlementNotice> settlements;
  std::vector<IndexPoint> index;
  std::vector<ContractStatus> statuses;
  std::vector<Contract> positions;
  int positionReplies = 0;
  std::vector<std::string> acks;
  std::vector<std::pair<CallReport, bool>> calls;  // (report, indicative)

  ClientCallbacks callbacks() {
    ClientCallbacks cb;
    cb.onCall = [this](const CallReport& r, bool indicative) {
      std::lock_guard l(mu);
      calls.emplace_back(r, indicative);
    };
    cb.onConnection = [this](ConnectionState s, const std::string&) {
      std::lock_guard l(mu);
      states.push_back(s);
    };
    cb.onOrder = [this](const OrderUpdate& u) {
      std::lock_guard l(mu);
      orders.push_back(u);
    };
    cb.onError = [this](const RequestError& e) {
      std::lock_guard l(mu);
      errors.push_back(e);
    };
    cb.onTrade = [this](const Trade& t) {
      std::lock_guard l(mu);
      trades.push_back(t);
    };
    cb.onBalance = [this](const Balance& b) {
      std::lock_guard l(mu);
      balance = b;
    };
    cb.onBook = [this](const std::vector<BookCell>&, bool snapshot) {
      std::lock_guard l(mu);
      snapshots += snapshot;
    };
    cb.onSettlement = [this](const SettlementNotice& n) {
      std::lock_guard l(mu);
      settlements.push_back(n);
    };
    cb.onIndex = [this](const std::vector<IndexPoint>& p) {
      std::lock_guard l(mu);
      index.insert(index.end(), p.begin(), p.end());
    };
    cb.onContractStatus = [this](const std::vector<ContractStatus>& s) {
      std::lock_guard l(mu);
      statuses = s;
    };
    cb.onPositions = [this](const std::vector<Contract>& p) {
      std::lock_guard l(mu);
      positions = p;
      ++positionReplies;
    };
    cb.onReportAck = [this](const std::string& type) {
      std::lock_guard l(mu);
      acks.push_back(type);
    };
    return cb;
  }
  int positionsReplies() {
    std::lock_guard l(mu);
    return positionReplies;
  }
  int count(ConnectionState s) {
    std::lock_guard l(mu);
    return static_cast<int>(std::count(states.begin(), states.end(), s));
  }
  bool hasOrder(const std::string& clOrdId, OrderState s) {
    std::lock_guard l(mu);
    for (const auto& u : orders) {
      if (u.clOrdId == clOrdId && u.state == s) return true;
    }
    return false;
  }
  OrderId orderId(const std::string& clOrdId) {
    std::lock_guard l(mu);
    for (const auto& u : orders) {
      if (u.clOrdId == clOrdId && u.orderId) return u.orderId;
    }
    return 0;
  }
  // f() with the recorder locked: the client's thread writes what the test reads.
  template <typename F>
  auto locked(F&& f) {
    std::lock_guard l(mu);
    return f();
  }
  int errorCount(const std::string& code) {
    std::lock_guard l(mu);
    return static_cast<int>(std::count_if(errors.begin(), errors.end(), [&](auto& e) { return e.code == code; }));
  }
};

ClientOptions options(std::uint16_t port, const std::string& account, bool md = true) {
  ClientOptions o;
  o.port = port;
  o.account = account;
  o.key = account + "-key";
  o.marketData = md;
  o.backoffMin = std::chrono::milliseconds(50);
  o.backoffMax = std::chrono::milliseconds(400);
  return o;
}

OrderRequest sell(ClusterId c, GpuCount gpus, Hour start, Hour end, Price limit) {
  OrderRequest o;
  o.side = Side::Sell;
  o.cluster = c;
  o.gpus = gpus;
  o.start = start;
  o.end = end;
  o.limit = limit;
  return o;
}

// The truth: a fresh client's snapshot.
std::vector<BookCell> truth(std::uint16_t port) {
  Recorder r;
  ExchangeClient c(options(port, "carol"), r.callbacks());
  c.start();
  for (int i = 0; i < 500 && !c.book().synced(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return c.book().cells();
}

}  // namespace

namespace {
// GPUs at the best level of a cell, or -1 while the mirror has no level there (the cell can be
// empty between updates, so the tests must not dereference it blindly).
int bestGpus(const tessera::net::BookMirror& book, const tessera::net::CellKey& key) {
  const auto* levels = book.levels(key);
  return levels && !levels->empty() ? levels->front().gpus : -1;
}
}  // namespace

class TestExchangeClient : public QObject {
  Q_OBJECT
 private slots:
  void tradesAndMirrorsTheBook() {
    ExchangeServer server(marketConfig());
    server.start();
    Recorder pr, ar;
    ExchangeClient provider(options(server.port(), "provider", false), pr.callbacks());
    ExchangeClient alice(options(server.port(), "alice"), ar.callbacks());
    provider.start();
    alice.start();
    QTRY_VERIFY_WITH_TIMEOUT(provider.state() == ConnectionState::LoggedOn, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(alice.book().synced(), 5000);
    QCOMPARE(alice.clusters().size(), std::size_t(2));
    QCOMPARE(alice.now(), kNow);

    const std::string p1 = provider.placeOrder(sell(1, 8, kNow, kNow + 2, 3 * kDollar));
    QTRY_VERIFY_WITH_TIMEOUT(pr.hasOrder(p1, OrderState::Accepted), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(alice.book().levels({1, kNow, Side::Sell}) != nullptr, 5000);
    QCOMPARE(alice.book().levels({1, kNow, Side::Sell})->front().gpus, 8);

    OrderRequest buy = sell(1, 3, kNow, kNow + 1, 4 * kDollar);
    buy.side = Side::Buy;
    const std::string a1 = alice.placeOrder(buy, "alice-1");
    QCOMPARE(a1, std::string("alice-1"));
    QTRY_VERIFY_WITH_TIMEOUT(ar.hasOrder(a1, OrderState::Filled), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(ar.locked([&] { return !ar.trades.empty(); }), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(bestGpus(alice.book(), {1, kNow, Side::Sell}), 5, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(ar.locked([&] { return ar.balance.has_value(); }), 5000);
    QCOMPARE(ar.locked([&] { return ar.balance->cash; }), (10'000 - 9) * kDollar);

    // Cancel through the client.
    const OrderId id = pr.orderId(p1);
    QVERIFY(id != 0);
    provider.cancel(id);
    QTRY_VERIFY_WITH_TIMEOUT(pr.hasOrder(p1, OrderState::Cancelled), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(alice.book().levels({1, kNow, Side::Sell}) == nullptr, 5000);
    // A bad request comes back as an error, not silence.
    provider.cancel(id + 1000);
    QTRY_COMPARE_WITH_TIMEOUT(pr.errorCount("unknown_order"), 1, 5000);
  }

  // Who took liquidity reaches the client: the exec of a fill says whether the account's order
  // was the incoming one, and so does the positions reply for each contract (from the account's
  // side), so a client that reconnects can rebuild its fills with their role; ping() measures a
  // round trip. Mutations seen failing: onExec not reading "aggressor" (alice's fill reads
  // false); the positions reply's "aggressor" from the buyer's side only (the provider's
  // contract reads true).
  void theTakerIsKnownAndAPingComesBack() {
    ExchangeServer server(marketConfig());
    server.start();
    Recorder pr, ar;
    std::atomic<std::int64_t> roundTripNs = -1;
    ClientCallbacks acb = ar.callbacks();
    acb.onRoundTrip = [&](std::chrono::nanoseconds rtt) { roundTripNs = rtt.count(); };
    ExchangeClient provider(options(server.port(), "provider", false), pr.callbacks());
    ExchangeClient alice(options(server.port(), "alice", false), acb);
    provider.start();
    alice.start();
    QTRY_VERIFY_WITH_TIMEOUT(provider.state() == ConnectionState::LoggedOn, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(alice.state() == ConnectionState::LoggedOn, 5000);
    const std::string ask = provider.placeOrder(sell(1, 8, kNow, kNow + 2, 3 * kDollar));
    QTRY_VERIFY_WITH_TIMEOUT(pr.hasOrder(ask, OrderState::Accepted), 5000);
    OrderRequest buy = sell(1, 3, kNow, kNow + 2, 4 * kDollar);
    buy.side = Side::Buy;
    const std::string bid = alice.placeOrder(buy);
    QTRY_VERIFY_WITH_TIMEOUT(ar.hasOrder(bid, OrderState::Filled), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(pr.hasOrder(ask, OrderState::PartiallyFilled), 5000);
    auto fillOf = [](Recorder& r, const std::string& id) {
      return r.locked([&] {
        for (const OrderUpdate& u : r.orders)
          if (u.clOrdId == id && (u.state == OrderState::Filled || u.state == OrderState::PartiallyFilled)) return u;
        return OrderUpdate{};
      });
    };
    QVERIFY(fillOf(ar, bid).aggressor);   // alice's bid crossed the resting ask
    QVERIFY(!fillOf(pr, ask).aggressor);  // the provider's ask was resting
    alice.requestPositions();
    provider.requestPositions();
    auto statusOf = [](Recorder& r) {
      return r.locked(
          [&] { return r.statuses.size() == 1 ? std::optional<bool>(r.statuses.front().aggressor) : std::nullopt; });
    };
    QTRY_VERIFY_WITH_TIMEOUT(statusOf(ar).has_value() && statusOf(pr).has_value(), 5000);
    QCOMPARE(*statusOf(ar), true);
    QCOMPARE(*statusOf(pr), false);
    alice.ping();
    QTRY_VERIFY_WITH_TIMEOUT(roundTripNs.load() > 0, 5000);
    QVERIFY(roundTripNs.load() < std::int64_t{5'000'000'000});
  }

  // The call mode over the wire: the schedule at logon, orders of a call-mode cluster filled by
  // the server's periodic call (every second here), md_call_result and the indicative reply
  // decoded. Mutation seen failing: ExchangeClient without the md_call_result branch (no
  // report arrives).
  void callModeReachesTheClient() {
    ExchangeConfig cfg = marketConfig();
    cfg.callMode.clusters = {"test-h100"};
    cfg.callMode.periodSeconds = 1;
    ExchangeServer server(cfg);
    server.start();
    Recorder pr, ar;
    ExchangeClient provider(options(server.port(), "provider", false), pr.callbacks());
    ExchangeClient alice(options(server.port(), "alice"), ar.callbacks());
    provider.start();
    alice.start();
    QTRY_VERIFY_WITH_TIMEOUT(provider.state() == ConnectionState::LoggedOn, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(alice.state() == ConnectionState::LoggedOn, 5000);
    const CallSchedule schedule = alice.callSchedule();
    QVERIFY(schedule.callMode(1));
    QVERIFY(!schedule.callMode(2));
    QCOMPARE(schedule.periodSeconds, 1);
    QVERIFY(schedule.nextCallUnix > 0);
    const std::string ask = provider.placeOrder(sell(1, 8, kNow + 1, kNow + 3, 2 * kDollar));
    OrderRequest buy = sell(1, 8, kNow + 1, kNow + 3, 3 * kDollar);
    buy.side = Side::Buy;
    const std::string bid = alice.placeOrder(buy);
    QTRY_VERIFY_WITH_TIMEOUT(ar.hasOrder(bid, OrderState::Filled), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(pr.hasOrder(ask, OrderState::Filled), 5000);
    auto traded = [&] {
      return ar.locked([&] {
        for (const auto& [r, indicative] : ar.calls)
          if (!indicative && !r.prices.empty()) return std::optional<CallReport>(r);
        return std::optional<CallReport>();
      });
    };
    QTRY_VERIFY_WITH_TIMEOUT(traded().has_value(), 5000);
    QCOMPARE(traded()->prices.size(), std::size_t(2));
    QCOMPARE(traded()->prices[0].price, Price(2'500'000));
    QCOMPARE(alice.lastCall()->call, traded()->call);
    alice.requestIndicative();
    QTRY_VERIFY_WITH_TIMEOUT(ar.locked([&] {
      return std::any_of(ar.calls.begin(), ar.calls.end(), [](const auto& c) { return c.second; });
    }),
                             5000);
  }

  void settlementIndexAndTermsReachTheClient() {
    ExchangeServer server(marketConfig());
    server.start();
    Recorder pr, ar, br;
    ExchangeClient provider(options(server.port(), "provider", false), pr.callbacks());
    ExchangeClient alice(options(server.port(), "alice"), ar.callbacks());
    ExchangeClient bob(options(server.port(), "bob", false), br.callbacks());
    provider.start();
    alice.start();
    bob.start();
    QTRY_VERIFY_WITH_TIMEOUT(provider.state() == ConnectionState::LoggedOn, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(bob.state() == ConnectionState::LoggedOn, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(alice.book().synced(), 5000);

    OrderRequest listing = sell(1, 8, kNow + 1, kNow + 4, 2 * kDollar);
    listing.terms.billing = BillingBasis::CommittedBlock;
    listing.terms.remedy = Remedy::Replacement;
    const std::string p1 = provider.placeOrder(listing);
    QTRY_VERIFY_WITH_TIMEOUT(pr.hasOrder(p1, OrderState::Accepted), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(bestGpus(alice.book(), {1, kNow + 1, Side::Sell}) == 8, 5000);
    QVERIFY(alice.book().levels({1, kNow + 1, Side::Sell})->front().terms == listing.terms);

    OrderRequest buy = sell(1, 8, kNow + 1, kNow + 4, 2 * kDollar);
    buy.side = Side::Buy;
    const std::string a1 = alice.placeOrder(buy);
    QTRY_VERIFY_WITH_TIMEOUT(ar.hasOrder(a1, OrderState::Filled), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(ar.locked([&] { return ar.balance && ar.balance->escrow == 48 * kDollar; }), 5000);

    provider.reportDelivery(1, kNow + 2, kNow + 3, 6, DeliveryProblem::MissingGpus);
    QTRY_VERIFY_WITH_TIMEOUT(pr.locked([&] { return !pr.acks.empty(); }), 5000);
    QCOMPARE(pr.locked([&] { return pr.acks[0]; }), std::string("delivery_report_ack"));
    server.inject(ClockAdvance{kNow + 5}, "");
    QTRY_VERIFY_WITH_TIMEOUT(
        ar.locked([&] { return !ar.settlements.empty() && ar.settlements.back().state == "settled"; }), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(pr.locked([&] { return pr.settlements.size(); }),
                              ar.locked([&] { return ar.settlements.size(); }), 5000);
    QCOMPARE(ar.locked([&] { return ar.settlements.back().now; }), kNow + 5);
    QVERIFY(br.locked([&] { return br.settlements.empty(); }));

    // The trade printed at kNow is the index as of kNow, published with the clock.
    QTRY_VERIFY_WITH_TIMEOUT(ar.locked([&] { return !ar.index.empty(); }), 5000);
    {
      std::lock_guard l(ar.mu);
      const IndexPoint& p = ar.index.front();
      QVERIFY(p.accelerator == Accelerator::H100);
      QVERIFY(p.tenor == Tenor::NextDay);
      QCOMPARE(p.price, 2 * kDollar);
      QCOMPARE(p.gpuHours, std::int64_t(24));
    }
    alice.requestPositions();
    QTRY_VERIFY_WITH_TIMEOUT(ar.locked([&] { return !ar.statuses.empty(); }), 5000);
    QCOMPARE(ar.locked([&] { return ar.statuses[0].state; }), std::string("settled"));
    QCOMPARE(ar.locked([&] { return ar.statuses[0].escrow; }), Money(0));
    // A new client gets the history right after logon.
    Recorder cr;
    ExchangeClient carol(options(server.port(), "carol"), cr.callbacks());
    carol.start();
    QTRY_VERIFY_WITH_TIMEOUT(cr.locked([&] { return !cr.index.empty(); }), 5000);
  }

  // An account with more contracts than one positions page (kPositionsPage) gets all of them
  // in one callback, each once: the client asks for the pages one after another. Fails with the
  // paging left out of the client (2000 of 2100), or with a page boundary taken twice or lost.
  void positionsComeWholeAcrossPages() {
    ExchangeServer server(marketConfig());
    server.start();
    Recorder pr, ar;
    ExchangeClient provider(options(server.port(), "provider", false), pr.callbacks());
    ExchangeClient alice(options(server.port(), "alice", false), ar.callbacks());
    provider.start();
    alice.start();
    QTRY_VERIFY_WITH_TIMEOUT(provider.state() == ConnectionState::LoggedOn, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(alice.state() == ConnectionState::LoggedOn, 5000);
    const std::string ask = provider.placeOrder(sell(1, 64, kNow, kNow + 48, kDollar));
    QTRY_VERIFY_WITH_TIMEOUT(pr.hasOrder(ask, OrderState::Accepted), 5000);
    constexpr int kContracts = static_cast<int>(kPositionsPage) + 100;
    std::vector<std::string> bids;
    for (int i = 0; i < kContracts; ++i) {
      OrderRequest bid = sell(1, 1, kNow + i % 48, kNow + i % 48 + 1, kDollar);
      bid.side = Side::Buy;
      bid.tif = TimeInForce::IOC;
      bids.push_back(alice.placeOrder(bid));
    }
    QTRY_VERIFY_WITH_TIMEOUT(ar.hasOrder(bids.back(), OrderState::Filled), 20000);
    alice.requestPositions();
    alice.requestPositions();  // asked again while the pages come: answered after, whole again
    QTRY_COMPARE_WITH_TIMEOUT(ar.positionsReplies(), 2, 20000);
    std::lock_guard l(ar.mu);
    QCOMPARE(ar.positions.size(), std::size_t(kContracts));
    QCOMPARE(ar.statuses.size(), std::size_t(kContracts));
    std::set<ContractId> ids;
    for (const Contract& c : ar.positions) ids.insert(c.id);
    QCOMPARE(ids.size(), std::size_t(kContracts));
  }

  void recoversFromALostDelta() {
    ExchangeServer server(marketConfig());
    server.start();
    TcpProxy proxy(server.port());
    Recorder wr;
    ExchangeClient watcher(options(proxy.port(), "alice"), wr.callbacks());
    watcher.start();
    QTRY_VERIFY_WITH_TIMEOUT(watcher.book().synced(), 5000);
    LineClient provider(server.port());
    QVERIFY(provider.logon("provider"));
    proxy.dropNextLineContaining("\"md_cell\"");
    for (int i = 0; i < 5; ++i) {
      provider.send(order("p" + std::to_string(i), "sell", 1, 1 + i, kNow + i, kNow + i + 1, kDollar));
      QVERIFY(provider.exec("p" + std::to_string(i)).has_value());
    }
    // The market data reaches the proxy after the provider's acks, on another socket.
    QTRY_COMPARE_WITH_TIMEOUT(proxy.dropped(), 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(watcher.gapsRecovered() >= 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(watcher.book().synced(), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(watcher.book().cells().size(), std::size_t(5), 5000);
    QCOMPARE(watcher.book().cells(), truth(server.port()));
    QCOMPARE(wr.count(ConnectionState::Disconnected), 0);  // recovered without reconnecting
  }

  void reconnectsAndResumes() {
    ExchangeServer server(marketConfig());
    server.start();
    TcpProxy proxy(server.port());
    Recorder wr;
    ExchangeClient watcher(options(proxy.port(), "alice"), wr.callbacks());
    watcher.start();
    QTRY_VERIFY_WITH_TIMEOUT(watcher.book().synced(), 5000);
    LineClient provider(server.port());
    QVERIFY(provider.logon("provider"));
    provider.send(order("before", "sell", 1, 2, kNow, kNow + 3, kDollar));
    QVERIFY(provider.exec("before").has_value());
    QTRY_COMPARE_WITH_TIMEOUT(watcher.book().cells().size(), std::size_t(3), 5000);

    proxy.cut();
    QTRY_VERIFY_WITH_TIMEOUT(wr.count(ConnectionState::Disconnected) >= 1, 5000);
    // Changes while the client is away.
    provider.send(order("during", "sell", 2, 4, kNow + 10, kNow + 12, 2 * kDollar));
    QVERIFY(provider.exec("during").has_value());
    provider.send("{\"type\":\"cancel\",\"cl_ord_id\":\"before\"}");
    QVERIFY(provider.exec("before").has_value());

    QTRY_VERIFY_WITH_TIMEOUT(wr.count(ConnectionState::LoggedOn) >= 2, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(watcher.book().cells().size(), std::size_t(2), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(watcher.book().synced(), 5000);
    QCOMPARE(watcher.book().cells(), truth(server.port()));
    QVERIFY(watcher.gapsRecovered() >= 1);

    // While cut off, requests are refused at once rather than sent late.
    const int lost = wr.count(ConnectionState::Disconnected);
    proxy.setRefusing(true);
    proxy.cut();
    QTRY_VERIFY_WITH_TIMEOUT(wr.count(ConnectionState::Disconnected) > lost, 5000);
    watcher.requestBalance();
    QTRY_VERIFY_WITH_TIMEOUT(wr.errorCount("not_connected") >= 1, 5000);
    proxy.setRefusing(false);
    QTRY_VERIFY_WITH_TIMEOUT(watcher.state() == ConnectionState::LoggedOn, 5000);
  }

  void backsOffWhileTheServerIsDown() {
    std::uint16_t port;
    {
      ExchangeServer probe(marketConfig());
      probe.start();
      port = probe.port();
    }
    Recorder r;
    ExchangeClient c(options(port, "alice"), r.callbacks());
    c.start();
    QTRY_VERIFY_WITH_TIMEOUT(r.count(ConnectionState::Disconnected) >= 3, 5000);
    ExchangeConfig cfg = marketConfig();
    cfg.port = port;
    ExchangeServer server(cfg);
    server.start();
    QTRY_VERIFY_WITH_TIMEOUT(c.state() == ConnectionState::LoggedOn, 5000);
  }

  void refusedCredentialsStopRetrying() {
    ExchangeServer server(marketConfig());
    server.start();
    Recorder r;
    ClientOptions o = options(server.port(), "alice");
    o.key = "wrong";
    ExchangeClient c(o, r.callbacks());
    c.start();
    QTRY_VERIFY_WITH_TIMEOUT(c.state() == ConnectionState::AuthFailed, 5000);
    QTest::qWait(300);
    QCOMPARE(r.count(ConnectionState::Connecting), 1);
  }

  void embeddedExchangeWithInjector() {
    const Hour now = 700'000;
    EmbeddedExchange exchange(EmbeddedExchange::demoConfig(now, "trader", "secret"));
    exchange.start();
    QVERIFY(exchange.port() != 0);
    Recorder r;
    ClientOptions o = options(exchange.port(), "trader");
    o.key = "secret";
    ExchangeClient c(o, r.callbacks());
    c.start();
    QTRY_VERIFY_WITH_TIMEOUT(c.book().synced(), 5000);
    QCOMPARE(c.clusters().size(), std::size_t(3));

    // The simulated market's own ids become its client order ids.
    OrderRequest ask = sell(1, 16, now, now + 1, 2 * kDollar);
    ask.id = 42;
    exchange.inject(ask, "house-provider");
    QTRY_VERIFY_WITH_TIMEOUT(c.book().levels({1, now, Side::Sell}) != nullptr, 5000);
    exchange.inject(CancelRequest{42, 0}, "house-provider");
    QTRY_VERIFY_WITH_TIMEOUT(c.book().levels({1, now, Side::Sell}) == nullptr, 5000);

    exchange.inject(ClockAdvance{now + 1});
    QTRY_COMPARE_WITH_TIMEOUT(c.now(), now + 1, 5000);
  }

  void feederBringsItsOwnMarket() {
    const Hour start = 700'000;
    EmbeddedExchange exchange(EmbeddedExchange::feederConfig(start, "trader", "secret"));
    exchange.start();
    // A feeder with its own account numbering, like a SimulatedMarket.
    AccountDirectory feeder;
    const AccountId seller = feeder.intern("sim-provider-7");
    Cluster k;
    k.id = 40;
    k.name = "sim-cluster";
    k.nodeCount = 4;
    exchange.inject(k, feeder);
    exchange.inject(CapacityGrant{seller, 40, 32, start, start + 24}, feeder);
    OrderRequest ask = sell(40, 8, start + 2, start + 3, 3 * kDollar);
    ask.id = 5;
    ask.account = seller;
    exchange.inject(ask, feeder);
    Recorder r;
    ClientOptions o = options(exchange.port(), "trader");
    o.key = "secret";
    ExchangeClient c(o, r.callbacks());
    c.start();
    QTRY_VERIFY_WITH_TIMEOUT(c.book().synced(), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(c.book().levels({40, start + 2, Side::Sell}) != nullptr, 5000);
    QCOMPARE(c.clusters().size(), std::size_t(1));
    exchange.inject(AmendRequest{5, seller, std::nullopt, 4}, feeder);
    QTRY_COMPARE_WITH_TIMEOUT(bestGpus(c.book(), {40, start + 2, Side::Sell}), 4, 5000);
    // The trader buys from the feeder's order.
    OrderRequest buy = sell(40, 4, start + 2, start + 3, 3 * kDollar);
    buy.side = Side::Buy;
    const std::string id = c.placeOrder(buy);
    QTRY_VERIFY_WITH_TIMEOUT(r.hasOrder(id, OrderState::Filled), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(c.book().levels({40, start + 2, Side::Sell}) == nullptr, 5000);
  }
};

QTEST_GUILESS_MAIN(TestExchangeClient)
#include "test_exchange_client.moc"
