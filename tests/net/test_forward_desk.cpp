// The exchange's forward desk: message parsing (every bad field named), replies routed to the
// right accounts, market data, and a journal that rebuilds the same books and positions.
#include "core/net/ForwardDealer.h"
#include "core/net/ForwardDesk.h"

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using nlohmann::json;

namespace {
constexpr Hour kNow = 1000;
const Hour kWeek = nextWeekStart(kNow);

ForwardRequest parseOk(const json& j) {
  auto r = parseForwardRequest(j, j.at("type").get<std::string>());
  if (auto* f = std::get_if<std::pair<std::string, std::string>>(&r))
    qFatal("%s: %s", f->first.c_str(), f->second.c_str());
  return std::get<ForwardRequest>(r);
}

json order(const std::string& cl, const std::string& side, std::int64_t gpuHours, Price price) {
  return json{{"type", "forward_order"}, {"cl_ord_id", cl},       {"side", side},  {"accelerator", "H100"},
              {"week_start", kWeek},     {"gpu_hours", gpuHours}, {"price", price}};
}

std::vector<json> linesTo(const ForwardDeskOutput& out, AccountId a) {
  std::vector<json> v;
  for (const auto& [who, line] : out.toAccount)
    if (who == a) v.push_back(json::parse(line));
  return v;
}
}  // namespace

class TestForwardDesk : public QObject {
  Q_OBJECT

 private slots:
  void dealerQuotesWidenAndRiseWithTheWeeks() {
    ForwardDealerConfig c;  // 1.5% half spread, +0.5% a week
    const auto q = dealerQuotes(c, 2'000'000, kNow);
    QCOMPARE(q.size(), std::size_t(4));
    QCOMPARE(q[0].weekStart, kWeek);
    QCOMPARE(q[0].bid, Price(1'970'000));
    QCOMPARE(q[0].ask, Price(2'030'000));
    QCOMPARE(q[1].weekStart, kWeek + kHoursPerWeek);
    QVERIFY(q[1].bid < q[1].ask);
    QVERIFY(q[3].ask - q[3].bid > q[0].ask - q[0].bid);
    QVERIFY((q[3].ask + q[3].bid) > (q[0].ask + q[0].bid));
    // A tiny index never quotes a zero or crossed price.
    const auto tiny = dealerQuotes(c, 1, kNow);
    for (const auto& x : tiny) QVERIFY(x.bid >= 1 && x.ask > x.bid);
  }

  void badMessagesNameTheirField() {
    auto code = [](json j) {
      auto r = parseForwardRequest(j, j.at("type").get<std::string>());
      auto* f = std::get_if<std::pair<std::string, std::string>>(&r);
      return f ? f->first + ": " + f->second : std::string("ok");
    };
    QCOMPARE(code(order("a", "buy", 10, 2'000'000)), std::string("ok"));
    json j = order("a", "hold", 10, 2'000'000);
    QCOMPARE(code(j), std::string("bad_field: field 'side' must be buy or sell"));
    j = order("a", "buy", 10, 2'000'000);
    j["accelerator"] = "Z80";
    QCOMPARE(code(j), std::string("bad_field: unknown accelerator 'Z80'"));
    j = order("a", "buy", -5, 2'000'000);
    QVERIFY(code(j).rfind("bad_field: field 'gpu_hours'", 0) == 0);
    j = order("a", "buy", 10, 2'000'000);
    j["colour"] = "red";
    QCOMPARE(code(j), std::string("unknown_field: unknown field 'colour'"));
    QCOMPARE(code(json{{"type", "forward_cancel"}}), std::string("bad_field: field 'order_id' is required"));
    QVERIFY(isForwardType("forward_positions"));
    QVERIFY(!isForwardType("new_order"));
  }

  void tradesReachBothSidesAndTheJournalRebuildsTheSameState() {
    SettlementLedger ledger;
    AccountDirectory accounts;
    const AccountId alice = accounts.intern("alice"), bob = accounts.intern("bob");
    for (AccountId a : {alice, bob})
      QVERIFY(!ledger.post({0, Book::External}, {a, Book::Cash}, 50'000'000'000, "deposit"));
    ForwardDesk desk(ledger, accounts);
    std::vector<std::string> journal;
    ForwardDeskOutput out;
    auto send = [&](AccountId a, const json& j, std::uint64_t req) {
      out.clear();
      desk.handle(a, parseOk(j), req, kNow, ledger.balance({a, Book::Cash}), out);
      if (out.journal) journal.push_back(*out.journal);
    };
    send(bob, order("s1", "sell", 1'000, 2'000'000), 1);
    auto bobLines = linesTo(out, bob);
    QCOMPARE(bobLines.at(0)["type"].get<std::string>(), std::string("forward_accepted"));
    QCOMPARE(bobLines.at(0)["req"].get<int>(), 1);
    QCOMPARE(out.marketData.size(), std::size_t(1));
    QCOMPARE(json::parse(out.marketData[0])["asks"].size(), std::size_t(1));

    send(alice, order("b1", "buy", 400, 2'100'000), 2);
    const auto aliceLines = linesTo(out, alice);
    bobLines = linesTo(out, bob);
    QCOMPARE(aliceLines.size(), std::size_t(2));  // accepted, fill
    QCOMPARE(aliceLines[1]["type"].get<std::string>(), std::string("forward_fill"));
    QCOMPARE(aliceLines[1]["price"].get<Price>(), Price(2'000'000));
    QCOMPARE(bobLines.size(), std::size_t(1));
    QCOMPARE(bobLines[0]["cl_ord_id"].get<std::string>(), std::string("s1"));
    QCOMPARE(bobLines[0]["leaves_gpu_hours"].get<int>(), 600);
    QCOMPARE(json::parse(out.marketData.at(0))["type"].get<std::string>(), std::string("md_forward_trade"));

    send(bob, order("s1", "sell", 5, 2'000'000), 3);  // s1 is still working
    QCOMPARE(linesTo(out, bob).at(0)["code"].get<std::string>(), std::string("duplicate_cl_ord_id"));
    QVERIFY(!out.journal);
    send(alice, json{{"type", "forward_cancel"}, {"order_id", 1}}, 4);  // bob's order
    QCOMPARE(linesTo(out, alice).at(0)["code"].get<std::string>(), std::string("unknown_order"));
    send(alice, json{{"type", "forward_positions"}}, 5);
    const auto positions = linesTo(out, alice).at(0)["positions"];
    QCOMPARE(positions.size(), std::size_t(1));
    QCOMPARE(positions[0]["side"].get<std::string>(), std::string("long"));
    QCOMPARE(journal.size(), std::size_t(2));

    // A fresh ledger and desk, replaying the journal against the same deposits.
    SettlementLedger ledger2;
    AccountDirectory accounts2;
    for (const char* n : {"alice", "bob"})
      QVERIFY(!ledger2.post({0, Book::External}, {accounts2.intern(n), Book::Cash}, 50'000'000'000, "deposit"));
    ForwardDesk again(ledger2, accounts2);
    for (const auto& line : journal) {
      const json e = json::parse(line);
      const AccountId a = accounts2.intern(e["account"].get<std::string>());
      again.replay(e, kNow, ledger2.balance({a, Book::Cash}));
    }
    QCOMPARE(again.booksJson(), desk.booksJson());
    for (AccountId a : {alice, bob}) {
      QCOMPARE(ledger2.balance({a, Book::Margin}), ledger.balance({a, Book::Margin}));
      QCOMPARE(again.marginHeld(a), desk.marginHeld(a));
    }
    // The next order id continues after the replayed ones.
    out.clear();
    again.handle(alice, parseOk(order("b2", "buy", 10, 1'000'000)), std::nullopt, kNow,
                 ledger2.balance({alice, Book::Cash}), out);
    QCOMPARE(linesTo(out, alice).at(0)["order_id"].get<int>(), 3);
  }

  void settlementIsAnnouncedToBothSides() {
    SettlementLedger ledger;
    AccountDirectory accounts;
    const AccountId alice = accounts.intern("alice"), bob = accounts.intern("bob");
    for (AccountId a : {alice, bob})
      QVERIFY(!ledger.post({0, Book::External}, {a, Book::Cash}, 50'000'000'000, "deposit"));
    ForwardDesk desk(ledger, accounts);
    ForwardDeskOutput out;
    desk.handle(bob, parseOk(order("s", "sell", 100, 2'000'000)), std::nullopt, kNow, ledger.balance({bob, Book::Cash}),
                out);
    desk.handle(alice, parseOk(order("b", "buy", 100, 2'000'000)), std::nullopt, kNow,
                ledger.balance({alice, Book::Cash}), out);
    out.clear();
    desk.advance(kWeek + kHoursPerWeek, {{Accelerator::H100, 2'500'000}}, out);
    QVERIFY(!linesTo(out, alice).empty());
    QVERIFY(!linesTo(out, bob).empty());
    QCOMPARE(json::parse(out.marketData.back())["type"].get<std::string>(), std::string("md_forward_settlement"));
    QCOMPARE(ledger.balance({alice, Book::Cash}), Money(50'000'000'000 + 50'000'000));  // 0.50 x 100
  }
};

QTEST_GUILESS_MAIN(TestForwardDesk)
#include "test_forward_desk.moc"
