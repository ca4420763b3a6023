// Options on the index through the exchange: the chain, option orders over a real socket, the
// premium and the writer's margin on the ledger, replies to the parties only, refusals of bad
// input, a restart that replays the option journal to the same positions, settlement at the
// end of the delivery period, and a snapshot that restores the same state (the state digest)
// as the full replay.
#include "LedgerAudit.h"
#include "NetTestSupport.h"
#include "core/net/ExchangeCore.h"
#include "core/net/ExchangeServer.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

// The first listed month after kNow (2038-06-13): July 2038.
const indexoptions::DeliveryPeriod kJuly = indexoptions::listedPeriods(kNow).front();

std::string optionOrder(const std::string& cl, const std::string& side, const std::string& kind, Price strike,
                        std::int64_t gpuHours, Price premium, Hour start = kJuly.start) {
  return json{{"type", "option_order"}, {"cl_ord_id", cl},   {"side", side},   {"accelerator", "H100"},
              {"kind", kind},           {"period", "month"}, {"start", start}, {"strike", strike},
              {"gpu_hours", gpuHours},  {"premium", premium}}
      .dump();
}

// Physical trades that set the H100 next-day index at $3.00, then the clock moves an hour so
// that it is published (and the options have a curve to margin writers on).
template <typename Send, typename Clock>
void publishIndexAtThreeDollars(Send send, Clock clock) {
  send("provider", order("ask", "sell", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
  send("carol", order("lift", "buy", 1, 8, kNow + 1, kNow + 2, 3 * kMicrosPerDollar));
  clock(kNow + 1);
}

std::unique_ptr<Journal> openJournal(const std::string& path) {
  auto r = Journal::open(path, false);
  if (auto* e = std::get_if<std::string>(&r)) qFatal("%s", e->c_str());
  return std::move(std::get<std::unique_ptr<Journal>>(r));
}

}  // namespace

class TestExchangeOptions : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

 private slots:
  void chainOrdersAndPositionsOverASocketSurviveARestart() {
    ExchangeConfig config = marketConfig();
    config.dbPath = (dir_.path() + "/options.db").toStdString();
    json alicePositions, carolOrders;
    Money aliceCash = 0;
    {
      ExchangeServer server(config);
      server.start();
      LineClient alice(server.port()), carol(server.port()), bob(server.port()), provider(server.port());
      QVERIFY(alice.logon("alice") && carol.logon("carol") && bob.logon("bob") && provider.logon("provider"));
      std::map<std::string, LineClient*> clients{{"alice", &alice}, {"carol", &carol}, {"provider", &provider}};
      publishIndexAtThreeDollars([&](const std::string& who, const std::string& line) { clients.at(who)->send(line); },
                                 [&](Hour h) {
                                   QVERIFY(carol.exec("lift"));
                                   server.inject(ClockAdvance{h}, "");
                                 });
      // The chain: every listed period, and a ladder of strikes around the $3.00 forward with
      // reference values and deltas.
      json chain;
      QVERIFY(eventually([&] {
        alice.send(R"({"type":"option_chain","accelerator":"H100"})");
        auto c = alice.until("option_chain");
        if (!c || (*c)["rows"].empty() || (*c)["rows"][0]["value"].is_null()) return false;
        chain = *c;
        return true;
      }));
      QCOMPARE(chain["periods"].size(), std::size_t(23));  // 12 months, 8 quarters, 3 years
      QCOMPARE(chain["periods"][0]["name"].get<std::string>(), std::string("2038-07"));
      QCOMPARE(chain["periods"][0]["forward"].get<Price>(), Price(3'000'000));
      json atm;
      for (const json& row : chain["rows"])
        if (row["start"] == kJuly.start && row["kind"] == "call" && row["strike"] == 3'000'000) atm = row;
      QVERIFY(!atm.is_null());
      QVERIFY(atm["delta"].get<double>() > 0.5 && atm["delta"].get<double>() < 0.6);
      const Price premium = atm["value"].get<Price>();
      QVERIFY(premium > 100'000 && premium < 500'000);

      // Alice writes 100 GPU-hours of the July $3.00 call at the reference value; Carol buys.
      alice.send(optionOrder("w1", "sell", "call", 3'000'000, 100, premium));
      const auto accepted = alice.until("option_accepted");
      QVERIFY(accepted);
      QVERIFY((*accepted)["held"].get<Money>() > 0);
      carol.send(optionOrder("b1", "buy", "call", 3'000'000, 60, premium));
      const auto carolFill = carol.until("option_fill");
      QVERIFY(carolFill);
      QCOMPARE((*carolFill)["premium"].get<Price>(), premium);
      QCOMPARE((*alice.until("option_fill"))["leaves_gpu_hours"].get<int>(), 40);
      QVERIFY(!bob.until("option_fill", std::chrono::milliseconds(300)));  // bob is no party
      // Refusals with a reason that change nothing.
      alice.send(optionOrder("bad1", "sell", "call", 3'005'000, 10, premium));
      QCOMPARE((*alice.until("option_rejected"))["code"].get<std::string>(), std::string("invalid_order"));
      alice.send(optionOrder("bad2", "sell", "call", 3'000'000, 10, premium, kJuly.start + 24));
      QCOMPARE((*alice.until("error"))["code"].get<std::string>(), std::string("bad_field"));
      alice.send(R"({"type":"option_chain","accelerator":"H100","extra":1})");
      QCOMPARE((*alice.until("error"))["code"].get<std::string>(), std::string("unknown_field"));
      bob.send(R"({"type":"option_cancel","order_id":1})");
      QCOMPARE((*bob.until("error"))["code"].get<std::string>(), std::string("unknown_order"));

      alice.send(R"({"type":"option_positions"})");
      alicePositions = (*alice.until("option_positions"))["positions"];
      QCOMPARE(alicePositions.size(), std::size_t(1));
      QCOMPARE(alicePositions[0]["side"].get<std::string>(), std::string("short"));
      QVERIFY(alicePositions[0]["margin"].get<Money>() > 60 * premium);
      carol.send(R"({"type":"option_orders"})");
      carolOrders = (*carol.until("option_orders"))["orders"];
      alice.send(R"({"type":"balance"})");
      aliceCash = (*alice.until("balance"))["cash"].get<Money>();
      server.stop();
    }
    ExchangeServer again(config);
    again.start();
    QVERIFY(again.replayedEntries() > 0);
    LineClient alice(again.port());
    QVERIFY(alice.logon("alice"));
    alice.send(R"({"type":"option_positions"})");
    QCOMPARE((*alice.until("option_positions"))["positions"], alicePositions);
    alice.send(R"({"type":"balance"})");
    QCOMPARE((*alice.until("balance"))["cash"].get<Money>(), aliceCash);
    alice.send(R"({"type":"option_orders"})");
    QCOMPARE((*alice.until("option_orders"))["orders"].size(), std::size_t(1));  // the 40 left
  }

  // A buy and a sell of one series net to one position on each side, margined on the net: Carol
  // buys 100 of Alice's July call, then writes 40 of it back to Alice. Both then hold one open
  // position of 60 (Carol long, Alice short), Alice's margin is her margin for 60 and the 40
  // she bought back returned her margin for them, as both clients' option_positions say.
  // Fails if OptionPositions::open does not net (net() not called: each holds a long and a
  // short, Alice's margin stays on 100 and a 40 of her own), or if the margin of the netted
  // part stays posted (shrink() not returning it).
  void aBuyAndASellOfOneSeriesNetToOnePosition() {
    ExchangeConfig config = marketConfig();
    config.dbPath = (dir_.path() + "/netting.db").toStdString();
    ExchangeServer server(config);
    server.start();
    LineClient alice(server.port()), carol(server.port()), provider(server.port());
    QVERIFY(alice.logon("alice") && carol.logon("carol") && provider.logon("provider"));
    std::map<std::string, LineClient*> clients{{"alice", &alice}, {"carol", &carol}, {"provider", &provider}};
    publishIndexAtThreeDollars([&](const std::string& who, const std::string& line) { clients.at(who)->send(line); },
                               [&](Hour h) {
                                 QVERIFY(carol.exec("lift"));
                                 server.inject(ClockAdvance{h}, "");
                               });
    QVERIFY(eventually([&] {
      alice.send(R"({"type":"option_chain","accelerator":"H100"})");
      auto c = alice.until("option_chain");
      return c && !(*c)["periods"].empty() && !(*c)["periods"][0]["forward"].is_null();
    }));
    const Price premium = 200'000;
    auto positions = [](LineClient& c) {
      c.send(R"({"type":"option_positions"})");
      return (*c.until("option_positions"))["positions"];
    };
    alice.send(optionOrder("w1", "sell", "call", 3'000'000, 100, premium));
    QVERIFY(alice.until("option_accepted"));
    carol.send(optionOrder("b1", "buy", "call", 3'000'000, 100, premium));
    QVERIFY(carol.until("option_fill"));
    QVERIFY(alice.until("option_fill"));
    const json before = positions(alice);
    QCOMPARE(before.size(), std::size_t(1));
    const Money margin100 = before[0]["margin"].get<Money>();
    QVERIFY(margin100 > 0);
    alice.send(R"({"type":"balance"})");
    const Money aliceCashBefore = (*alice.until("balance"))["cash"].get<Money>();

    carol.send(optionOrder("w2", "sell", "call", 3'000'000, 40, premium));
    QVERIFY(carol.until("option_accepted"));
    alice.send(optionOrder("b2", "buy", "call", 3'000'000, 40, premium));
    QVERIFY(alice.until("option_fill"));
    QVERIFY(carol.until("option_fill"));

    auto open = [](const json& all) {
      json out = json::array();
      for (const json& p : all)
        if (p["status"] == "open") out.push_back(p);
      return out;
    };
    const json aliceOpen = open(positions(alice)), carolOpen = open(positions(carol));
    QCOMPARE(aliceOpen.size(), std::size_t(1));
    QCOMPARE(aliceOpen[0]["side"].get<std::string>(), std::string("short"));
    QCOMPARE(aliceOpen[0]["gpu_hours"].get<std::int64_t>(), std::int64_t(60));
    QCOMPARE(aliceOpen[0]["margin"].get<Money>(), margin100 - margin100 * 40 / 100);
    QCOMPARE(carolOpen.size(), std::size_t(1));
    QCOMPARE(carolOpen[0]["side"].get<std::string>(), std::string("long"));
    QCOMPARE(carolOpen[0]["gpu_hours"].get<std::int64_t>(), std::int64_t(60));
    QCOMPARE(carolOpen[0]["position"], aliceOpen[0]["position"]);
    // Alice paid 40 x premium and got back her margin for 40.
    alice.send(R"({"type":"balance"})");
    QCOMPARE((*alice.until("balance"))["cash"].get<Money>(), aliceCashBefore - 40 * premium + margin100 * 40 / 100);
    server.stop();
  }

  void settlesAtTheEndOfThePeriodAndSnapshotsAgreeWithTheReplay() {
    const std::string path = (dir_.path() + "/settle.db").toStdString();
    std::vector<std::pair<std::uint64_t, std::string>> snapshots;
    std::uint64_t digest = 0;
    Money carolBefore = 0, aliceBefore = 0;
    {
      auto journal = openJournal(path);
      ExchangeCore core(marketConfig(), *journal);
      std::map<std::string, SessionId> sessions;
      SessionId next = 1;
      auto send = [&](const std::string& who, const std::string& line) {
        if (!sessions.count(who)) {
          sessions[who] = next++;
          core.sessionOpened(sessions[who]);
          Outbox out;
          auto logon = std::get<ClientMessage>(
              parseClientMessage("{\"type\":\"logon\",\"account\":\"" + who + "\",\"key\":\"" + who + "-key\"}"));
          checkLogonKey(marketConfig(), logon);
          core.handle(sessions[who], logon, out);
          core.finishBatch(out);
        }
        Outbox out;
        auto parsed = parseClientMessage(line);
        core.handle(sessions[who], std::get<ClientMessage>(parsed), out);
        core.finishBatch(out);
        journal->commit();
        return out.toSession[sessions[who]];
      };
      auto clock = [&](Hour h) {
        Outbox out;
        core.inject(ClockAdvance{h}, "", out);
        core.finishBatch(out);
        journal->commit();
      };
      publishIndexAtThreeDollars(send, clock);
      // Carol buys 100 GPU-hours of the July $2.50 call from Alice at $0.60.
      const std::string written = send("alice", optionOrder("w", "sell", "call", 2'500'000, 100, 600'000));
      QVERIFY2(written.find("option_accepted") != std::string::npos, written.c_str());
      snapshots.emplace_back(journal->lastSeq(), core.snapshot());
      QVERIFY(send("carol", optionOrder("b", "buy", "call", 2'500'000, 100, 600'000)).find("option_fill") !=
              std::string::npos);
      send("carol", optionOrder("b2", "buy", "put", 2'500'000, 10, 10'000));  // rests
      snapshots.emplace_back(journal->lastSeq(), core.snapshot());
      carolBefore = core.cash(*core.accounts().find("carol"));
      // Alice's margin is hers too: it returns to her cash at the settlement.
      aliceBefore = core.cash(*core.accounts().find("alice")) +
                    core.ledger().balance({*core.accounts().find("alice"), Book::Margin});
      // The index stays at $3.00 (carried) through July: the call pays $0.50 x 100 = $50.
      clock(kJuly.end);
      const AccountId carol = *core.accounts().find("carol"), alice = *core.accounts().find("alice");
      QCOMPARE(core.ledger().balance({alice, Book::Margin}), Money(0));
      // (Carol's resting put left when July began; a hold is no posting, so her cash moved only
      // by the payoff.)
      QCOMPARE(core.cash(carol) - carolBefore, Money(50 * kMicrosPerDollar));
      QCOMPARE(core.cash(alice) - aliceBefore, Money(-50 * kMicrosPerDollar));
      const auto audit = tessera::testing::auditLedger(core.ledger());
      QVERIFY2(audit.clean(), audit.report().c_str());
      QVERIFY(audit.inBook(Book::Margin) > 0);
      QVERIFY(audit.outOfBook(Book::Margin) == audit.inBook(Book::Margin));
      snapshots.emplace_back(journal->lastSeq(), core.snapshot());
      digest = core.stateDigest();
    }
    {
      auto journal = openJournal(path);
      ExchangeCore full(marketConfig(), *journal);
      QCOMPARE(full.stateDigest(), digest);
    }
    for (const auto& [seq, bytes] : snapshots) {
      auto journal = openJournal(path);
      const ExchangeCore::SnapshotStart from{seq, bytes};
      ExchangeCore tail(marketConfig(), *journal, &from);
      QVERIFY(tail.startedFromSnapshot());
      QVERIFY2(tail.stateDigest() == digest, qPrintable(QString("snapshot after entry %1").arg(seq)));
    }
  }
};

QTEST_GUILESS_MAIN(TestExchangeOptions)
#include "test_exchange_options.moc"
