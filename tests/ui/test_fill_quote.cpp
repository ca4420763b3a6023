// The ticket's quote: cost and average of what the book offers now, and all-or-none feasibility.
#include "ui/session/FillQuote.h"

#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

namespace {

// Hours 100..105: 10 GPUs at $3 in hour 100, 10 at $1 in 101..103, none in 104, bids at $0.5.
BookSnapshot book() {
  BookSnapshot s;
  s.clusters = {1};
  s.firstHour = 100;
  s.cells.resize(6);
  s.cells[0].asks = {BookLevel{3'000'000, 10, 1}};
  for (int i = 1; i <= 3; ++i) s.cells[i].asks = {BookLevel{1'000'000, 10, 1}, BookLevel{2'000'000, 10, 1}};
  for (auto& c : s.cells) c.bids = {BookLevel{500'000, 4, 1}, BookLevel{400'000, 4, 1}};
  return s;
}

}  // namespace

class TestFillQuote : public QObject {
  Q_OBJECT
 private slots:
  void fixedWindowWalksTheLadder() {
    const FillQuote q = quoteFill(book(), Side::Buy, 15, 101, 103);
    QCOMPARE(q.wantedGpuHours, 30);
    QCOMPARE(q.availableGpuHours, 30);
    QCOMPARE(q.total, Money{2 * (10 * 1'000'000 + 5 * 2'000'000)});
    QCOMPARE(q.worstPrice, Price{2'000'000});
    QVERIFY(q.allOrNoneNow);
  }
  void aGapHourBreaksAllOrNone() {
    const FillQuote q = quoteFill(book(), Side::Buy, 5, 103, 105);
    QCOMPARE(q.availableGpuHours, 5);
    QVERIFY(!q.allOrNoneNow);
    QVERIFY(q.complete);
  }
  void flexibleWindowPicksTheCheapestFullWindow() {
    const FillQuote q = quoteFill(book(), Side::Buy, 10, 100, 105, Hour{2});
    QVERIFY(q.allOrNoneNow);
    QCOMPARE(q.start, Hour{101});
    QCOMPARE(q.end, Hour{103});
    QCOMPARE(q.total, Money{20'000'000});
  }
  void sellHitsTheBids() {
    const FillQuote q = quoteFill(book(), Side::Sell, 6, 100, 101);
    QCOMPARE(q.total, Money{4 * 500'000 + 2 * 400'000});
    QCOMPARE(q.worstPrice, Price{400'000});
  }
  void windowBeyondTheSnapshotIsFlagged() {
    const FillQuote q = quoteFill(book(), Side::Buy, 1, 104, 110);
    QVERIFY(!q.complete);
    QVERIFY(!q.allOrNoneNow);
  }
  void nothingToQuote() {
    QCOMPARE(quoteFill(book(), Side::Buy, 0, 100, 101).availableGpuHours, 0);
    QVERIFY(!quoteFill(book(), Side::Buy, 5, 101, 101).averagePrice());
  }
};

QTEST_MAIN(TestFillQuote)
#include "test_fill_quote.moc"
