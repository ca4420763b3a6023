// SettlementDesk on its own: a contract's escrow is taken when the engine makes it, and an
// outage is spread by the outage rule (docs/settlement.md) over the provider's contracts and its
// unsold holding, ties to the lower contract id and the holding last.
// Mutations seen failing: the unsold holding ranked first among equal remainders
// (aTiedLostGpuGoesToTheLowerContract); the provider check skipped
// (onlyTheProviderReportsAndOnlyWhatItSold).
#include "ExchangeParts.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

namespace {

constexpr Hour kNow = 1000;

// A provider with 3 GPUs on cluster 1 sells two of them for hours [kNow+2, kNow+4) in two
// contracts (ids 1 and 2) to one buyer, and keeps the third unsold.
struct TwoContracts : ExchangeParts {
  AccountId provider = 0, buyer = 0;
  TwoContracts() {
    provider = openMarket(kNow, "provider", 3, 10);
    buyer = fund("buyer", 100 * kMicrosPerDollar);
    desk.registerJournalEntries();
    for (OrderId id : {1, 2}) {
      apply(ask(id, provider, 1, 1, kNow + 2, kNow + 4, 2 * kMicrosPerDollar));
    }
    apply(bid(3, buyer, 1, 2, kNow + 2, kNow + 4, 3 * kMicrosPerDollar));
  }
};

}  // namespace

class TestSettlementDesk : public QObject {
  Q_OBJECT
 private slots:
  void aContractsEscrowIsTakenWhenItIsMade() {
    TwoContracts m;
    QCOMPARE(m.engine->contractsOf(m.buyer).size(), std::size_t{2});
    // Two contracts of 1 GPU x 2 hours at $2 (the resting asks' price): $8 in escrow.
    QCOMPARE(m.ledger.balance({m.buyer, Book::Escrow}), 8 * kMicrosPerDollar);
    QCOMPARE(m.ledger.balance({m.buyer, Book::Cash}), 92 * kMicrosPerDollar);
    QCOMPARE(m.settlement.escrow(1), 4 * kMicrosPerDollar);
    QVERIFY(m.accounts.dirty().count(m.buyer) && m.accounts.dirty().count(m.provider));
  }

  void aTiedLostGpuGoesToTheLowerContract() {
    TwoContracts m;
    // One of three GPUs lost: a third each for contract 1, contract 2 and the holding, all
    // tied; the lower contract id takes it.
    std::vector<ContractId> affected;
    const auto err = m.desk.outage(m.provider, OutageRequest{1, kNow + 2, kNow + 4, 1, DeliveryProblem::MissingGpus},
                                   nullptr, &affected);
    QVERIFY2(!err, err ? err->c_str() : "");
    QCOMPARE(affected, std::vector<ContractId>{1});
    for (Hour h : {kNow + 2, kNow + 3}) {
      QCOMPARE(m.settlement.unreplacedShortfall(1, h), GpuCount{1});
      QCOMPARE(m.settlement.unreplacedShortfall(2, h), GpuCount{0});
    }
    // Journaled, for replay.
    QCOMPARE(m.journal->lastSeq(), std::uint64_t{1});
    QVERIFY(m.journal->entry(1)->input.find("\"type\":\"outage\"") != std::string::npos);
  }

  void onlyTheProviderReportsAndOnlyWhatItSold() {
    TwoContracts m;
    const OutageRequest lost{1, kNow + 2, kNow + 4, 1, DeliveryProblem::MissingGpus};
    QCOMPARE(m.desk.outage(m.buyer, lost, nullptr, nullptr), std::optional<std::string>("not_your_cluster"));
    QCOMPARE(m.desk.outage(m.provider, OutageRequest{1, kNow + 5, kNow + 8, 1, DeliveryProblem::MissingGpus}, nullptr,
                           nullptr),
             std::optional<std::string>("nothing_sold"));
    QCOMPARE(m.desk.outage(m.provider, OutageRequest{9, kNow + 2, kNow + 4, 1, DeliveryProblem::MissingGpus}, nullptr,
                           nullptr),
             std::optional<std::string>("unknown_cluster"));
    // A delivery report on someone else's contract is reported like a missing one.
    QCOMPARE(
        m.desk.deliveryReport(m.buyer, DeliveryReport{1, kNow + 2, kNow + 3, 0, DeliveryProblem::MissingGpus}, nullptr),
        std::optional<std::string>("unknown_contract"));
    QCOMPARE(m.journal->lastSeq(), std::uint64_t{0});  // nothing refused is journaled
  }

  // A call's contract (a leg's fill, inCall) has no taker: neither party took liquidity.
  // Mutation seen failing: recordTaker ignoring inCall (the buyer took the second contract).
  void whoTookLiquidityIsKeptPerContract() {
    TwoContracts m;
    // The buyer's bid arrived last: it took liquidity in the first trade; the second is a call's.
    bool inCall = false;
    for (const Contract& k : m.engine->contractsOf(m.buyer)) {
      Fill f;
      f.side = Side::Buy;
      f.contract = k.id;
      f.aggressor = true;
      m.desk.recordTaker(f, inCall);
      QCOMPARE(m.desk.tookLiquidity(k, m.buyer), !inCall);
      QVERIFY(!m.desk.tookLiquidity(k, m.provider));
      QCOMPARE(m.desk.madeByCall(k), inCall);
      inCall = true;
    }
    QCOMPARE(m.desk.takers().size(), std::size_t{2});
  }
};

QTEST_GUILESS_MAIN(TestSettlementDesk)
#include "test_settlement_desk.moc"
