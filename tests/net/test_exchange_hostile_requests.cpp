// Single messages an attacker with any account can send, against a real tessera-exchange
// server over loopback: none of them stops the exchange for anyone else, creates money or
// answers a few bytes with megabytes.
#include "NetTestSupport.h"
#include "core/net/ExchangeServer.h"

#include <QtTest>

#include <chrono>
#include <limits>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

std::string outage(int cluster, Hour start, Hour end, int lost) {
  return "{\"type\":\"outage\",\"cluster\":" + std::to_string(cluster) + ",\"start\":" + std::to_string(start) +
         ",\"end\":" + std::to_string(end) + ",\"lost_gpus\":" + std::to_string(lost) + "}";
}

// How long a heartbeat takes to come back: the matching thread is serving.
std::chrono::milliseconds ping(LineClient& c) {
  const auto t0 = std::chrono::steady_clock::now();
  c.send("{\"type\":\"heartbeat\",\"req\":77}");
  for (;;) {
    auto j = c.read(std::chrono::milliseconds(5000));
    if (!j) return std::chrono::milliseconds::max();
    if ((*j)["type"] == "heartbeat" && j->value("req", 0) == 77)
      return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
  }
}

}  // namespace

class TestExchangeHostileRequests : public QObject {
  Q_OBJECT
 private slots:
  void anOutageToTheEndOfTimeStopsNobody() {
    // The message, from bob (not the provider) and from the provider with a contract on
    // the cluster: the first hung the matching thread for good, the second killed the process
    // (std::bad_alloc). Both are refused at once and alice is still served.
    // Fails when: ExchangeCore::applyOutage loses its provider check and its window bound
    // (the heartbeat then never comes back).
    ExchangeServer server(marketConfig());
    server.start();
    LineClient bob(server.port()), provider(server.port()), alice(server.port());
    QVERIFY(bob.logon("bob"));
    QVERIFY(provider.logon("provider"));
    QVERIFY(alice.logon("alice"));
    provider.send(order("p1", "sell", 1, 8, kNow + 1, kNow + 5, kDollar));
    QCOMPARE((*provider.exec("p1"))["state"].get<std::string>(), std::string("accepted"));
    alice.send(order("a1", "buy", 1, 8, kNow + 1, kNow + 5, kDollar));
    QCOMPARE((*alice.exec("a1"))["state"].get<std::string>(), std::string("accepted"));
    QCOMPARE((*alice.exec("a1"))["state"].get<std::string>(), std::string("filled"));

    const Hour endOfTime = std::numeric_limits<Hour>::max();
    bob.send(outage(1, kNow, endOfTime, 1));
    QCOMPARE((*bob.until("error"))["code"].get<std::string>(), std::string("not_your_cluster"));
    provider.send(outage(1, kNow, endOfTime, 1));
    QCOMPARE((*provider.until("error"))["code"].get<std::string>(), std::string("invalid_report"));
    provider.send(outage(1, kNow, kNow + 10'000'000'000, 1));
    QCOMPARE((*provider.until("error"))["code"].get<std::string>(), std::string("invalid_report"));
    QVERIFY(ping(alice) < std::chrono::milliseconds(1000));
    // A real outage is still taken.
    provider.send(outage(1, kNow + 1, kNow + 3, 8));
    QCOMPARE((*provider.until("outage_ack"))["contracts"].size(), std::size_t(1));
  }

  void anAmendThatFillsCannotSpendCashTwice() {
    // The sequence over the wire (H = now + 10): alice bids 200 GPUs... scaled to the
    // test market: alice ($10,000) bids 20 GPUs x 5 h at $1, the provider asks 10 x 5 h at
    // $50, alice amends to $60. Half fills at $50 ($2,500 to escrow); the rest still bids
    // 50 GPU-hours at $60, so $3,000 stays reserved and a second bid for more than the
    // $4,500 left is refused.
    // Fails when: reservations are booked from events (amend first, then each fill releases its
    // share again): reserved reads $0 and the second bid is accepted.
    ExchangeServer server(marketConfig());
    server.start();
    LineClient provider(server.port()), alice(server.port());
    QVERIFY(provider.logon("provider"));
    QVERIFY(alice.logon("alice"));
    alice.send(order("a1", "buy", 1, 20, kNow + 10, kNow + 15, kDollar));
    QCOMPARE((*alice.exec("a1"))["state"].get<std::string>(), std::string("accepted"));
    provider.send(order("p1", "sell", 1, 10, kNow + 10, kNow + 15, 50 * kDollar));
    QCOMPARE((*provider.exec("p1"))["state"].get<std::string>(), std::string("accepted"));
    alice.send("{\"type\":\"amend\",\"cl_ord_id\":\"a1\",\"limit\":" + std::to_string(60 * kDollar) + "}");
    QCOMPARE((*alice.exec("a1"))["state"].get<std::string>(), std::string("amended"));
    QCOMPARE((*alice.exec("a1"))["state"].get<std::string>(), std::string("partially_filled"));
    alice.send("{\"type\":\"balance\",\"req\":5}");
    json b;
    for (int i = 0; i < 20; ++i) {  // balances pushed after the fill come first
      b = *alice.until("balance");
      if (b.value("req", 0) == 5) break;
    }
    QCOMPARE(b["reserved"].get<Money>(), 3'000 * kDollar);
    QCOMPARE(b["cash"].get<Money>(), 7'500 * kDollar);
    alice.send(order("a2", "buy", 2, 16, kNow + 20, kNow + 23, 100 * kDollar));  // $4,800
    const json rej = *alice.exec("a2");
    QCOMPARE(rej["state"].get<std::string>(), std::string("rejected"));
    QCOMPARE(rej["code"].get<std::string>(), std::string("insufficient_cash"));
  }

  void aHouseAccountIsCappedByItsCreditLine() {
    // The sample house-mm account (no cash) bid $25.6M over the wire and was accepted.
    // Fails when: sessions of house accounts skip the cash check.
    ExchangeConfig c = marketConfig();
    AccountConfig mm = account("house-mm", 0, /*house=*/true);
    mm.creditLimit = 1'000 * kDollar;
    c.accounts.push_back(mm);
    ExchangeServer server(c);
    server.start();
    LineClient house(server.port());
    QVERIFY(house.logon("house-mm"));
    house.send(order("h1", "buy", 1, 64, kNow, kNow + 40, 100 * kDollar));  // $256,000
    const json rej = *house.exec("h1");
    QCOMPARE(rej["state"].get<std::string>(), std::string("rejected"));
    QCOMPARE(rej["code"].get<std::string>(), std::string("insufficient_cash"));
    QVERIFY2(rej["reason"].get<std::string>().find("$256,000.00") != std::string::npos,
             rej["reason"].get<std::string>().c_str());
  }
};

QTEST_GUILESS_MAIN(TestExchangeHostileRequests)
#include "test_exchange_hostile_requests.moc"
