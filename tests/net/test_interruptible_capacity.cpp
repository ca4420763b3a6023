// Interruptible capacity through the exchange's protocol: an interruptible cluster is its own
// book (a firm-only buyer never fills there, one that accepts interruptible capacity does), its
// grants count on the physical cluster, the provider reclaims GPU-hours with the notice and the
// buyer is refunded pro rata through the ledger, refusals change nothing, and the journal's
// replay and snapshots restore it.
//
// Mutations seen failing (each named on the test that catches it):
// - ClusterConstraints::matches without its interruptible check: a firm-only constraint bid
//   lands on the interruptible book (firmOnlyBuyersNeverFillOnInterruptibleCapacity).
// - validateNewOrder without the capacity_mismatch check: a firm order naming the interruptible
//   cluster trades there (firmOnlyBuyersNeverFillOnInterruptibleCapacity).
// - Inventory::grant counting on the grant's own cluster instead of `countedOn`: the physical
//   cluster is sold twice (interruptibleGrantsCountOnThePhysicalCluster).
// - SettlementDesk::reclaim's notice check against the clock alone (no noticeHours):
//   reclaimsAreRefusedWithoutNoticeByOthersAndOnFirmContracts.
// - ContractSettlement::reclaim refunding half the reclaimed GPU-hours: the buyer's cash, computed
//   from the contract outside the ledger, no longer matches (aReclaimRefundsTheBuyerProRata,
//   reclaimsAreRefused...); settleHours owing the reclaimed GPUs again (owed without the
//   reclaimed ones): the provider is paid from escrow already refunded and the ledger refuses it
//   (aReclaimRefundsTheBuyerProRata).
// - ContractSettlement::save/load without the reclaimed hours, and registerReclaimEntry not
//   called: the snapshot's and the replay's state differ from the live one
//   (replayAndSnapshotsRestoreReclaims).
// - onReclaimRates listing firm clusters too (no interruptible() filter), or dividing by the
//   contracts' hours instead of their GPU-hours: reclaimRatesArePublishedPerInterruptibleCluster.
// - MarketState::applyNonOrder ignoring CapacityReclaim (the hours stay in the buyer's
//   holding): Carol's sell-back of reclaimed hours is accepted (reclaimedHoursLeaveTheBuyersHolding).
// - ExchangeCore::takeBackReclaimed without cancelling the buyer's asks: the engine refuses the
//   reclaim and the exchange throws (reclaimedHoursLeaveTheBuyersHolding).
// - SettlementDesk::reclaim without its "resold" check: the reclaim of hours Carol sold to Bob
//   is refunded and then refused by the engine, and the exchange throws
//   (reclaimedHoursLeaveTheBuyersHolding).
#include "LedgerAudit.h"
#include "NetTestSupport.h"
#include "core/engine/EventJson.h"
#include "core/net/ExchangeCore.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

constexpr ClusterId kSpot = 3;
constexpr Hour kNotice = 3;
constexpr Price kSpotPrice = 1'500'000;  // $1.50

// marketConfig() with cluster 1's 64 GPUs split: 32 granted firm, 32 granted on its
// interruptible book (cluster 3, three hours' notice).
ExchangeConfig interruptibleConfig() {
  ExchangeConfig c = marketConfig();
  Cluster spot = c.clusters.front();
  spot.id = kSpot;
  spot.name = "test-h100-interruptible";
  spot.interruptibleOf = 1;
  spot.noticeHours = kNotice;
  c.clusters.push_back(spot);
  c.grants = {GrantConfig{"provider", "test-h100", 32, kNow, kNow + 48},
              GrantConfig{"provider", "test-h100-interruptible", 32, kNow, kNow + 48},
              GrantConfig{"provider", "test-h200", 16, kNow, kNow + 48}};
  return c;
}

std::unique_ptr<Journal> openJournal(const std::string& path) {
  auto r = Journal::open(path, false);
  if (auto* e = std::get_if<std::string>(&r)) qFatal("%s", e->c_str());
  return std::move(std::get<std::unique_ptr<Journal>>(r));
}

// An ExchangeCore driven through parsed protocol lines, one session per account.
struct Market {
  ExchangeConfig config = interruptibleConfig();
  std::unique_ptr<Journal> journal;
  std::unique_ptr<ExchangeCore> core;
  std::map<std::string, SessionId> sessions;
  SessionId next = 1;

  explicit Market(const std::string& path) : journal(openJournal(path)) {
    core = std::make_unique<ExchangeCore>(config, *journal);
  }
  std::string send(const std::string& who, const std::string& line) {
    if (!sessions.count(who)) {
      sessions[who] = next++;
      core->sessionOpened(sessions[who]);
      Outbox out;
      auto logon = std::get<ClientMessage>(
          parseClientMessage("{\"type\":\"logon\",\"account\":\"" + who + "\",\"key\":\"" + who + "-key\"}"));
      checkLogonKey(config, logon);
      core->handle(sessions[who], logon, out);
      core->finishBatch(out);
    }
    Outbox out;
    auto parsed = parseClientMessage(line);
    if (auto* e = std::get_if<ParseError>(&parsed)) return "parse error: " + e->code + " " + e->reason;
    core->handle(sessions[who], std::get<ClientMessage>(parsed), out);
    core->finishBatch(out);
    journal->commit();
    return out.toSession[sessions[who]];
  }
  void clock(Hour h) {
    Outbox out;
    core->inject(ClockAdvance{h}, "", out);
    core->finishBatch(out);
    journal->commit();
  }
  AccountId id(const std::string& who) const { return *core->accounts().find(who); }
  Money cash(const std::string& who) const { return core->cash(id(who)); }
  // The first line of `reply` of this type, parsed (null if none).
  static json line(const std::string& reply, const std::string& type) {
    std::size_t at = 0;
    while (at < reply.size()) {
      const std::size_t end = reply.find('\n', at);
      const json j = json::parse(reply.substr(at, end - at), nullptr, false);
      if (!j.is_discarded() && j.value("type", "") == type) return j;
      if (end == std::string::npos) break;
      at = end + 1;
    }
    return nullptr;
  }
  json positions(const std::string& who) {
    return line(send(who, R"({"type":"positions"})"), "positions")["contracts"];
  }
};

// An all-or-none H100 bid by constraints, 8 GPUs for hours [kNow+2, kNow+6).
std::string constraintBid(const std::string& cl, bool interruptible, Price limit) {
  json j{{"type", "new_order"},   {"cl_ord_id", cl}, {"side", "buy"},
         {"fill", "all_or_none"}, {"gpus", 8},       {"start", kNow + 2},
         {"end", kNow + 6},       {"limit", limit},  {"constraints", {{"accelerators", {"H100"}}}}};
  if (interruptible) {
    j["interruptible"] = true;
    j["checkpoint_hours"] = 1;
  }
  return j.dump();
}

// Whether the engine's only event is a rejection for `reason`.
bool rejectedFor(const std::vector<Event>& ev, RejectReason reason) {
  const auto* r = ev.size() == 1 ? std::get_if<OrderRejected>(&ev[0]) : nullptr;
  return r && r->reason == reason;
}

std::string reclaim(ContractId k, Hour start, Hour end, GpuCount gpus) {
  return json{{"type", "reclaim"}, {"contract", k}, {"start", start}, {"end", end}, {"gpus", gpus}}.dump();
}

// The provider lists 8 interruptible GPUs for [kNow+2, kNow+6) at $1.50 and Carol, accepting
// interruptible capacity, buys them all-or-none: contract 1.
void carolBuysInterruptible(Market& m) {
  const std::string ask =
      m.send("provider", order("spot", "sell", kSpot, 8, kNow + 2, kNow + 6, kSpotPrice, ",\"interruptible\":true"));
  QVERIFY2(Market::line(ask, "exec").value("state", "") == "accepted", ask.c_str());
  const std::string filled = m.send("carol", constraintBid("c1", true, 2 * kMicrosPerDollar));
  QVERIFY2(filled.find("\"trade\":") != std::string::npos, filled.c_str());
}

}  // namespace

class TestInterruptibleCapacity : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  int db_ = 0;
  std::string path() { return (dir_.path() + "/m" + QString::number(++db_) + ".db").toStdString(); }

 private slots:
  void firmOnlyBuyersNeverFillOnInterruptibleCapacity() {
    Market m(path());
    QVERIFY(
        !m.send("provider", order("spot", "sell", kSpot, 8, kNow + 2, kNow + 6, kSpotPrice, ",\"interruptible\":true"))
             .empty());
    // Alice accepts only firm capacity: her constraint bid rests, though the interruptible ask
    // is below her limit.
    const std::string firm = m.send("alice", constraintBid("a1", false, 2 * kMicrosPerDollar));
    QVERIFY2(firm.find("\"trade\":") == std::string::npos, firm.c_str());
    // Naming the interruptible cluster without accepting it is refused, not traded.
    const json mismatch =
        Market::line(m.send("alice", order("a2", "buy", kSpot, 8, kNow + 2, kNow + 6, kSpotPrice)), "exec");
    QCOMPARE(mismatch.value("code", ""), std::string("capacity_mismatch"));
    // An all-or-none bid on interruptible capacity declares its checkpoint interval.
    json noCheckpoint = json::parse(constraintBid("a3", true, 2 * kMicrosPerDollar));
    noCheckpoint.erase("checkpoint_hours");
    QCOMPARE(Market::line(m.send("alice", noCheckpoint.dump()), "exec").value("code", ""), std::string("unsupported"));
    QVERIFY(m.positions("alice").empty());
    // Carol accepts interruptible capacity and fills on cluster 3 at the ask's price.
    const std::string filled = m.send("carol", constraintBid("c1", true, 2 * kMicrosPerDollar));
    QVERIFY2(filled.find("\"trade\":") != std::string::npos, filled.c_str());
    const json carol = m.positions("carol");
    QCOMPARE(carol.size(), std::size_t(1));
    QCOMPARE(carol[0]["cluster"].get<ClusterId>(), kSpot);
    QCOMPARE(carol[0]["price"].get<Price>(), kSpotPrice);
    QVERIFY(m.positions("alice").empty());
  }

  void interruptibleGrantsCountOnThePhysicalCluster() {
    // 32 firm and 32 interruptible GPUs are granted on the 64-GPU cluster 1 (for every hour of
    // [kNow, kNow+48)): one more GPU on either book is refused.
    auto engine = makeMatchingEngine();
    std::vector<Event> ev;
    const ExchangeConfig c = interruptibleConfig();
    for (const Cluster& cl : c.clusters) engine->apply(cl, ev);
    engine->apply(CapacityGrant{7, 1, 32, 0, 10}, ev);
    engine->apply(CapacityGrant{7, kSpot, 32, 0, 10}, ev);
    ev.clear();
    engine->apply(CapacityGrant{8, kSpot, 1, 5, 6}, ev);
    QCOMPARE(ev.size(), std::size_t(1));
    QVERIFY(rejectedFor(ev, RejectReason::ExceedsClusterSize));
    ev.clear();
    engine->apply(CapacityGrant{8, 1, 1, 5, 6}, ev);
    QVERIFY(rejectedFor(ev, RejectReason::ExceedsClusterSize));
    // A book smaller than its firm cluster shares the firm cluster's size: with 40 firm GPUs
    // granted, 16 on a 16-GPU book fit in the 64 (fails if grants are bounded by the book's
    // own size, as MarketState::applyNonOrder did with c->totalGpus()).
    {
      auto small = makeMatchingEngine();
      ExchangeConfig sc = interruptibleConfig();
      sc.clusters.back().nodeCount = 2;
      QCOMPARE(sc.clusters.back().totalGpus(), GpuCount(16));
      for (const Cluster& cl : sc.clusters) small->apply(cl, ev);
      ev.clear();
      small->apply(CapacityGrant{7, 1, 40, 0, 10}, ev);
      small->apply(CapacityGrant{7, kSpot, 16, 0, 10}, ev);
      QCOMPARE(ev.size(), std::size_t(2));
      QVERIFY(std::holds_alternative<CapacityAdded>(ev[1]));
      ev.clear();
      small->apply(CapacityGrant{8, kSpot, 9, 0, 10}, ev);
      QVERIFY(rejectedFor(ev, RejectReason::ExceedsClusterSize));
    }
    // The clusters' own rules: the interruptible book of a firm cluster only, with a notice.
    Cluster bad = c.clusters.back();
    bad.id = 9;
    bad.interruptibleOf = kSpot;  // not firm
    ev.clear();
    engine->apply(bad, ev);
    QVERIFY(rejectedFor(ev, RejectReason::InvalidCluster));
    bad.interruptibleOf = 1;
    bad.noticeHours = 0;
    ev.clear();
    engine->apply(bad, ev);
    QVERIFY(rejectedFor(ev, RejectReason::InvalidCluster));
    // The cluster's form carries the kind (the journal and snapshots store clusters as JSON).
    const auto back = clusterFromJson(toJson(c.clusters.back()));
    QCOMPARE(std::get<Cluster>(back), c.clusters.back());
  }

  void aReclaimRefundsTheBuyerProRata() {
    Market m(path());
    const Money carolStart = m.cash("carol"), providerStart = m.cash("provider");
    carolBuysInterruptible(m);
    if (QTest::currentTestFailed()) return;
    // 8 GPUs x 4 hours at $1.50 = $48 in escrow. The provider takes back 4 GPUs for the last
    // two hours, with the notice (the clock is at kNow, notice 3 hours: kNow+4 is allowed).
    const json ack = Market::line(m.send("provider", reclaim(1, kNow + 4, kNow + 6, 4)), "reclaim_ack");
    QVERIFY(!ack.is_null());
    const Money refund = 4 * 2 * kSpotPrice;  // $12
    QCOMPARE(ack["refunded"].get<Money>(), refund);
    QCOMPARE(m.cash("carol"), carolStart - 32 * kSpotPrice + refund);
    // The contract's shape shows what was reclaimed, to both parties.
    const json expected = json::array({json{{"start", kNow + 4}, {"end", kNow + 6}, {"gpus", 4}}});
    QCOMPARE(m.positions("carol")[0]["reclaimed"], expected);
    QCOMPARE(m.positions("provider")[0]["reclaimed"], expected);
    // Delivery: the provider is paid for the 24 GPU-hours it delivered and nothing more; Carol
    // paid exactly those. Money computed from the contract, not read from the ledger's totals.
    m.clock(kNow + 7);
    const Money delivered = 24 * kSpotPrice;
    QCOMPARE(m.cash("carol"), carolStart - delivered);
    QCOMPARE(m.cash("provider"), providerStart + delivered);
    QCOMPARE(m.core->ledger().balance({m.id("carol"), Book::Escrow}), Money(0));
    const auto audit = tessera::testing::auditLedger(m.core->ledger());
    QVERIFY2(audit.clean(), audit.report().c_str());
  }

  void reclaimsAreRefusedWithoutNoticeByOthersAndOnFirmContracts() {
    Market m(path());
    carolBuysInterruptible(m);
    if (QTest::currentTestFailed()) return;
    // Alice buys firm capacity from the provider: contract 2.
    m.send("provider", order("firm", "sell", 1, 8, kNow + 2, kNow + 6, 2 * kMicrosPerDollar));
    QVERIFY(m.send("alice", order("a1", "buy", 1, 8, kNow + 2, kNow + 6, 2 * kMicrosPerDollar)).find("\"trade\":") !=
            std::string::npos);
    const Money carol = m.cash("carol"), alice = m.cash("alice");
    const std::uint64_t entries = m.journal->lastSeq();
    // The error's code, or the whole reply when there is none.
    auto refused = [&](const std::string& who, const std::string& msg) {
      const std::string reply = m.send(who, msg);
      const json e = Market::line(reply, "error");
      return e.is_object() ? e.value("code", "") : reply;
    };
    // Before the notice: the clock is at kNow and the notice 3 hours, so kNow+2 is too soon.
    QCOMPARE(refused("provider", reclaim(1, kNow + 2, kNow + 4, 4)), std::string("notice_too_short"));
    // By someone who did not sell it (its buyer, or a stranger).
    QCOMPARE(refused("carol", reclaim(1, kNow + 4, kNow + 6, 4)), std::string("unknown_contract"));
    QCOMPARE(refused("bob", reclaim(1, kNow + 4, kNow + 6, 4)), std::string("unknown_contract"));
    // On firm capacity.
    QCOMPARE(refused("provider", reclaim(2, kNow + 4, kNow + 6, 4)), std::string("not_interruptible"));
    // Outside the contract, more GPUs than it has, too long at once.
    QCOMPARE(refused("provider", reclaim(1, kNow + 5, kNow + 7, 4)), std::string("invalid_reclaim"));
    QCOMPARE(refused("provider", reclaim(1, kNow + 4, kNow + 6, 9)), std::string("invalid_reclaim"));
    QCOMPARE(refused("provider", reclaim(1, kNow + 4, kNow + 4 + 745, 1)), std::string("invalid_reclaim"));
    // Twice the same GPUs: the second finds none left.
    QVERIFY(!Market::line(m.send("provider", reclaim(1, kNow + 4, kNow + 6, 8)), "reclaim_ack").is_null());
    QCOMPARE(refused("provider", reclaim(1, kNow + 5, kNow + 6, 1)), std::string("invalid_reclaim"));
    // Refusals changed nothing: two journal entries (the accepted reclaim, and the engine input
    // taking its hours from Carol's holding) and only its refund.
    QCOMPARE(m.journal->lastSeq(), entries + 2);
    QCOMPARE(m.cash("carol"), carol + 8 * 2 * kSpotPrice);
    QCOMPARE(m.cash("alice"), alice);
  }

  void reclaimedHoursLeaveTheBuyersHolding() {
    const std::string db = path();
    std::uint64_t digest = 0;
    {
      Market m(db);
      carolBuysInterruptible(m);
      if (QTest::currentTestFailed()) return;
      const AccountId carol = m.id("carol"), provider = m.id("provider");
      // Carol offers 2 of her GPUs for hour kNow+3 back to the market.
      const std::string rest = m.send("carol", order("c-ask", "sell", kSpot, 2, kNow + 3, kNow + 4,
                                                     3 * kMicrosPerDollar, ",\"interruptible\":true,\"sell_back\":1"));
      QVERIFY2(Market::line(rest, "exec").value("state", "") == "accepted", rest.c_str());
      // The provider takes back 4 GPUs of hours [kNow+4, kNow+6) and 7 of hour kNow+3: Carol holds
      // 6 free of offers there, so her ask is cancelled first.
      QVERIFY(!Market::line(m.send("provider", reclaim(1, kNow + 4, kNow + 6, 4)), "reclaim_ack").is_null());
      const Holding before = m.core->engine().holding(provider, kSpot, kNow + 3);
      const std::string seven = m.send("provider", reclaim(1, kNow + 3, kNow + 4, 7));
      QVERIFY2(!Market::line(seven, "reclaim_ack").is_null(), seven.c_str());
      QVERIFY(m.core->engine().workingOrders(carol).empty());
      QCOMPARE(m.core->engine().holding(carol, kSpot, kNow + 3), (Holding{1, 0}));
      QCOMPARE(m.core->engine().holding(carol, kSpot, kNow + 4), (Holding{4, 0}));
      QCOMPARE(m.core->engine().holding(carol, kSpot, kNow + 2), (Holding{8, 0}));
      // The provider has its machines back.
      QCOMPARE(m.core->engine().holding(provider, kSpot, kNow + 3).held, before.held + 7);
      // A sell-back of reclaimed hours is refused with a clear reason; one of the kept hours is
      // accepted.
      const json refused =
          Market::line(m.send("carol", order("c-sb1", "sell", kSpot, 5, kNow + 4, kNow + 6, 3 * kMicrosPerDollar,
                                             ",\"interruptible\":true,\"sell_back\":1")),
                       "exec");
      QCOMPARE(refused.value("code", ""), std::string("insufficient_holdings"));
      QVERIFY2(!refused.value("reason", "").empty(), refused.dump().c_str());
      const json kept =
          Market::line(m.send("carol", order("c-sb2", "sell", kSpot, 4, kNow + 4, kNow + 6, 3 * kMicrosPerDollar,
                                             ",\"interruptible\":true,\"sell_back\":1")),
                       "exec");
      QCOMPARE(kept.value("state", ""), std::string("accepted"));
      // Bob buys all 4 of hour kNow+5 from Carol: the provider cannot take those from her.
      const std::string bob = m.send(
          "bob", order("b1", "buy", kSpot, 4, kNow + 5, kNow + 6, 3 * kMicrosPerDollar, ",\"interruptible\":true"));
      QVERIFY2(bob.find("\"trade\":") != std::string::npos, bob.c_str());
      const Money carolCash = m.cash("carol");
      const std::uint64_t entries = m.journal->lastSeq();
      const json resold = Market::line(m.send("provider", reclaim(1, kNow + 5, kNow + 6, 1)), "error");
      QCOMPARE(resold.value("code", ""), std::string("resold"));
      QCOMPARE(m.journal->lastSeq(), entries);
      QCOMPARE(m.cash("carol"), carolCash);
      digest = m.core->stateDigest();
    }
    // The journal's replay reaches the same holdings (the digest counts them).
    Market again(db);
    QCOMPARE(again.core->stateDigest(), digest);
  }

  void reclaimRatesArePublishedPerInterruptibleCluster() {
    Market m(path());
    carolBuysInterruptible(m);  // 8 GPUs x 4 hours on the interruptible cluster
    if (QTest::currentTestFailed()) return;
    // A firm contract on the physical cluster is not interruptible supply.
    m.send("provider", order("firm", "sell", 1, 8, kNow + 2, kNow + 6, 2 * kMicrosPerDollar));
    QVERIFY(m.send("alice", order("a1", "buy", 1, 8, kNow + 2, kNow + 6, 2 * kMicrosPerDollar)).find("\"trade\":") !=
            std::string::npos);
    QVERIFY(!Market::line(m.send("provider", reclaim(1, kNow + 4, kNow + 6, 4)), "reclaim_ack").is_null());
    // Anyone logged on may ask; 8 of 32 GPU-hours sold were taken back.
    const json rates = Market::line(m.send("bob", R"({"type":"reclaim_rates"})"), "reclaim_rates");
    QCOMPARE(rates.value("window", ""), std::string("open_contracts"));
    QCOMPARE(rates["clusters"].size(), std::size_t(1));
    const json& spot = rates["clusters"][0];
    QCOMPARE(spot["cluster"].get<ClusterId>(), kSpot);
    QCOMPARE(spot["sold_gpu_hours"].get<std::int64_t>(), std::int64_t(32));
    QCOMPARE(spot["reclaimed_gpu_hours"].get<std::int64_t>(), std::int64_t(8));
    QCOMPARE(spot["rate"].get<double>(), 0.25);
    QCOMPARE(spot["contracted_hours"].get<std::int64_t>(), std::int64_t(4));
    QCOMPARE(spot["reclaimed_contracts"].get<std::int64_t>(), std::int64_t(1));
    // A new subscriber gets the same rates after its snapshot, not only at the next hour (fails
    // if ExchangeCore::onSubscribe leaves them out).
    const json pushed = Market::line(m.send("bob", R"({"type":"subscribe"})"), "reclaim_rates");
    QVERIFY(!pushed.is_null());
    QCOMPARE(pushed["clusters"], rates["clusters"]);
  }

  void replayAndSnapshotsRestoreReclaims() {
    const std::string db = path();
    std::vector<std::pair<std::uint64_t, std::string>> snapshots;
    std::uint64_t digest = 0;
    json carolPositions;
    {
      Market m(db);
      carolBuysInterruptible(m);
      if (QTest::currentTestFailed()) return;
      if (QTest::currentTestFailed()) return;
      snapshots.emplace_back(m.journal->lastSeq(), m.core->snapshot());  // before the reclaim
      QVERIFY(!Market::line(m.send("provider", reclaim(1, kNow + 4, kNow + 6, 4)), "reclaim_ack").is_null());
      snapshots.emplace_back(m.journal->lastSeq(), m.core->snapshot());  // after it
      m.clock(kNow + 5);                                                 // partly delivered
      carolPositions = m.positions("carol");
      QCOMPARE(carolPositions[0]["reclaimed"].size(), std::size_t(1));
      digest = m.core->stateDigest();
    }
    {
      Market full(db);
      QCOMPARE(full.core->stateDigest(), digest);
      QCOMPARE(full.positions("carol"), carolPositions);
    }
    for (const auto& [seq, bytes] : snapshots) {
      auto journal = openJournal(db);
      const ExchangeCore::SnapshotStart from{seq, bytes};
      ExchangeCore tail(interruptibleConfig(), *journal, &from);
      QVERIFY(tail.startedFromSnapshot());
      QVERIFY2(tail.stateDigest() == digest, qPrintable(QString("snapshot after entry %1").arg(seq)));
    }
  }
};

QTEST_GUILESS_MAIN(TestInterruptibleCapacity)
#include "test_interruptible_capacity.moc"
