// Escrow, delivery, refunds and uptime credits; and the ledger's conservation of money over random
// sequences of contracts with failures.
#include "LedgerAudit.h"
#include "core/settlement/ContractSettlement.h"

#include <QtTest>

#include <random>
#include <set>

using namespace tessera;
using tessera::testing::auditLedger;

namespace {
constexpr AccountId kExternal = 0, kProvider = 1, kBuyer = 2;

Contract contract(ContractId id, GpuCount gpus, Hour start, Hour end, Price price) {
  Contract k;
  k.id = id;
  k.trade = id;
  k.buyer = kBuyer;
  k.seller = kProvider;
  k.cluster = 1;
  k.gpus = gpus;
  k.start = start;
  k.end = end;
  k.price = price;
  return k;
}
}  // namespace

class ContractSettlementTest : public QObject {
  Q_OBJECT

  SettlementLedger ledger;

  void fund(AccountId a, Money m) { QVERIFY(!ledger.post({kExternal, Book::External}, {a, Book::Cash}, m, "deposit")); }

 private slots:
  void init() { ledger = SettlementLedger{}; }

  void fullDeliveryPaysTheProviderHourByHour() {
    fund(kBuyer, 1'000'000'000);
    ContractSettlement s(ledger);
    const Contract k = contract(1, 8, 10, 14, 2'000'000);  // 32 GPU-h at $2 = $64
    QVERIFY(!s.open(k, OfferTerms{}, Book::Cash, 0));
    QCOMPARE(ledger.balance({kBuyer, Book::Escrow}), Money(64'000'000));
    QVERIFY(*s.state(1) == ContractState::PendingStart);
    s.advance(10);
    QVERIFY(*s.state(1) == ContractState::Delivering);
    s.advance(12);  // hours 10, 11 done
    QCOMPARE(ledger.balance({kProvider, Book::Cash}), Money(32'000'000));
    QCOMPARE(s.escrow(1), Money(32'000'000));
    const auto events = s.advance(20);
    QVERIFY(*s.state(1) == ContractState::Settled);
    QCOMPARE(ledger.balance({kProvider, Book::Cash}), Money(64'000'000));
    QCOMPARE(ledger.balance({kBuyer, Book::Escrow}), Money(0));
    QVERIFY(std::any_of(events.begin(), events.end(),
                        [](const SettlementEvent& e) { return e.state == ContractState::Completed; }));
    // $64 went into escrow and all of it out to the provider. Fails if the ledger's balances
    // drift from its postings (mutation: `balances_[to] += amount + 1` in SettlementLedger::post).
    const auto audit = auditLedger(ledger);
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Escrow) == 64'000'000);
    QVERIFY(audit.outOfBook(Book::Escrow) == 64'000'000);
  }

  void missingGpusAreRefundedAndCredited() {
    fund(kBuyer, 1'000'000'000);
    fund(kProvider, 1'000'000'000);
    ContractSettlement s(ledger);
    OfferTerms terms;
    terms.billing = BillingBasis::WallClockDelivered;
    terms.uptimePromisePpm = 990'000;
    terms.creditPerUndeliveredGpuHour = 500'000;  // $0.50 per undelivered GPU-hour on top of the refund
    QVERIFY(!s.open(contract(1, 8, 0, 10, 2'000'000), terms, Book::Cash, 0));  // 80 GPU-h, $160
    // A node of 2 GPUs fails for hours 3..5: 6 GPU-hours missing (92.5% delivered < 99%).
    QVERIFY(!s.report({1, 3, 6, 6, DeliveryProblem::MissingGpus}));
    const Money buyerBefore = ledger.balance({kBuyer, Book::Cash});
    const Money providerBefore = ledger.balance({kProvider, Book::Cash});
    s.advance(10);
    QVERIFY(*s.state(1) == ContractState::Settled);
    QCOMPARE(s.deliveredGpuHours(1), std::int64_t(74));
    QCOMPARE(ledger.balance({kProvider, Book::Cash}) - providerBefore, Money(74 * 2'000'000 - 6 * 500'000));
    QCOMPARE(ledger.balance({kBuyer, Book::Cash}) - buyerBefore, Money(6 * 2'000'000 + 6 * 500'000));
    // Escrow: $160 in, $148 paid and $12 refunded out.
    const auto audit = auditLedger(ledger);
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Escrow) == 160'000'000);
    QVERIFY(audit.outOfBook(Book::Escrow) == 160'000'000);
    // Reports for settled hours or impossible reports are refused.
    QVERIFY(*s.report({1, 3, 4, 0, DeliveryProblem::MissingGpus}) == SettlementError::HoursAlreadySettled);
    QVERIFY(*s.report({9, 3, 4, 0, DeliveryProblem::MissingGpus}) == SettlementError::UnknownContract);
  }

  void committedBlockPaysEverythingButCredits() {
    fund(kBuyer, 1'000'000'000);
    fund(kProvider, 1'000'000'000);
    ContractSettlement s(ledger);
    OfferTerms terms;
    terms.billing = BillingBasis::CommittedBlock;
    terms.creditPerUndeliveredGpuHour = 1'000'000;
    QVERIFY(!s.open(contract(1, 4, 0, 4, 3'000'000), terms, Book::Cash, 0));
    QVERIFY(!s.report({1, 0, 4, 0, DeliveryProblem::MissingGpus}));  // nothing delivered
    const Money providerBefore = ledger.balance({kProvider, Book::Cash});
    const auto events = s.advance(4);
    QVERIFY(std::any_of(events.begin(), events.end(),
                        [](const SettlementEvent& e) { return e.state == ContractState::Failed; }));
    QCOMPARE(ledger.balance({kProvider, Book::Cash}) - providerBefore, Money(16 * 3'000'000 - 16 * 1'000'000));
  }

  // A reclaim of interruptible capacity: refunded at once, then never paid (even on a committed
  // block), no breach of the uptime promise, and an outage in the same hours counts only the GPUs
  // left. Mutations seen failing: settleHours owing the reclaimed GPUs again (`owed` without
  // the reclaimed ones): the provider is paid for reclaimed hours and escrow runs dry; reclaim
  // refunding half the reclaimed GPU-hours: the buyer's cash is $8 short.
  void aReclaimIsRefundedOnceNeverPaidAndNoBreach() {
    fund(kBuyer, 1'000'000'000);
    fund(kProvider, 1'000'000'000);
    ContractSettlement s(ledger);
    OfferTerms t;
    t.billing = BillingBasis::CommittedBlock;
    t.uptimePromisePpm = 1'000'000;
    t.creditPerUndeliveredGpuHour = 5'000'000;
    const Contract k = contract(1, 8, 10, 14, 2'000'000);  // 32 GPU-h at $2 = $64
    QVERIFY(!s.open(k, t, Book::Cash, 0));
    // 4 GPUs of hours 12, 13 taken back: $16 back to the buyer at once.
    const auto refund = s.reclaim(1, 12, 14, 4);
    QCOMPARE(std::get<Money>(refund), Money(16'000'000));
    QCOMPARE(ledger.balance({kBuyer, Book::Cash}), Money(1'000'000'000 - 64'000'000 + 16'000'000));
    QCOMPARE(s.reclaimedGpuHours(1), std::int64_t(8));
    QCOMPARE(s.reclaimedRuns(1), (std::vector<ContractSettlement::LostRun>{{12, 14, 4}}));
    // No more than the contract has, nothing outside it.
    QVERIFY(std::get<SettlementError>(s.reclaim(1, 12, 13, 5)) == SettlementError::InvalidReport);
    QVERIFY(std::get<SettlementError>(s.reclaim(1, 13, 15, 1)) == SettlementError::InvalidReport);
    // An outage takes all 8 GPUs in hour 13: only the 4 left there are missing.
    QVERIFY(!s.report(DeliveryReport{1, 13, 14, 0, DeliveryProblem::MissingGpus}));
    QCOMPARE(s.unreplacedShortfall(1, 13), GpuCount(4));
    s.advance(20);
    // Committed block: the provider is paid every hour it still owed (24 GPU-h, the outage's 4
    // included) and nothing for the 8 reclaimed; the buyer paid exactly that.
    QCOMPARE(ledger.balance({kBuyer, Book::Escrow}), Money(0));
    const Money credit = 4 * 5'000'000;  // the outage's 4 GPU-hours, under a 100% promise
    QCOMPARE(ledger.balance({kProvider, Book::Cash}), Money(1'000'000'000 + 48'000'000 - credit));
    QCOMPARE(ledger.balance({kBuyer, Book::Cash}), Money(1'000'000'000 - 48'000'000 + credit));
    QCOMPARE(s.creditsReceived(kBuyer), credit);
    // Settled hours cannot be reclaimed.
    QVERIFY(std::get<SettlementError>(s.reclaim(1, 12, 13, 1)) == SettlementError::HoursAlreadySettled);
  }

  void degradedLinkCountsOnlyForSuccessfulWork() {
    fund(kBuyer, 1'000'000'000);
    for (auto basis : {BillingBasis::WallClockDelivered, BillingBasis::SuccessfulWork}) {
      SettlementLedger l;
      QVERIFY(!l.post({kExternal, Book::External}, {kBuyer, Book::Cash}, 100'000'000, "deposit"));
      ContractSettlement s(l);
      OfferTerms terms;
      terms.billing = basis;
      QVERIFY(!s.open(contract(1, 8, 0, 2, 1'000'000), terms, Book::Cash, 0));
      QVERIFY(!s.report({1, 1, 2, 8, DeliveryProblem::LinkDegraded}));
      s.advance(2);
      const Money paid = l.balance({kProvider, Book::Cash});
      QCOMPARE(paid, Money(basis == BillingBasis::SuccessfulWork ? 8'000'000 : 16'000'000));
    }
  }

  void insufficientFundsOpenNothing() {
    fund(kBuyer, 1'000);
    ContractSettlement s(ledger);
    QVERIFY(*s.open(contract(1, 8, 0, 2, 1'000'000), OfferTerms{}, Book::Cash, 0) ==
            SettlementError::InsufficientFunds);
    QVERIFY(!s.state(1));
    QCOMPARE(ledger.balance({kBuyer, Book::Cash}), Money(1'000));
  }

  void openContractsOfListsTheOpenContractsBySellerAndCluster() {
    // The index an outage report reads must list exactly the open contracts of a seller on a
    // cluster, through opening and settling. Fails if a settled contract stays listed
    // (mutation: drop `ids->second.erase(id)` in ContractSettlement::advance).
    std::mt19937_64 rng(5);
    auto u = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    SettlementLedger l;
    ContractSettlement s(l);
    for (AccountId a = 1; a <= 4; ++a)
      QVERIFY(!l.post({kExternal, Book::External}, {a, Book::Cash}, 4'000'000'000'000, "deposit"));
    Hour now = 0;
    ContractId next = 1;
    for (int step = 0; step < 400; ++step) {
      if (u(1, 3) <= 2) {
        Contract k = contract(next++, static_cast<GpuCount>(u(1, 8)), now + u(0, 6), 0, 1'000'000);
        k.end = k.start + u(1, 8);
        k.seller = static_cast<AccountId>(u(1, 4));
        k.buyer = static_cast<AccountId>(u(1, 4));
        k.cluster = static_cast<ClusterId>(u(1, 3));
        QVERIFY(!s.open(k, OfferTerms{}, Book::Cash, now));
      } else {
        s.advance(now += u(1, 3));
      }
      for (AccountId seller = 1; seller <= 4; ++seller)
        for (ClusterId c = 1; c <= 3; ++c) {
          std::set<ContractId> expected;
          for (ContractId id : s.openContracts())
            if (s.contract(id)->seller == seller && s.contract(id)->cluster == c) expected.insert(id);
          QCOMPARE(s.openContractsOf(seller, c), expected);
        }
    }
    QVERIFY(next > 200);
  }

  void moneyIsConservedOverRandomFailures() {
    std::mt19937_64 rng(11);
    auto u = [&](std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng); };
    for (int round = 0; round < 50; ++round) {
      SettlementLedger l;
      ContractSettlement s(l);
      for (AccountId a = 1; a <= 6; ++a)
        QVERIFY(!l.post({kExternal, Book::External}, {a, Book::Cash}, u(0, 2'000'000'000), "deposit"));
      Hour now = 0;
      ContractId next = 1;
      Money notionals = 0;  // of the contracts that opened, computed here from their own terms
      for (int step = 0; step < 200; ++step) {
        const auto r = u(1, 10);
        if (r <= 4) {
          Contract k;
          k.id = next++;
          k.buyer = static_cast<AccountId>(u(1, 6));
          k.seller = static_cast<AccountId>(u(1, 6));
          k.gpus = static_cast<GpuCount>(u(1, 16));
          k.start = now + u(0, 10);
          k.end = k.start + u(1, 12);
          k.price = u(1, 40) * 100'000;
          OfferTerms t;
          t.billing = static_cast<BillingBasis>(u(0, 2));
          t.uptimePromisePpm = static_cast<int>(u(900'000, 1'000'000));
          t.creditPerUndeliveredGpuHour = u(0, 10) * 100'000;
          if (!s.open(k, t, Book::Cash, now)) notionals += k.price * k.gpus * (k.end - k.start);
        } else if (r <= 7 && next > 1) {
          const auto id = static_cast<ContractId>(u(1, static_cast<std::int64_t>(next - 1)));
          const Hour a = now + u(0, 8);
          s.report({id, a, a + u(1, 4), static_cast<GpuCount>(u(0, 8)), static_cast<DeliveryProblem>(u(0, 2))});
        } else {
          now += u(1, 3);
          s.advance(now);
        }
        for (AccountId a = 1; a <= 6; ++a)
          for (Book b : {Book::Cash, Book::Escrow}) QVERIFY(l.balance({a, b}) >= 0);
      }
      now += 100;
      s.advance(now);
      for (ContractId id = 1; id < next; ++id)
        if (auto st = s.state(id)) QVERIFY(*st == ContractState::Settled);
      for (AccountId a = 1; a <= 6; ++a) QCOMPARE(l.balance({a, Book::Escrow}), Money(0));
      // Every posting is in the record and agrees with the balances, nothing was overdrawn at
      // any posting, and escrow took in exactly the notionals of the contracts that opened and
      // gave all of it out again. Fails if opening escrows anything but the notional (mutation:
      // `notional` -> `notional + 1` in the posting of ContractSettlement::open) or if the
      // balances drift from the postings (`balances_[to] += amount + 1` in SettlementLedger::post).
      const auto audit = auditLedger(l);
      QVERIFY2(audit.clean(), audit.report().c_str());
      QVERIFY(audit.inBook(Book::Escrow) == notionals);
      QVERIFY(audit.outOfBook(Book::Escrow) == notionals);
    }
  }
};

QTEST_GUILESS_MAIN(ContractSettlementTest)
#include "test_contract_settlement.moc"
