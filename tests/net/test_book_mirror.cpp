#include "core/net/BookMirror.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::net;

namespace {
BookCell cell(Hour h, Side s, std::vector<BookLevel> levels) { return BookCell{{1, h, s}, std::move(levels)}; }
}  // namespace

class TestBookMirror : public QObject {
  Q_OBJECT
 private slots:
  void deltasBeforeSnapshotAreNotApplied() {
    BookMirror m;
    QCOMPARE(m.applyCell(1, cell(10, Side::Buy, {{100, 1, 1}})), BookMirror::Result::NotSynced);
    QVERIFY(!m.synced());
    QVERIFY(m.cells().empty());
  }
  void snapshotThenDeltas() {
    BookMirror m;
    m.applySnapshot(5, {cell(10, Side::Buy, {{100, 2, 1}}), cell(10, Side::Sell, {})});
    QVERIFY(m.synced());
    QCOMPARE(m.cells().size(), std::size_t(1));  // empty cells are not kept
    QCOMPARE(m.applyCell(6, cell(10, Side::Sell, {{120, 4, 2}})), BookMirror::Result::Applied);
    QCOMPARE(m.levels({1, 10, Side::Sell})->front().gpus, 4);
    QCOMPARE(m.applyCell(7, cell(10, Side::Buy, {})), BookMirror::Result::Applied);
    QVERIFY(m.levels({1, 10, Side::Buy}) == nullptr);
    QCOMPARE(m.seq(), std::uint64_t(7));
  }
  void duplicatesAreIgnored() {
    BookMirror m;
    m.applySnapshot(5, {cell(10, Side::Buy, {{100, 2, 1}})});
    QCOMPARE(m.applyCell(5, cell(10, Side::Buy, {})), BookMirror::Result::Duplicate);
    QCOMPARE(m.levels({1, 10, Side::Buy})->front().price, Price(100));
  }
  void gapIsDetectedAndHealedByResentDeltas() {
    BookMirror m;
    m.applySnapshot(5, {});
    QCOMPARE(m.applyCell(7, cell(11, Side::Buy, {{90, 1, 1}})), BookMirror::Result::Gap);
    QVERIFY(!m.synced());
    QVERIFY(m.levels({1, 11, Side::Buy}) == nullptr);  // not applied out of order
    QCOMPARE(m.seq(), std::uint64_t(5));
    QCOMPARE(m.advance(6), BookMirror::Result::Applied);  // the resent missing message
    QVERIFY(m.synced());
    QCOMPARE(m.applyCell(7, cell(11, Side::Buy, {{90, 1, 1}})), BookMirror::Result::Applied);
    QVERIFY(m.levels({1, 11, Side::Buy}) != nullptr);
  }
  void snapshotHealsGap() {
    BookMirror m;
    m.applySnapshot(1, {});
    QCOMPARE(m.advance(3), BookMirror::Result::Gap);
    m.applySnapshot(9, {cell(12, Side::Sell, {{200, 8, 1}})});
    QVERIFY(m.synced());
    QCOMPARE(m.applyCell(10, cell(12, Side::Sell, {})), BookMirror::Result::Applied);
    QVERIFY(m.cells().empty());
  }
};

QTEST_GUILESS_MAIN(TestBookMirror)
#include "test_book_mirror.moc"
