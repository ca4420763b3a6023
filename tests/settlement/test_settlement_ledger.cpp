// The double-entry ledger: postings balance, nothing but External goes negative.
#include "core/settlement/SettlementLedger.h"

#include <QtTest>

using namespace tessera;

class SettlementLedgerTest : public QObject {
  Q_OBJECT
 private slots:
  void postingsMoveMoneyAndConserveIt() {
    SettlementLedger l;
    QVERIFY(!l.post({0, Book::External}, {1, Book::Cash}, 100, "deposit"));
    QVERIFY(!l.post({1, Book::Cash}, {1, Book::Reserved}, 60, "reserve bid 7"));
    QCOMPARE(l.balance({1, Book::Cash}), Money(40));
    QCOMPARE(l.balance({1, Book::Reserved}), Money(60));
    QCOMPARE(l.balance({0, Book::External}), Money(-100));
    QCOMPARE(l.total(), Money(0));
    QVERIFY(*l.post({1, Book::Cash}, {2, Book::Cash}, 41, "too much") == PostingError::InsufficientFunds);
    QVERIFY(*l.post({1, Book::Cash}, {2, Book::Cash}, 0, "nothing") == PostingError::NonPositiveAmount);
    QCOMPARE(l.postings().size(), std::size_t(2));
    QCOMPARE(l.postingsOf(1).size(), std::size_t(2));
    QCOMPARE(l.postingsOf(2).size(), std::size_t(0));
  }

  void aRefusedCheckedPostingIsABugNotALoss() {
    SettlementLedger l;
    l.postChecked({0, Book::External}, {1, Book::Cash}, 100, "deposit");
    QVERIFY_THROWS_EXCEPTION(std::logic_error, l.postChecked({1, Book::Cash}, {2, Book::Cash}, 101, "too much"));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, l.postChecked({1, Book::Cash}, {2, Book::Cash}, 0, "nothing"));
    QCOMPARE(l.balance({1, Book::Cash}), Money(100));
    QCOMPARE(l.postingCount(), std::uint64_t(1));
  }
};

QTEST_GUILESS_MAIN(SettlementLedgerTest)
#include "test_settlement_ledger.moc"
