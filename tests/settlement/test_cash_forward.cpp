// Cash-settled forwards on the index: margin in, margin calls, close-out, settlement.
#include "LedgerAudit.h"
#include "core/settlement/CashForward.h"

#include <QtTest>

using namespace tessera;
using tessera::testing::auditLedger;

namespace {
constexpr AccountId kExternal = 0, kSpeculator = 1, kProvider = 2;
}

class CashForwardTest : public QObject {
  Q_OBJECT

  SettlementLedger ledger;
  void fund(AccountId a, Money m) { QVERIFY(!ledger.post({kExternal, Book::External}, {a, Book::Cash}, m, "deposit")); }
  ForwardTerms week() {
    // 10,000 GPU-hours of the H100 index for the week starting hour 1000, at $2.00.
    return ForwardTerms{Accelerator::H100, 1000, 10'000, 2'000'000};
  }

 private slots:
  void init() { ledger = SettlementLedger{}; }

  void settlesTheDifferenceInCash() {
    fund(kSpeculator, 10'000'000'000);
    fund(kProvider, 10'000'000'000);
    CashForwardBook book(ledger);  // 15% initial margin
    const auto id = std::get<std::uint64_t>(book.open(kSpeculator, kProvider, week()));
    QCOMPARE(book.initialMargin(week()), Money(3'000'000'000));  // 15% of $20,000
    QCOMPARE(ledger.balance({kSpeculator, Book::Margin}), Money(3'000'000'000));
    // The index ends the week at $2.30: the long gains 0.30 x 10,000 = $3,000, paid by the short.
    const auto events = book.settle(Accelerator::H100, 1000, 2'300'000);
    QCOMPARE(events.size(), std::size_t(1));
    QCOMPARE(ledger.balance({kSpeculator, Book::Cash}), Money(13'000'000'000));
    QCOMPARE(ledger.balance({kProvider, Book::Cash}), Money(7'000'000'000));
    QCOMPARE(ledger.balance({kSpeculator, Book::Margin}), Money(0));
    QVERIFY(book.position(id)->status == ForwardStatus::Settled);
    // Both initial margins went in and came back out, and the ledger agrees with its postings.
    // Fails if close() keeps a margin (mutation: `*margin > 0` -> `*margin > 3'000'000'000` in
    // CashForwardBook::close).
    const auto audit = auditLedger(ledger);
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Margin) == 2 * 3'000'000'000LL);
    QVERIFY(audit.outOfBook(Book::Margin) == audit.inBook(Book::Margin));
  }

  void marginIsCheckedOnOpenAndCalledOnMarks() {
    fund(kSpeculator, 3'500'000'000);  // initial margin $3,000 plus $500
    fund(kProvider, 10'000'000'000);
    CashForwardBook book(ledger);
    QVERIFY(std::get<ForwardError>(book.open(kSpeculator, 9, week())) == ForwardError::SellerMargin);
    const auto id = std::get<std::uint64_t>(book.open(kSpeculator, kProvider, week()));
    // Index falls to $1.96: the long loses $400 and must top up its margin by that much.
    auto events = book.mark(Accelerator::H100, 1'960'000);
    QCOMPARE(events.size(), std::size_t(1));
    QCOMPARE(ledger.balance({kSpeculator, Book::Margin}), Money(3'400'000'000));
    QVERIFY(book.position(id)->status == ForwardStatus::Open);
    // Index falls to $1.90: the loss of $1,000 needs $600 more; only $100 is left: closed out.
    events = book.mark(Accelerator::H100, 1'900'000);
    QVERIFY(book.position(id)->status == ForwardStatus::ClosedOut);
    QCOMPARE(ledger.balance({kProvider, Book::Cash}), Money(11'000'000'000));
    QCOMPARE(ledger.balance({kSpeculator, Book::Cash}), Money(2'500'000'000));
    QCOMPARE(ledger.balance({kSpeculator, Book::Margin}), Money(0));
    // Margin in: two initial margins and the $400 call; all of it out again at the close-out.
    // Fails if a margin call posts more than it records (mutation: `call` -> `call + 1` in the
    // posting of CashForwardBook::mark).
    const auto audit = auditLedger(ledger);
    QVERIFY2(audit.clean(), audit.report().c_str());
    QVERIFY(audit.inBook(Book::Margin) == 2 * 3'000'000'000LL + 400'000'000);
    QVERIFY(audit.outOfBook(Book::Margin) == audit.inBook(Book::Margin));
    // A closed position does not settle again.
    QVERIFY(book.settle(Accelerator::H100, 1000, 3'000'000).empty());
  }

  void invalidTermsAreRefused() {
    CashForwardBook book(ledger);
    ForwardTerms t = week();
    t.gpuHours = 0;
    QVERIFY(std::get<ForwardError>(book.open(kSpeculator, kProvider, t)) == ForwardError::InvalidTerms);
    QVERIFY(std::get<ForwardError>(book.open(kSpeculator, kSpeculator, week())) == ForwardError::SameAccount);
  }
};

QTEST_GUILESS_MAIN(CashForwardTest)
#include "test_cash_forward.moc"
