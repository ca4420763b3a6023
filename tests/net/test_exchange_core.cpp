// ExchangeCore without sockets: cash, reservations, isolation, limits, journal replay.
#include "CoreDriver.h"
#include "NetTestSupport.h"
#include "core/engine/SnapshotCodec.h"
#include "core/net/ExchangeCore.h"
#include "core/settlement/ForwardMarket.h"
#include "core/store/Sqlite.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <chrono>
#include <limits>
#include <map>
#include <random>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

// A connection to the exchange's journal file, for a test that edits the file between runs.
store::SqliteDb openSqlite(const std::string& path) {
  auto db = store::SqliteDb::open(path, SQLITE_OPEN_READWRITE, 5000);
  if (auto* why = std::get_if<std::string>(&db)) throw std::runtime_error("cannot open " + path + ": " + *why);
  return std::move(std::get<store::SqliteDb>(db));
}

}  // namespace

class TestExchangeCore : public QObject {
  Q_OBJECT
 private slots:
  void bidReservesCashUntilCancelled() {
    Driver d;
    const SessionId alice = d.connect("alice");
    auto r = d.send(alice, order("a1", "buy", 1, 8, kNow, kNow + 10, 2 * kDollar));
    const json ack = d.find(r, "exec", "accepted");
    QVERIFY(ack.is_object());
    QCOMPARE(d.balance(alice)["reserved"].get<Money>(), 160 * kDollar);
    QCOMPARE(d.balance(alice)["available"].get<Money>(), (10'000 - 160) * kDollar);
    r = d.send(alice, "{\"type\":\"cancel\",\"order_id\":" + std::to_string(ack["order_id"].get<OrderId>()) + "}");
    QVERIFY(d.find(r, "exec", "cancelled").is_object());
    QCOMPARE(d.balance(alice)["reserved"].get<Money>(), Money(0));
    QCOMPARE(d.balance(alice)["cash"].get<Money>(), 10'000 * kDollar);
  }
  void bidBeyondCashIsRejected() {
    Driver d;
    const SessionId bob = d.connect("bob");                                        // $100
    auto r = d.send(bob, order("b1", "buy", 1, 8, kNow, kNow + 10, 2 * kDollar));  // needs $160
    const json rej = d.find(r, "exec", "rejected");
    QCOMPARE(rej["code"].get<std::string>(), std::string("insufficient_cash"));
    r = d.send(bob, order("b2", "buy", 1, 5, kNow, kNow + 10, 2 * kDollar));  // $100 exactly
    QVERIFY(d.find(r, "exec", "accepted").is_object());
    r = d.send(bob, order("b3", "buy", 1, 1, kNow, kNow + 1, 1));  // nothing left
    QCOMPARE(d.find(r, "exec", "rejected")["code"].get<std::string>(), std::string("insufficient_cash"));
  }
  void fillMovesCashAtTheTradePrice() {
    Driver d;
    const SessionId alice = d.connect("alice");
    const SessionId provider = d.connect("provider");
    QVERIFY(d.find(d.send(provider, order("p1", "sell", 1, 8, kNow, kNow + 10, 1'500'000)), "exec", "accepted")
                .is_object());
    auto r = d.send(alice, order("a1", "buy", 1, 8, kNow, kNow + 10, 2 * kDollar));
    QVERIFY(d.find(r, "exec", "filled").is_object());
    const json b = d.balance(alice);
    QCOMPARE(b["cash"].get<Money>(), (10'000 - 120) * kDollar);  // 8 x 10 h x $1.50
    QCOMPARE(b["reserved"].get<Money>(), Money(0));
    QCOMPARE(b["escrow"].get<Money>(), 120 * kDollar);  // paid to the provider as delivered
    QVERIFY(d.find(d.drain(provider), "exec", "filled").is_object());
    QCOMPARE(d.balance(provider)["cash"].get<Money>(), Money(0));
    const json pos = d.find(d.send(alice, "{\"type\":\"positions\"}"), "positions");
    QCOMPARE(pos["contracts"].size(), std::size_t(1));
    QCOMPARE(pos["contracts"][0]["side"].get<std::string>(), std::string("buy"));
  }
  void partialFillReleasesItsShare() {
    Driver d;
    const SessionId alice = d.connect("alice");
    const SessionId provider = d.connect("provider");
    d.send(provider, order("p1", "sell", 1, 4, kNow, kNow + 10, 1 * kDollar));
    auto r = d.send(alice, order("a1", "buy", 1, 8, kNow, kNow + 10, 2 * kDollar));
    QVERIFY(d.find(r, "exec", "partially_filled").is_object());
    const json b = d.balance(alice);
    QCOMPARE(b["cash"].get<Money>(), (10'000 - 40) * kDollar);  // 4 x 10 x $1
    QCOMPARE(b["reserved"].get<Money>(), 80 * kDollar);         // 4 x 10 x $2 still resting
  }
  void amendThatFillsKeepsTheRestReserved() {
    // The sequence, scaled: alice bids 20 GPUs x 5 h at $1, the provider asks 10 x 5 h
    // at $50, alice amends her bid to $60. The amend fills half at $50; the other half still
    // stands at $60, so $3,000 stays reserved. When the engine emitted the amend before its
    // fills, the hold was booked from the filled leaves and each fill released its share again:
    // reserved read 0 and alice could commit the same cash twice.
    // Fails when: OrderAmended's hold is booked and then the fill's limit x GPU-hours is
    // released from it (the event-accumulated reservation this replaced).
    Driver d;
    const SessionId alice = d.connect("alice");  // $10,000
    const SessionId provider = d.connect("provider");
    QVERIFY(d.find(d.send(alice, order("a1", "buy", 1, 20, kNow + 10, kNow + 15, kDollar)), "exec", "accepted")
                .is_object());
    QVERIFY(d.find(d.send(provider, order("p1", "sell", 1, 10, kNow + 10, kNow + 15, 50 * kDollar)), "exec", "accepted")
                .is_object());
    auto r = d.send(alice, "{\"type\":\"amend\",\"cl_ord_id\":\"a1\",\"limit\":" + std::to_string(60 * kDollar) + "}");
    QVERIFY(d.find(r, "exec", "amended").is_object());
    QVERIFY(d.find(r, "exec", "partially_filled").is_object());
    json b = d.balance(alice);
    QCOMPARE(b["cash"].get<Money>(), (10'000 - 2'500) * kDollar);  // 10 x 5 h x $50 in escrow
    QCOMPARE(b["reserved"].get<Money>(), 3'000 * kDollar);         // 10 x 5 h x $60 still bid
    QCOMPARE(d.core().reserved(*d.core().accounts().find("alice")), 3'000 * kDollar);
    // $4,500 is free: a bid for $4,800 is refused, one for $4,500 is taken.
    r = d.send(alice, order("a2", "buy", 2, 16, kNow + 20, kNow + 23, 100 * kDollar));
    QCOMPARE(d.find(r, "exec", "rejected")["code"].get<std::string>(), std::string("insufficient_cash"));
    QVERIFY(d.find(d.send(alice, order("a3", "buy", 2, 15, kNow + 20, kNow + 23, 100 * kDollar)), "exec", "accepted")
                .is_object());
  }

  void anAmendThatGrowsAPartlyFilledBidIsCheckedInFull() {
    // A divisible bid's new GPUs are wanted again in every remaining hour, filled ones too, so
    // growing 1 GPU x 10 h with 9 hours filled to 20 GPUs wants 19 x 9 + 20 = 191 GPU-hours.
    // Fails when: the amend's cash check scales the leaves by new/old GPUs (20 GPU-hours, $20):
    // the amend passes, the bid holds $191 against $91 of cash, and its fills are funded from
    // outside.
    Driver d;
    const SessionId bob = d.connect("bob");  // $100
    const SessionId provider = d.connect("provider");
    QVERIFY(
        d.find(d.send(bob, order("b1", "buy", 1, 1, kNow + 1, kNow + 11, kDollar)), "exec", "accepted").is_object());
    QVERIFY(d.find(d.send(provider, order("p1", "sell", 1, 1, kNow + 1, kNow + 10, kDollar)), "exec", "accepted")
                .is_object());
    QCOMPARE(d.balance(bob)["reserved"].get<Money>(), kDollar);  // 1 GPU-hour left
    auto r = d.send(bob, "{\"type\":\"amend\",\"cl_ord_id\":\"b1\",\"gpus\":20}");
    QCOMPARE(d.find(r, "error")["code"].get<std::string>(), std::string("insufficient_cash"));
    r = d.send(bob, "{\"type\":\"amend\",\"cl_ord_id\":\"b1\",\"gpus\":2}");
    QVERIFY(d.find(r, "exec", "amended").is_object());
    QCOMPARE(d.balance(bob)["reserved"].get<Money>(), 11 * kDollar);  // 1 x 9 + 2
  }

  void reservationsEqualWhatBidsCanSpendAfterEveryRequest() {
    // Random orders, amends (price and GPUs), cancels and clock steps from three buyers and the
    // provider. After every request, for every buyer, checked against the engine's own view of
    // its working orders: reserved == sum of limit x leaves of its working bids, the cash left
    // covers it, and no contract was ever funded from outside (money created) for a
    // cash-checked buyer.
    // Fails when: the syncReservation call is removed from the OrderCancelled handler (a
    // cancelled bid keeps its hold), or from the OrderAmended handler (a repriced bid holds
    // its old price); and on the event-accumulated bookkeeping this replaced (amend-then-fill
    // released the hold twice: reserved fell below limit x leaves within a few dozen steps).
    std::mt19937_64 rng(30);
    int amendsThatFilled = 0;
    for (int round = 0; round < 6; ++round) {
      Driver d;
      const std::vector<std::string> buyers{"alice", "carol", "bob"};
      std::map<std::string, SessionId> s;
      for (const std::string& b : buyers) s[b] = d.connect(b);
      const SessionId provider = d.connect("provider");
      std::vector<std::pair<std::string, std::string>> placed;  // (buyer, cl_ord_id)
      Hour now = kNow;
      int n = 0;
      for (int step = 0; step < 150; ++step) {
        const int what = static_cast<int>(rng() % 10);
        const Hour start = now + static_cast<Hour>(rng() % 8);
        const Hour end = start + 1 + static_cast<Hour>(rng() % 6);
        const int cluster = 1 + static_cast<int>(rng() % 2);
        const int gpus = 1 + static_cast<int>(rng() % 6);
        const Price price = kDollar / 2 + static_cast<Price>(rng() % 40) * (kDollar / 10);
        if (what < 3) {
          d.send(provider, order("p" + std::to_string(++n), "sell", cluster, gpus, start, end, price));
        } else if (what < 6) {
          const std::string& b = buyers[rng() % buyers.size()];
          const std::string id = "b" + std::to_string(++n);
          const char* fill[] = {"", ",\"fill\":\"all_or_none\""};
          d.send(s[b], order(id, "buy", cluster, gpus, start, end, price, fill[rng() % 2]));
          placed.emplace_back(b, id);
        } else if (what < 8 && !placed.empty()) {
          const auto& [b, id] = placed[rng() % placed.size()];
          std::string amend = "{\"type\":\"amend\",\"cl_ord_id\":\"" + id + "\"";
          if (rng() % 3)
            amend += ",\"limit\":" + std::to_string(price + static_cast<Price>(rng() % 3) * kDollar);
          else
            amend += ",\"gpus\":" + std::to_string(gpus);
          const auto r = d.send(s[b], amend + "}");
          if (d.find(r, "exec", "amended").is_object() &&
              (d.find(r, "exec", "filled").is_object() || d.find(r, "exec", "partially_filled").is_object()))
            ++amendsThatFilled;
        } else if (what < 9 && !placed.empty()) {
          const auto& [b, id] = placed[rng() % placed.size()];
          d.send(s[b], "{\"type\":\"cancel\",\"cl_ord_id\":\"" + id + "\"}");
        } else {
          d.clock(++now);
        }
        for (const std::string& b : buyers) {
          const AccountId a = *d.core().accounts().find(b);
          Money expected = 0;
          for (const OrderView& v : d.core().engine().workingOrders(a))
            if (v.request.side == Side::Buy && !v.request.sellBack) expected += v.request.limit * v.leavesGpuHours;
          QCOMPARE(d.core().reserved(a), expected);
          QVERIFY2(d.core().cash(a) >= d.core().reserved(a), (b + " has bids beyond its cash").c_str());
        }
        for (const Posting& p : d.core().ledger().postings())
          QVERIFY2(p.memo.find("overdraft") == std::string::npos, ("money created: " + p.memo).c_str());
      }
    }
    QVERIFY2(amendsThatFilled > 10, "the sequences never amended a bid into a fill");
  }

  void houseAccountsTradeWithinTheirCreditLine() {
    // A house account logged on over the protocol is cash-checked like anyone else, against its
    // cash plus its credit line: a $25.6M bid from a house account with no cash is refused.
    // Fails when: sessions of house accounts skip the cash check (onNewOrder's `checks`).
    ExchangeConfig c = marketConfig();
    AccountConfig mm = account("house-mm", 0, /*house=*/true);
    mm.creditLimit = 1'000 * kDollar;
    c.accounts.push_back(mm);
    Driver d(c);
    const SessionId house = d.connect("house-mm");
    auto r = d.send(house, order("h1", "buy", 1, 64, kNow, kNow + 40, 100 * kDollar));  // $256,000
    QCOMPARE(d.find(r, "exec", "rejected")["code"].get<std::string>(), std::string("insufficient_cash"));
    QVERIFY(d.find(d.send(house, order("h2", "buy", 1, 10, kNow, kNow + 10, 10 * kDollar)), "exec", "accepted")
                .is_object());
    r = d.send(house, order("h3", "buy", 1, 1, kNow, kNow + 1, kDollar));  // the line is used up
    QCOMPARE(d.find(r, "exec", "rejected")["code"].get<std::string>(), std::string("insufficient_cash"));
    QVERIFY(d.find(r, "exec", "rejected")["reason"].get<std::string>().find("$1.00") != std::string::npos);
  }

  void outagesAreBoundedAndOnlyFromTheProvider() {
    // One outage message used to loop hour by hour to its end (INT64_MAX: forever) on the
    // matching thread, or allocate a vector per contract for every hour up to it.
    // Fails when: the provider check, the 744-hour bound or the nothing-sold check in
    // ExchangeCore::applyOutage is removed (each changes an answer below; checked for the
    // first two). Without the bounds to its contracts' hours as well, the matching thread
    // loops to the end of time.
    Driver d;
    const SessionId bob = d.connect("bob");
    const SessionId provider = d.connect("provider");
    const SessionId alice = d.connect("alice");
    auto outage = [](int cluster, Hour start, Hour end, int lost) {
      return "{\"type\":\"outage\",\"cluster\":" + std::to_string(cluster) + ",\"start\":" + std::to_string(start) +
             ",\"end\":" + std::to_string(end) + ",\"lost_gpus\":" + std::to_string(lost) + "}";
    };
    const Hour endOfTime = std::numeric_limits<Hour>::max();
    auto code = [&](const std::vector<json>& r) { return d.find(r, "error")["code"].get<std::string>(); };
    const auto t0 = std::chrono::steady_clock::now();
    QCOMPARE(code(d.send(bob, outage(1, kNow, endOfTime, 1))), std::string("not_your_cluster"));
    QCOMPARE(code(d.send(provider, outage(1, kNow, endOfTime, 1))), std::string("invalid_report"));
    QCOMPARE(code(d.send(provider, outage(1, kNow, kNow + 1'000'000'000, 1))), std::string("invalid_report"));
    QCOMPARE(code(d.send(provider, outage(1, kNow, kNow + 24, 1))), std::string("nothing_sold"));
    // With a contract on the cluster: a month-long report is worked through the contract's hours.
    QVERIFY(d.find(d.send(provider, order("p1", "sell", 1, 8, kNow + 2, kNow + 6, kDollar)), "exec", "accepted")
                .is_object());
    QVERIFY(d.find(d.send(alice, order("a1", "buy", 1, 8, kNow + 2, kNow + 6, kDollar)), "exec", "filled").is_object());
    QCOMPARE(code(d.send(provider, outage(1, kNow, endOfTime, 8))), std::string("invalid_report"));
    QCOMPARE(code(d.send(provider, outage(1, kNow, kNow + 10'000, 8))), std::string("invalid_report"));
    const json ack = d.find(d.send(provider, outage(1, kNow, kNow + 31 * 24, 64)), "outage_ack");
    QCOMPARE(ack["contracts"].size(), std::size_t(1));
    QCOMPARE(code(d.send(bob, outage(1, kNow, kNow + 4, 1))), std::string("not_your_cluster"));
    QVERIFY(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    // Every hour of the contract lost all 8 GPUs (64 lost of 64 held): nothing is delivered.
    d.clock(kNow + 7);
    const json pos = d.find(d.send(alice, "{\"type\":\"positions\"}"), "positions");
    QCOMPARE(pos["contracts"][0]["delivered_gpu_hours"].get<std::int64_t>(), std::int64_t(0));
  }

  void resumeRepliesAreBounded() {
    // A 38-byte subscribe with an old from_seq was answered with every kept line (99,001 lines,
    // 8.9 MB). A resume now replays at most 1 MiB; an older from_seq gets a snapshot.
    // Fails when: onSubscribe replays from `from_seq` whatever the size (the byte budget
    // removed).
    Driver d;
    const SessionId provider = d.connect("provider");
    const SessionId watcher = d.connect("alice");
    d.send(watcher, "{\"type\":\"subscribe\"}");
    std::uint64_t firstSeq = 0;
    for (int i = 0; i < 150; ++i) {  // each listing and its cancel change 48 cells
      const std::string id = "p" + std::to_string(i);
      d.send(provider, order(id, "sell", 1, 8, kNow, kNow + 48, kDollar + i * 1000));
      d.send(provider, "{\"type\":\"cancel\",\"cl_ord_id\":\"" + id + "\"}");
      if (i == 0) {
        for (const json& j : d.drain(watcher))
          if (j.contains("seq") && !firstSeq) firstSeq = j["seq"].get<std::uint64_t>();
      }
    }
    QVERIFY(firstSeq > 0);
    d.drain(watcher);  // what the listings published
    auto r = d.send(watcher, "{\"type\":\"subscribe\",\"from_seq\":" + std::to_string(firstSeq) + "}");
    std::size_t bytes = 0;
    for (const json& j : r) bytes += j.dump().size();
    QVERIFY2(d.find(r, "md_snapshot").is_object(), "an old from_seq is answered with a snapshot");
    QVERIFY(!d.find(r, "md_resume").is_object());
    QVERIFY2(bytes < (1u << 20), std::to_string(bytes).c_str());
    // A recent gap is still resumed line by line.
    const std::uint64_t last = d.core().mdSeq();
    r = d.send(watcher, "{\"type\":\"subscribe\",\"from_seq\":" + std::to_string(last - 9) + "}");
    QCOMPARE(d.find(r, "md_resume")["from_seq"].get<std::uint64_t>(), last - 9);
    QCOMPARE(r.size(), std::size_t(11));
  }

  void aFiveYearBidPublishesOnlyTheHorizon() {
    // A 5-year bid at 1 micro-dollar per GPU-hour (reserving $0.04), placed and cancelled, sent
    // 90,241 lines to every subscriber. Cells are published for the 90-day horizon, and hours
    // further out as the clock brings them within it.
    // Fails when: touch() marks every hour of the window instead of stopping at the horizon
    // (87,600 lines), or the clock step does not publish the hour it brings within it.
    Driver d;
    const SessionId alice = d.connect("alice");
    const SessionId watcher = d.connect("carol");
    d.send(watcher, "{\"type\":\"subscribe\"}");
    d.drain(watcher);
    const Hour fiveYears = 5 * 365 * 24;
    QVERIFY(
        d.find(d.send(alice, order("far", "buy", 1, 1, kNow, kNow + fiveYears, 1)), "exec", "accepted").is_object());
    std::size_t cells = 0;
    for (const json& j : d.drain(watcher)) cells += j["type"] == "md_cell";
    QCOMPARE(cells, std::size_t(90 * 24));
    d.clock(kNow + 1);
    std::size_t added = 0;
    for (const json& j : d.drain(watcher))
      if (j["type"] == "md_cell" && !j["levels"].empty()) {
        ++added;
        QCOMPARE(j["hour"].get<Hour>(), kNow + 90 * 24);
      }
    QCOMPARE(added, std::size_t(1));
    d.send(alice, "{\"type\":\"cancel\",\"cl_ord_id\":\"far\"}");
    cells = 0;
    for (const json& j : d.drain(watcher)) cells += j["type"] == "md_cell";
    QCOMPARE(cells, std::size_t(90 * 24));
  }

  void sellerNeedsCapacity() {
    Driver d;
    const SessionId alice = d.connect("alice");
    auto r = d.send(alice, order("a1", "sell", 1, 8, kNow, kNow + 10, 2 * kDollar));
    QCOMPARE(d.find(r, "exec", "rejected")["code"].get<std::string>(), std::string("insufficient_holdings"));
    const SessionId provider = d.connect("provider");
    r = d.send(provider, order("p1", "sell", 1, 65, kNow, kNow + 10, 2 * kDollar));  // owns 64
    QVERIFY(d.find(r, "exec", "rejected").is_object());
  }
  void accountsAreIsolated() {
    Driver d;
    const SessionId alice = d.connect("alice");
    const SessionId bob = d.connect("bob");
    const json ack = d.find(d.send(alice, order("mine", "buy", 1, 1, kNow, kNow + 1, kDollar)), "exec", "accepted");
    const std::string id = std::to_string(ack["order_id"].get<OrderId>());
    QVERIFY(d.drain(bob).empty());  // bob hears nothing of alice's order
    auto r = d.send(bob, "{\"type\":\"cancel\",\"order_id\":" + id + "}");
    QCOMPARE(d.find(r, "error")["code"].get<std::string>(), std::string("unknown_order"));
    r = d.send(bob, "{\"type\":\"cancel\",\"cl_ord_id\":\"mine\"}");
    QCOMPARE(d.find(r, "error")["code"].get<std::string>(), std::string("unknown_order"));
    r = d.send(bob, "{\"type\":\"amend\",\"order_id\":" + id + ",\"limit\":1}");
    QCOMPARE(d.find(r, "error")["code"].get<std::string>(), std::string("unknown_order"));
    r = d.send(bob, "{\"type\":\"order_status\",\"order_id\":" + id + "}");
    QCOMPARE(d.find(r, "error")["code"].get<std::string>(), std::string("unknown_order"));
    QVERIFY(d.find(d.send(bob, "{\"type\":\"orders\"}"), "orders")["orders"].empty());
    QCOMPARE(d.find(d.send(bob, "{\"type\":\"mass_cancel\"}"), "mass_cancel_ack")["cancelled"].get<int>(), 0);
    // alice's order is untouched.
    const json st = d.find(d.send(alice, "{\"type\":\"order_status\",\"cl_ord_id\":\"mine\"}"), "order_status");
    QCOMPARE(st["status"].get<std::string>(), std::string("working"));
    QCOMPARE(d.find(d.send(alice, "{\"type\":\"orders\"}"), "orders")["orders"].size(), std::size_t(1));
  }
  void openOrderLimit() {
    ExchangeConfig c = marketConfig();
    c.limits.maxOpenOrdersPerAccount = 2;
    Driver d(c);
    const SessionId alice = d.connect("alice");
    QVERIFY(d.find(d.send(alice, order("1", "buy", 1, 1, kNow, kNow + 1, kDollar)), "exec", "accepted").is_object());
    QVERIFY(d.find(d.send(alice, order("2", "buy", 1, 1, kNow, kNow + 1, kDollar)), "exec", "accepted").is_object());
    QCOMPARE(d.find(d.send(alice, order("3", "buy", 1, 1, kNow, kNow + 1, kDollar)), "exec", "rejected")["code"]
                 .get<std::string>(),
             std::string("too_many_open_orders"));
    d.send(alice, "{\"type\":\"cancel\",\"cl_ord_id\":\"1\"}");
    QVERIFY(d.find(d.send(alice, order("4", "buy", 1, 1, kNow, kNow + 1, kDollar)), "exec", "accepted").is_object());
  }
  void duplicateClientOrderId() {
    Driver d;
    const SessionId alice = d.connect("alice");
    d.send(alice, order("x", "buy", 1, 1, kNow, kNow + 1, kDollar));
    QCOMPARE(d.find(d.send(alice, order("x", "buy", 1, 1, kNow, kNow + 1, kDollar)), "exec", "rejected")["code"]
                 .get<std::string>(),
             std::string("duplicate_cl_ord_id"));
  }
  void engineRejectionsCarryReasons() {
    Driver d;
    const SessionId alice = d.connect("alice");
    QCOMPARE(d.find(d.send(alice, order("w", "buy", 1, 1, kNow - 5, kNow - 1, kDollar)), "exec", "rejected")["code"]
                 .get<std::string>(),
             std::string("window_in_past"));
    QCOMPARE(d.find(d.send(alice, order("c", "buy", 99, 1, kNow, kNow + 1, kDollar)), "exec", "rejected")["code"]
                 .get<std::string>(),
             std::string("unknown_cluster"));
    QCOMPARE(d.find(d.send(alice, order("p", "buy", 1, 1, kNow, kNow + 1, 0)), "exec", "rejected")["code"]
                 .get<std::string>(),
             std::string("invalid_price"));
    // Rejected orders hold nothing.
    QCOMPARE(d.balance(alice)["reserved"].get<Money>(), Money(0));
  }
  void logonRules() {
    Driver d;
    d.core().sessionOpened(100);
    auto r = d.send(100, "{\"type\":\"balance\",\"req\":3}");
    QCOMPARE(r[0]["code"].get<std::string>(), std::string("not_logged_on"));
    QCOMPARE(r[0]["req"].get<int>(), 3);
    for (int i = 0; i < 3; ++i) {
      r = d.send(100, "{\"type\":\"logon\",\"account\":\"alice\",\"key\":\"guess\"}");
      QCOMPARE(r[0]["code"].get<std::string>(), std::string("auth_failed"));
    }
    QCOMPARE(d.lastDisconnect().size(), std::size_t(1));  // three strikes
    d.core().sessionOpened(101);
    r = d.send(101, "{\"type\":\"logon\",\"account\":\"nobody\",\"key\":\"x\"}");
    QCOMPARE(r[0]["code"].get<std::string>(), std::string("auth_failed"));  // same answer as a bad key
    const SessionId ok = d.connect("alice");
    r = d.send(ok, "{\"type\":\"logon\",\"account\":\"bob\",\"key\":\"bob-key\"}");
    QCOMPARE(r[0]["code"].get<std::string>(), std::string("already_logged_on"));
    // The core takes the gate's word and checks no key itself (that costs milliseconds of
    // Argon2id, which must not be spent on the matching thread): a logon that did not go
    // through the gate is refused even with the right key, and a throttled one says when to
    // retry. Fails if ExchangeCore logs on Unchecked logons.
    d.core().sessionOpened(102);
    for (const LogonCheck c : {LogonCheck::Unchecked, LogonCheck::Refused, LogonCheck::Throttled}) {
      Outbox out;
      ClientMessage m{Logon{"carol", "carol-key", c, 1500}, 7};
      d.core().handle(102, m, out);
      const json e = json::parse(out.toSession[102]);
      QCOMPARE(e["code"].get<std::string>(),
               std::string(c == LogonCheck::Throttled ? "auth_throttled" : "auth_failed"));
      QCOMPARE(e["req"].get<int>(), 7);
      if (c == LogonCheck::Throttled) QCOMPARE(e["retry_after_ms"].get<int>(), 1500);
    }
  }
  void unconfiguredAccountsCannotLogOn() {
    // "ghost" exists only through a capacity grant (as a feeder's account would).
    QTemporaryDir dir;
    const std::string path = dir.filePath("j.db").toStdString();
    ExchangeConfig c = marketConfig();
    Cluster extra = c.clusters[0];
    extra.id = 3;
    extra.name = "ghost-cluster";
    c.clusters.push_back(extra);
    c.grants.push_back(GrantConfig{"ghost", "ghost-cluster", 8, kNow, kNow + 4});
    for (int run = 0; run < 2; ++run) {  // fresh, then replayed from the journal
      Driver d(c, path);
      d.core().sessionOpened(50);
      auto r = d.send(50, "{\"type\":\"logon\",\"account\":\"ghost\",\"key\":\"\"}");
      QVERIFY(r.empty() || r[0]["type"] == "error");
      r = d.send(50, "{\"type\":\"logon\",\"account\":\"ghost\",\"key\":\"x\"}");
      QCOMPARE(r[0]["code"].get<std::string>(), std::string("auth_failed"));
    }
  }
  void marketDataSnapshotAndDeltas() {
    Driver d;
    const SessionId provider = d.connect("provider");
    const SessionId watcher = d.connect("carol");
    d.send(provider, order("p1", "sell", 1, 8, kNow, kNow + 2, 3 * kDollar));
    auto r = d.send(watcher, "{\"type\":\"subscribe\"}");
    const json snap = d.find(r, "md_snapshot");
    QCOMPARE(snap["cells"].size(), std::size_t(2));  // two hours of asks
    QCOMPARE(snap["cells"][0]["levels"][0][0].get<Price>(), 3 * kDollar);
    const std::uint64_t seq = snap["seq"];
    d.send(provider, order("p2", "sell", 1, 4, kNow, kNow + 1, 2 * kDollar));
    r = d.drain(watcher);
    const json cell = d.find(r, "md_cell");
    QCOMPARE(cell["seq"].get<std::uint64_t>(), seq + 1);
    QCOMPARE(cell["levels"].size(), std::size_t(2));
    QCOMPARE(cell["levels"][0][0].get<Price>(), 2 * kDollar);  // best ask first
    // A re-request from a known sequence number resends instead of snapshotting.
    r = d.send(watcher, "{\"type\":\"subscribe\",\"from_seq\":" + std::to_string(seq + 1) + "}");
    QVERIFY(d.find(r, "md_resume").is_object());
    QCOMPARE(d.find(r, "md_cell")["seq"].get<std::uint64_t>(), seq + 1);
  }
  // Positions in pages: limit 7 over 20 contracts gives 7, 7 and 6, each page after the last
  // id of the one before, and only the last without next_after; together the unpaged list.
  // Fails if next_after is off by one (a contract twice or lost) or given on the last page.
  void positionsComeInPages() {
    Driver d;
    const SessionId provider = d.connect("provider");
    const SessionId alice = d.connect("alice");
    d.send(provider, order("ask", "sell", 1, 64, kNow, kNow + 48, kDollar));
    for (int i = 0; i < 20; ++i)
      d.send(alice, order("b" + std::to_string(i), "buy", 1, 1, kNow + i, kNow + i + 1, kDollar));
    const json whole = d.find(d.send(alice, "{\"type\":\"positions\"}"), "positions");
    QCOMPARE(whole["contracts"].size(), std::size_t(20));
    QVERIFY(!whole.contains("next_after"));
    json paged = json::array();
    std::string after;
    std::vector<std::size_t> sizes;
    for (int page = 0; page < 5; ++page) {
      const json r = d.find(d.send(alice, "{\"type\":\"positions\",\"limit\":7" + after + "}"), "positions");
      sizes.push_back(r["contracts"].size());
      for (const json& c : r["contracts"]) paged.push_back(c);
      if (!r.contains("next_after")) break;
      QCOMPARE(r["next_after"], r["contracts"].back()["contract"]);
      after = ",\"after_contract\":" + r["next_after"].dump();
    }
    QCOMPARE(sizes, (std::vector<std::size_t>{7, 7, 6}));
    QCOMPARE(paged, whole["contracts"]);
    // A page larger than the exchange gives is refused, not cut short without a word.
    const json refused = d.find(d.send(alice, "{\"type\":\"positions\",\"limit\":100000}"), "error");
    QCOMPARE(refused["code"].get<std::string>(), std::string("bad_field"));
  }

  // After a replay the book cells are read in runs of consecutive hours per cluster and side:
  // cluster 1's last touched hour and cluster 2's first are consecutive here, and each cluster's
  // cells must still be its own. Mutation seen to fail: a run that continues across clusters.
  void replayKeepsEachClustersCells() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("journal.db").toStdString();
    json before;
    {
      Driver d(marketConfig(), path);
      const SessionId provider = d.connect("provider");
      d.send(provider, order("c1", "sell", 1, 8, kNow + 2, kNow + 4, 2 * kDollar));
      d.send(provider, order("c2", "sell", 2, 4, kNow + 4, kNow + 6, 3 * kDollar));
      before = d.find(d.send(d.connect("bob"), "{\"type\":\"subscribe\"}"), "md_snapshot")["cells"];
    }
    QCOMPARE(before.size(), std::size_t(4));
    Driver again(marketConfig(), path);
    const json after = again.find(again.send(again.connect("bob"), "{\"type\":\"subscribe\"}"), "md_snapshot")["cells"];
    QCOMPARE(QString::fromStdString(after.dump()), QString::fromStdString(before.dump()));
  }

  void replayRefusesAnOverlongClientOrderId() {
    // A journal edited by hand (or damaged) must stop the server with a reason, not crash it.
    QTemporaryDir dir;
    const std::string path = dir.filePath("journal.db").toStdString();
    {
      Driver d(marketConfig(), path);
      const SessionId provider = d.connect("provider");
      QCOMPARE(d.send(provider, order("o1", "sell", 1, 2, kNow + 1, kNow + 3, 2 * kDollar))[0]["state"], "accepted");
    }
    {
      const store::SqliteDb db = openSqlite(path);
      const std::string update =
          "UPDATE journal SET cl_ord_id = '" + std::string(kMaxClOrdIdLength + 1, 'x') + "' WHERE cl_ord_id = 'o1'";
      const auto err = db.exec(update);
      QVERIFY2(!err, err ? err->c_str() : "");
      QCOMPARE(sqlite3_changes(db), 1);
    }
    auto journal = openJournal(path);
    try {
      ExchangeCore again(marketConfig(), *journal);
      QFAIL("the journal was replayed");
    } catch (const std::runtime_error& e) {
      QVERIFY2(std::string(e.what()).find("cl_ord_id longer than") != std::string::npos, e.what());
    }
  }

  void replayFillsTheArchiveOfAJournalFromBeforeIt() {
    // A replay writes no archive row for an entry committed with its rows (the meta key
    // finished_orders_complete_after), but fills the rows of older entries: a journal from
    // before the archive (simulated: rows and key removed) answers order_history and
    // order_status for its finished orders after one replay, and again from the rows after a
    // second. Seen failing with Journal::replayingEntryWithArchivedOrders() true for every
    // entry (the history comes back empty).
    QTemporaryDir dir;
    const std::string path = dir.filePath("journal.db").toStdString();
    json before;
    {
      Driver d(marketConfig(), path);
      const SessionId alice = d.connect("alice");
      for (int i = 0; i < 5; ++i) {
        d.send(alice, order("a" + std::to_string(i), "buy", 1, 1, kNow + 1, kNow + 2, kDollar));
        d.send(alice, "{\"type\":\"cancel\",\"cl_ord_id\":\"a" + std::to_string(i) + "\"}");
      }
      before = d.find(d.send(alice, "{\"type\":\"order_history\"}"), "order_history")["orders"];
      QCOMPARE(before.size(), std::size_t(5));
    }
    const auto err = openSqlite(path).exec(
        "DELETE FROM finished_orders; DELETE FROM meta WHERE key = 'finished_orders_complete_after'");
    QVERIFY2(!err, err ? err->c_str() : "");
    for (int run = 0; run < 2; ++run) {
      Driver again(marketConfig(), path);
      const SessionId alice = again.connect("alice");
      const json after = again.find(again.send(alice, "{\"type\":\"order_history\"}"), "order_history")["orders"];
      QCOMPARE(QString::fromStdString(after.dump()), QString::fromStdString(before.dump()));
      const json status =
          again.find(again.send(alice, "{\"type\":\"order_status\",\"cl_ord_id\":\"a3\"}"), "order_status");
      QCOMPARE(status["status"].get<std::string>(), std::string("cancelled"));
    }
  }

  void replayRebuildsTheSameState() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("journal.db").toStdString();
    std::mt19937 rng(7);
    json before;
    {
      Driver d(marketConfig(), path);
      const SessionId alice = d.connect("alice");
      const SessionId carol = d.connect("carol");
      const SessionId provider = d.connect("provider");
      for (int i = 0; i < 300; ++i) {
        const Hour start = kNow + static_cast<Hour>(rng() % 40);
        const Hour end = start + 1 + static_cast<Hour>(rng() % 6);
        const Price price = (100 + static_cast<Price>(rng() % 200)) * 10'000;
        const int gpus = 1 + static_cast<int>(rng() % 4);
        const std::string id = "o" + std::to_string(i);
        switch (rng() % 5) {
          case 0:
          case 1: d.send(provider, order(id, "sell", 1 + rng() % 2, gpus, start, end, price)); break;
          case 2: d.send(alice, order(id, "buy", 1 + rng() % 2, gpus, start, end, price)); break;
          case 3: d.send(carol, order(id, "buy", 1, gpus, start, end, price, ",\"tif\":\"IOC\"")); break;
          case 4:
            d.send(alice, "{\"type\":\"cancel\",\"cl_ord_id\":\"o" + std::to_string(rng() % (i + 1)) + "\"}");
            break;
        }
      }
      for (SessionId s : {alice, carol, provider}) {
        before.push_back(d.balance(s));
        before.push_back(d.find(d.send(s, "{\"type\":\"orders\"}"), "orders"));
        before.push_back(d.find(d.send(s, "{\"type\":\"positions\"}"), "positions"));
      }
      QVERIFY(!before[2]["contracts"].empty());  // the script did trade
      // The market-data picture too (the snapshot's cells; its seq restarts with the process).
      before.push_back(d.find(d.send(d.connect("bob"), "{\"type\":\"subscribe\"}"), "md_snapshot")["cells"]);
    }
    Driver again(marketConfig(), path);
    QVERIFY2(again.core().replayedEntries() > 150, qPrintable(QString::number(again.core().replayedEntries())));
    json after;
    const SessionId alice = again.connect("alice");
    const SessionId carol = again.connect("carol");
    const SessionId provider = again.connect("provider");
    for (SessionId s : {alice, carol, provider}) {
      after.push_back(again.balance(s));
      after.push_back(again.find(again.send(s, "{\"type\":\"orders\"}"), "orders"));
      after.push_back(again.find(again.send(s, "{\"type\":\"positions\"}"), "positions"));
    }
    // Replay publishes the book cells once at its end, not after every entry; the picture is
    // the same. (Fails if the end-of-replay publication is left out: the snapshot is empty.)
    after.push_back(again.find(again.send(again.connect("bob"), "{\"type\":\"subscribe\"}"), "md_snapshot")["cells"]);
    QVERIFY(!after.back().empty());
    QCOMPARE(QString::fromStdString(after.dump()), QString::fromStdString(before.dump()));
    // New orders after the restart get fresh ids.
    const json ack = again.find(again.send(alice, order("new", "buy", 1, 1, kNow, kNow + 1, 1)), "exec", "accepted");
    QVERIFY(ack.is_object());
  }

  void replayAndSnapshotsGiveTheSameStateDigestAfterAMixedWorkload() {
    // Orders (divisible, IOC, all-or-none), amends, cancels, sell-backs of bought hours,
    // forwards, clock steps that deliver and settle contracts, outages and delivery reports,
    // then a full replay of the journal: the digest of the whole state must match. Seen failing
    // with the end-of-replay publication of book cells left out of ExchangeCore::replay.
    // Snapshots taken along the way, each loaded with the journal's later entries replayed,
    // must give the same digest as the full replay. Seen failing with the ledger's postings
    // left out of SettlementLedger::save/load, and with ContractSettlement::load not indexing
    // the open contracts by seller and cluster (the next settlement after the load crashes).
    QTemporaryDir dir;
    const std::string path = dir.filePath("journal.db").toStdString();
    std::mt19937 rng(31);
    auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    std::uint64_t before = 0;
    std::vector<std::pair<std::uint64_t, std::string>> snapshots;  // (journal entry, bytes)
    {
      Driver d(marketConfig(), path);
      const SessionId alice = d.connect("alice");
      const SessionId carol = d.connect("carol");
      const SessionId provider = d.connect("provider");
      Hour now = kNow;
      int contracts = 0;
      std::map<std::string, int> kinds;
      for (int i = 0; i < 600; ++i) {
        const Hour start = now + u(0, 30);
        const Hour end = start + u(1, 6);
        const Price price = u(100, 300) * 10'000;
        const int gpus = u(1, 4);
        const int cluster = u(1, 2);
        const std::string id = "o" + std::to_string(i);
        const std::string old = "o" + std::to_string(u(std::max(0, i - 12), i));  // mostly still working
        std::vector<json> r;
        switch (u(0, 11)) {
          case 0:
          case 1: r = d.send(provider, order(id, "sell", cluster, gpus, start, end, price)); break;
          case 2: r = d.send(alice, order(id, "buy", cluster, gpus, start, end, price)); break;
          case 3: r = d.send(carol, order(id, "buy", cluster, gpus, start, end, price, ",\"tif\":\"IOC\"")); break;
          case 4:
            r = d.send(carol, order(id, "buy", cluster, gpus, start, end, price, ",\"fill\":\"all_or_none\""));
            break;
          case 5: r = d.send(alice, "{\"type\":\"cancel\",\"cl_ord_id\":\"" + old + "\"}"); break;
          case 6:
            r = d.send(u(0, 1) ? alice : provider, "{\"type\":\"amend\",\"cl_ord_id\":\"" + old +
                                                       "\",\"limit\":" + std::to_string(u(100, 300) * 10'000) + "}");
            break;
          case 7:  // a sell-back: alice offers hours she may have bought
            r = d.send(alice, order(id, "sell", cluster, 1, start, end, price * 2));
            break;
          case 8:
            r = d.send(u(0, 1) ? alice : carol, json{{"type", "forward_order"},
                                                     {"cl_ord_id", id},
                                                     {"side", u(0, 1) ? "buy" : "sell"},
                                                     {"accelerator", "H100"},
                                                     {"week_start", nextWeekStart(kNow)},
                                                     {"gpu_hours", u(1, 50)},
                                                     {"price", u(100, 300) * 10'000}}
                                                    .dump());
            break;
          case 9:
            r = d.send(provider, "{\"type\":\"outage\",\"cluster\":" + std::to_string(cluster) +
                                     ",\"start\":" + std::to_string(now) + ",\"end\":" + std::to_string(now + u(1, 5)) +
                                     ",\"lost_gpus\":" + std::to_string(u(1, 8)) + "}");
            break;
          case 10:
            r = d.send(provider, "{\"type\":\"delivery_report\",\"contract\":" + std::to_string(u(1, contracts + 1)) +
                                     ",\"start\":" + std::to_string(now) + ",\"end\":" + std::to_string(now + u(1, 3)) +
                                     ",\"usable_gpus\":" + std::to_string(u(0, 2)) + ",\"problem\":\"missing_gpus\"}");
            break;
          case 11:
            if (now < kNow + 40) d.clock(now += u(1, 2));
            break;
        }
        for (const json& j : r) {
          ++kinds[j.value("type", "") + "/" + j.value("state", "")];
          if (j.value("type", "") == "exec" && j.contains("contract"))
            contracts = std::max(contracts, j["contract"].get<int>());
        }
        if (i == 0 || i % 97 == 50) snapshots.emplace_back(d.journal().lastSeq(), d.core().snapshot());
      }
      // Every kind of change happened (amends of working orders, settlements, forward fills).
      for (const char* kind : {"exec/amended", "exec/filled", "exec/cancelled", "settlement/settled",
                               "settlement/partly_delivered", "outage_ack/", "forward_fill/"})
        QVERIFY2(kinds[kind] > 0, kind);
      QVERIFY2(contracts > 20, qPrintable(QString::number(contracts)));  // the script did trade
      before = d.core().stateDigest();
    }
    std::uint64_t entries = 0;
    {
      Driver full(marketConfig(), path);
      entries = full.core().replayedEntries();
      QVERIFY2(entries > 250, qPrintable(QString::number(entries)));
      QCOMPARE(full.core().stateDigest(), before);
    }
    QCOMPARE(snapshots.size(), std::size_t(7));
    for (const auto& [seq, bytes] : snapshots) {
      const ExchangeCore::SnapshotStart from{seq, bytes};
      Driver tail(marketConfig(), path, &from);
      QVERIFY(tail.core().startedFromSnapshot());
      QCOMPARE(tail.core().replayedEntries(), entries - seq);
      QVERIFY2(tail.core().stateDigest() == before, qPrintable(QString("snapshot after entry %1").arg(seq)));
    }
    Driver again(marketConfig(), path);
    // The digest sees a change: one more order changes it.
    again.send(again.connect("alice"), order("late", "buy", 1, 1, kNow + 41, kNow + 42, 1));
    QVERIFY(again.core().stateDigest() != before);
  }

  // Finished orders retire from memory to the journal's archive; every reply stays as it is with
  // them kept in memory: the same random script is sent to a retiring core and to one that
  // keeps every order, and every reply, then order_status of every order (by id and client id),
  // cancels and amends of finished ones, order_history and the state digest must be equal, also
  // after a restart. Seen failing with order_status not looking in the archive (unknown_order
  // for a retired order), with resolve() not looking there (a cancel by cl_ord_id answered
  // "no such order of yours"), and with the new-order check not asking the archive (a retired
  // order's cl_ord_id accepted again).
  void retiredOrdersAnswerAsOrdersKeptInMemory() {
    QTemporaryDir dir;
    ExchangeConfig keep = marketConfig();
    keep.retireFinishedOrders = false;
    const std::string retiringPath = dir.filePath("retiring.db").toStdString();
    std::mt19937 rng(30);
    auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto withoutEpoch = [](std::vector<json> lines) {
      for (json& j : lines) j.erase("epoch");
      return lines;
    };
    int finishedSeen = 0;
    std::vector<std::string> clOrdIds;
    {
      Driver retiring(marketConfig(), retiringPath);
      Driver kept(keep, dir.filePath("kept.db").toStdString());
      std::map<std::string, SessionId> sessions;
      for (const char* name : {"alice", "carol", "provider"}) {
        sessions[name] = retiring.connect(name);
        QCOMPARE(kept.connect(name), sessions[name]);
      }
      auto both = [&](const std::string& who, const std::string& line) {
        const auto a = withoutEpoch(retiring.send(sessions[who], line));
        const auto b = withoutEpoch(kept.send(sessions[who], line));
        if (a != b)
          qFatal("replies differ for %s: %s vs %s", line.c_str(), json(a).dump().c_str(), json(b).dump().c_str());
        return a;
      };
      Hour now = kNow;
      for (int i = 0; i < 400; ++i) {
        const Hour start = now + u(0, 20);
        const Hour end = start + u(1, 4);
        const Price price = u(100, 300) * 10'000;
        const std::string id = "o" + std::to_string(i);
        const std::string old = "o" + std::to_string(u(0, i));  // often finished by now
        const std::string oldId = std::to_string(u(1, i + 1));
        clOrdIds.push_back(id);
        switch (u(0, 9)) {
          case 0:
          case 1: both("provider", order(id, "sell", u(1, 2), u(1, 4), start, end, price)); break;
          case 2: both("alice", order(id, "buy", u(1, 2), u(1, 4), start, end, price)); break;
          case 3: both("carol", order(id, "buy", u(1, 2), u(1, 4), start, end, price, ",\"tif\":\"IOC\"")); break;
          case 4: both("alice", "{\"type\":\"cancel\",\"cl_ord_id\":\"" + old + "\"}"); break;
          case 5: both("carol", "{\"type\":\"cancel\",\"order_id\":" + oldId + "}"); break;
          case 6:
            both(u(0, 1) ? "alice" : "provider", "{\"type\":\"amend\",\"cl_ord_id\":\"" + old + "\",\"limit\":" +
                                                     std::to_string(u(100, 300) * 10'000) + ",\"gpus\":9}");
            break;
          case 7: both("alice", order(old, "buy", 1, 1, start, end, price)); break;  // a used cl_ord_id
          case 8: both("carol", "{\"type\":\"order_status\",\"cl_ord_id\":\"" + old + "\"}"); break;
          case 9:
            if (now < kNow + 30) {
              retiring.clock(now + 1);
              kept.clock(++now);
            }
            break;
        }
      }
      for (const auto& [name, s] : sessions) {
        for (int id = 1; id < 420; ++id) {
          const auto r = both(name, "{\"type\":\"order_status\",\"order_id\":" + std::to_string(id) + "}");
          if (r[0]["type"] == "order_status" && r[0]["status"] != "working") {
            ++finishedSeen;
            // Retired: gone from the engine of the retiring core, kept by the other.
            QVERIFY(!retiring.core().engine().order(static_cast<OrderId>(id)));
            QVERIFY(kept.core().engine().order(static_cast<OrderId>(id)));
          }
        }
        for (const std::string& c : clOrdIds) both(name, "{\"type\":\"order_status\",\"cl_ord_id\":\"" + c + "\"}");
        std::string after;
        for (int page = 0; page < 100; ++page) {
          const auto r = both(name, "{\"type\":\"order_history\",\"limit\":25" + after + "}");
          if (!r[0].contains("next_after")) break;
          after = ",\"after_order\":" + r[0]["next_after"].dump();
        }
      }
      QCOMPARE(retiring.core().stateDigest(), kept.core().stateDigest());
    }
    QVERIFY2(finishedSeen > 100, qPrintable(QString::number(finishedSeen)));
    // After a restart (a full replay of the journal) retired orders answer as before.
    Driver again(marketConfig(), retiringPath);
    const SessionId alice = again.connect("alice");
    const json history = again.find(again.send(alice, "{\"type\":\"order_history\"}"), "order_history");
    QVERIFY(!history["orders"].empty());
    for (const json& o : history["orders"]) {
      QVERIFY(o["status"] != "working");
      const json status = again.find(
          again.send(alice, "{\"type\":\"order_status\",\"order_id\":" + o["order_id"].dump() + "}"), "order_status");
      json expected = o;
      expected["type"] = "order_status";
      QCOMPARE(status, expected);
    }
    // From a snapshot too: every client order id alice used is refused again, whether its order
    // works or retired (the filter of retired ids comes with the snapshot; seen failing with
    // RetiredClOrdIds::load leaving the filter empty: the retired ones were accepted again).
    const std::string snapshot = again.core().snapshot();
    const ExchangeCore::SnapshotStart from{again.journal().lastSeq(), snapshot};
    Driver restored(marketConfig(), retiringPath, &from);
    QVERIFY(restored.core().startedFromSnapshot());
    const SessionId alice2 = restored.connect("alice");
    int refused = 0;
    for (const json& o : history["orders"]) {
      const std::string used = o["cl_ord_id"];
      const json r = restored.find(restored.send(alice2, order(used, "buy", 1, 1, kNow + 40, kNow + 41, 1)), "exec");
      QVERIFY2(r["state"] == "rejected" && r["code"] == "duplicate_cl_ord_id",
               qPrintable(QString::fromStdString(used + " " + r.dump())));
      ++refused;
    }
    QVERIFY(refused > 20);
  }

  // Settled contracts retire from memory to the journal's archive; every reply stays as it is
  // with them kept in memory: the same random script (asks with and without terms, bids that
  // take them, delivery reports naming any contract, outages, positions pages, the clock moving so
  // that contracts settle) is sent to a retiring core and to one that keeps every contract;
  // every reply, every positions page and the state digest must be equal, also after a restart
  // by full replay and from a snapshot taken while contracts were retired. Seen failing with
  // positions not reading the archive (retired contracts missing from the list), and with a
  // delivery report on a retired contract answered unknown_contract instead of
  // hours_already_settled (SettlementDesk::deliveryReport not asking the archive).
  void settledContractsAnswerAsContractsKeptInMemory() {
    QTemporaryDir dir;
    ExchangeConfig keep = marketConfig();
    keep.retireSettledContracts = false;
    const std::string retiringPath = dir.filePath("retiring.db").toStdString();
    std::mt19937 rng(31);
    auto u = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto withoutEpoch = [](std::vector<json> lines) {
      for (json& j : lines) j.erase("epoch");
      return lines;
    };
    int contracts = 0;
    std::uint64_t digest = 0;
    std::vector<std::pair<std::uint64_t, std::string>> snapshots;
    std::map<std::string, json> positionsBefore;
    const std::vector<std::string> names{"alice", "carol", "provider"};
    {
      Driver retiring(marketConfig(), retiringPath);
      Driver kept(keep, dir.filePath("kept.db").toStdString());
      std::map<std::string, SessionId> sessions;
      for (const std::string& name : names) {
        sessions[name] = retiring.connect(name);
        QCOMPARE(kept.connect(name), sessions[name]);
      }
      auto both = [&](const std::string& who, const std::string& line) {
        const auto a = withoutEpoch(retiring.send(sessions[who], line));
        const auto b = withoutEpoch(kept.send(sessions[who], line));
        if (a != b)
          qFatal("replies differ for %s: %s vs %s", line.c_str(), json(a).dump().c_str(), json(b).dump().c_str());
        for (const json& j : a)
          if (j.value("type", "") == "exec" && j.contains("contract"))
            contracts = std::max(contracts, j["contract"].get<int>());
        return a;
      };
      auto positions = [&](const std::string& who, int limit) {
        json all = json::array();
        std::string after;
        for (int page = 0; page < 1000; ++page) {
          const json r = retiring.find(
              both(who, "{\"type\":\"positions\",\"limit\":" + std::to_string(limit) + after + "}"), "positions");
          for (const json& c : r["contracts"]) all.push_back(c);
          if (!r.contains("next_after")) break;
          after = ",\"after_contract\":" + r["next_after"].dump();
        }
        return all;
      };
      Hour now = kNow;
      std::map<std::string, int> kinds;
      for (int i = 0; i < 500; ++i) {
        const Hour start = now + u(0, 6);
        const Hour end = std::min<Hour>(start + u(1, 4), kNow + 48);
        const Price price = u(100, 300) * 10'000;
        const std::string id = "o" + std::to_string(i);
        std::vector<json> r;
        switch (u(0, 11)) {
          case 0:
          case 1:
          case 2:
            if (start < end)
              r = both("provider", order(id, "sell", u(1, 2), u(1, 4), start, end, price,
                                         u(0, 1) ? ",\"terms\":{\"uptime_ppm\":990000,\"credit_per_gpu_hour\":50000}"
                                                 : std::string()));
            break;
          case 3:
          case 4:
            if (start < end)
              r = both(u(0, 1) ? "alice" : "carol", order(id, "buy", u(1, 2), u(1, 4), start, end, 3'000'000));
            break;
          case 5:
            r = both("provider", "{\"type\":\"delivery_report\",\"contract\":" + std::to_string(u(1, contracts + 1)) +
                                     ",\"start\":" + std::to_string(now) + ",\"end\":" + std::to_string(now + u(1, 3)) +
                                     ",\"usable_gpus\":" + std::to_string(u(0, 2)) + ",\"problem\":\"missing_gpus\"}");
            break;
          case 6:
            r = both("provider", "{\"type\":\"outage\",\"cluster\":" + std::to_string(u(1, 2)) +
                                     ",\"start\":" + std::to_string(now) + ",\"end\":" + std::to_string(now + u(1, 3)) +
                                     ",\"lost_gpus\":" + std::to_string(u(1, 4)) + "}");
            break;
          case 7: positions(names[static_cast<std::size_t>(u(0, 2))], u(1, 6)); break;
          case 8:
          case 9:
            if (now < kNow + 44) {
              retiring.clock(now + 1);
              kept.clock(++now);
            }
            break;
          default: break;
        }
        for (const json& j : r) ++kinds[j.value("type", "") + "/" + j.value("code", "")];
        if (i % 100 == 99) snapshots.emplace_back(retiring.journal().lastSeq(), retiring.core().snapshot());
      }
      // Reports named contracts already settled (and retired in one core).
      QVERIFY2(kinds["error/hours_already_settled"] > 0,
               qPrintable(QString::number(kinds["error/hours_already_settled"])));
      for (const std::string& name : names) {
        positionsBefore[name] = positions(name, 500);
        QVERIFY(positionsBefore[name].size() > 10);
        QCOMPARE(positions(name, 3), positionsBefore[name]);
      }
      // Retired: gone from the retiring core's engine, kept by the other.
      int retired = 0;
      for (ContractId id = 1; id <= static_cast<ContractId>(contracts); ++id) {
        if (!retiring.core().engine().contract(id)) {
          ++retired;
          QVERIFY(kept.core().engine().contract(id));
        }
      }
      QVERIFY2(retired > 30 && retired < contracts, qPrintable(QString("%1 of %2").arg(retired).arg(contracts)));
      digest = retiring.core().stateDigest();
      QCOMPARE(digest, kept.core().stateDigest());
    }
    // After a restart, by full replay and from each snapshot with its tail, alike.
    auto check = [&](Driver& again) {
      QCOMPARE(again.core().stateDigest(), digest);
      for (const std::string& name : names) {
        const json r =
            again.find(again.send(again.connect(name), "{\"type\":\"positions\",\"limit\":500}"), "positions");
        QCOMPARE(r["contracts"], positionsBefore[name]);
      }
    };
    {
      Driver again(marketConfig(), retiringPath);
      check(again);
    }
    QCOMPARE(snapshots.size(), std::size_t(5));
    for (const auto& [seq, bytes] : snapshots) {
      const ExchangeCore::SnapshotStart from{seq, bytes};
      Driver tail(marketConfig(), retiringPath, &from);
      QVERIFY(tail.core().startedFromSnapshot());
      check(tail);
    }
  }

  // order_history pages: whole, then in pages of 3 (next_after the last id of a page), and a
  // page beyond the largest refused. Only the account's own finished orders are listed.
  void orderHistoryComesInPages() {
    Driver d;
    const SessionId alice = d.connect("alice");
    const SessionId carol = d.connect("carol");
    for (int i = 0; i < 8; ++i) {
      d.send(alice, order("a" + std::to_string(i), "buy", 1, 1, kNow + 1, kNow + 2, kDollar));
      d.send(alice, "{\"type\":\"cancel\",\"cl_ord_id\":\"a" + std::to_string(i) + "\"}");
    }
    d.send(alice, order("still", "buy", 1, 1, kNow + 1, kNow + 2, kDollar));
    d.send(carol, order("c0", "buy", 1, 1, kNow + 1, kNow + 2, kDollar));
    d.send(carol, "{\"type\":\"cancel\",\"cl_ord_id\":\"c0\"}");
    const json whole = d.find(d.send(alice, "{\"type\":\"order_history\"}"), "order_history");
    QCOMPARE(whole["orders"].size(), std::size_t(8));
    QVERIFY(!whole.contains("next_after"));
    for (const json& o : whole["orders"]) QCOMPARE(o["status"].get<std::string>(), std::string("cancelled"));
    json paged = json::array();
    std::string after;
    std::vector<std::size_t> sizes;
    for (int page = 0; page < 5; ++page) {
      const json r = d.find(d.send(alice, "{\"type\":\"order_history\",\"limit\":3" + after + "}"), "order_history");
      sizes.push_back(r["orders"].size());
      for (const json& o : r["orders"]) paged.push_back(o);
      if (!r.contains("next_after")) break;
      QCOMPARE(r["next_after"], r["orders"].back()["order_id"]);
      after = ",\"after_order\":" + r["next_after"].dump();
    }
    QCOMPARE(sizes, (std::vector<std::size_t>{3, 3, 2}));
    QCOMPARE(paged, whole["orders"]);
    const json refused = d.find(d.send(alice, "{\"type\":\"order_history\",\"limit\":100000}"), "error");
    QCOMPARE(refused["code"].get<std::string>(), std::string("bad_field"));
  }

  void snapshotOfAnotherJournalIsRefused() {
    // Two journals with the same entries (a script run twice): a snapshot of one is not
    // applied to the other, whose history it cannot vouch for. Seen failing with the journal
    // id left out of the check in ExchangeCore::loadSnapshot.
    QTemporaryDir dir;
    std::string bytes;
    std::uint64_t seq = 0;
    for (const char* name : {"a.db", "b.db"}) {
      Driver d(marketConfig(), dir.filePath(name).toStdString());
      d.send(d.connect("provider"), order("s1", "sell", 1, 2, kNow + 1, kNow + 3, 2 * kDollar));
      if (bytes.empty()) {
        bytes = d.core().snapshot();
        seq = d.journal().lastSeq();
      }
    }
    const ExchangeCore::SnapshotStart from{seq, bytes};
    {
      Driver same(marketConfig(), dir.filePath("a.db").toStdString(), &from);
      QVERIFY(same.core().startedFromSnapshot());
    }
    auto journal = openJournal(dir.filePath("b.db").toStdString());
    QVERIFY_THROWS_EXCEPTION(SnapshotCorrupt, ExchangeCore(marketConfig(), *journal, &from));
  }
};

QTEST_GUILESS_MAIN(TestExchangeCore)
#include "test_exchange_core.moc"
