// The grid: a dragged rectangle becomes the right selection, and on the main window the right
// order ticket (cluster, GPUs, start, end, and the quote worked out by hand).
#include "TestSettings.h"
#include "GuiTestSupport.h"
#include "ScriptedMarket.h"

#include "ui/grid/OrderBookGridView.h"
#include "ui/grid/PriceColourScale.h"
#include "ui/session/LocalMarketBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/OrderTicket.h"

#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

BookSnapshotPtr handMadeBook() {
  auto s = std::make_shared<BookSnapshot>();
  s->clusters = {kCluster};
  s->firstHour = kT0;
  s->now = kT0;
  s->cells.resize(48);
  for (Hour h = kAskStart; h < kAskEnd; ++h) {
    auto& c = s->cells[static_cast<std::size_t>(h - kT0)];
    c.asks = {BookLevel{kCheap, 16, 1}, BookLevel{kDear, 8, 1}};
    c.bids = {BookLevel{1'500'000, 6, 2}};
  }
  return s;
}

}  // namespace

class TestOrderBookGridView : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    tessera::ui::testing::useTestSettings("test_order_book_grid_view", false);
    qRegisterMetaType<GridSelection>();
  }

  void modelStacksLaddersFromTheBestPrice() {
    OrderBookGridModel m;
    m.setSnapshot(handMadeBook());
    const GridColumn* c = m.column(kAskStart);
    QVERIFY(c);
    QCOMPARE(c->asks.size(), 2u);
    QCOMPARE(c->asks[0].from, 0);
    QCOMPARE(c->asks[0].to, 16);
    QCOMPARE(c->asks[1].from, 16);
    QCOMPARE(c->asks[1].to, 24);
    QCOMPARE(c->asks[1].price, kDear);
    QCOMPARE(m.maxAskDepth(), 24);
    QCOMPARE(m.maxBidDepth(), 6);
    QVERIFY(!m.column(kT0 + 48));
    const auto hit = m.hit(kAskStart, 20.5);
    QVERIFY(hit);
    QCOMPARE(hit->segment.price, kDear);
    QVERIFY(m.hit(kAskStart, -3)->side == Side::Buy);
    QVERIFY(!m.hit(kAskStart, 30));
  }

  void dragAboveTheAxisSelectsABuy() {
    OrderBookGridView v;
    v.resize(900, 520);
    v.setSnapshot(handMadeBook());
    v.setVisibleHours(kT0, 24);
    v.setGpuStep(1);
    QSignalSpy spy(&v, &OrderBookGridView::selectionMade);
    // From near hour kT0+3 at the axis up to 12 GPUs near hour kT0+8: the nearest hour boundaries.
    drag(&v, v.pointOf(kT0 + 3.2, 0.2), v.pointOf(kT0 + 7.6, 12.2));
    QCOMPARE(spy.count(), 1);
    const auto s = spy.at(0).at(0).value<GridSelection>();
    QVERIFY(s.side == Side::Buy);
    QCOMPARE(s.start, kT0 + 3);
    QCOMPARE(s.end, kT0 + 8);
    QCOMPARE(s.gpus, 12);
  }

  void dragBelowTheAxisSelectsASell() {
    OrderBookGridView v;
    v.resize(900, 520);
    v.setSnapshot(handMadeBook());
    v.setVisibleHours(kT0, 24);
    v.setGpuStep(1);
    QSignalSpy spy(&v, &OrderBookGridView::selectionMade);
    // Right to left works too.
    drag(&v, v.pointOf(kT0 + 9.7, -0.3), v.pointOf(kT0 + 4.3, -5.3));
    QCOMPARE(spy.count(), 1);
    const auto s = spy.at(0).at(0).value<GridSelection>();
    QVERIFY(s.side == Side::Sell);
    QCOMPARE(s.start, kT0 + 4);
    QCOMPARE(s.end, kT0 + 10);
    QCOMPARE(s.gpus, 5);
  }

  void aClickIsNotADrag() {
    OrderBookGridView v;
    v.resize(900, 520);
    v.setSnapshot(handMadeBook());
    QSignalSpy spy(&v, &OrderBookGridView::selectionMade);
    const QPointF p = v.pointOf(kT0 + 3.5, 4);
    drag(&v, p, p + QPointF(1, 1));
    QCOMPARE(spy.count(), 0);
  }

  void hoverDescribesTheLevel() {
    OrderBookGridView v;
    v.resize(900, 520);
    v.setSnapshot(handMadeBook());
    v.setVisibleHours(kT0, 24);
    const QString t = v.describeAt(v.pointOf(kAskStart + 0.5, 20).toPoint());
    QVERIFY2(t.contains("Ask level: GPUs 17-24"), qPrintable(t));
    QVERIFY2(t.contains("cumulative 24 GPUs"), qPrintable(t));
    QVERIFY2(t.contains("$2.50"), qPrintable(t));
    const QString b = v.describeAt(v.pointOf(kAskStart + 0.5, -2).toPoint());
    QVERIFY2(b.contains("Bid level") && b.contains("$1.50") && b.contains("2 order(s)"), qPrintable(b));
  }

  void paintsLaddersInPriceColours() {
    OrderBookGridView v;
    v.resize(900, 520);
    v.setSnapshot(handMadeBook());
    v.setVisibleHours(kT0, 24);
    const QImage img = v.grab().toImage();
    auto at = [&](double hour, double gpu) { return img.pixelColor(v.pointOf(hour, gpu).toPoint()); };
    const QColor background = at(kT0 + 0.5, 10);  // an hour with nothing in the book
    PriceColourScale scale;
    scale.setRange(1'500'000, 2'500'000);  // the book's prices, to the cent
    QCOMPARE(at(kAskStart + 0.5, 8.7), scale.colour(kCheap));
    QCOMPARE(at(kAskStart + 0.5, 21.3), scale.colour(kDear));  // off the grid lines
    QVERIFY(at(kAskStart + 0.5, -3) != background);            // the bids below the axis
    QCOMPARE(at(kAskStart + 0.5, 27), background);             // above the 24 GPUs offered
    QCOMPARE(at(kAskStart + 0.5, -8), background);             // below the 6 GPUs bid
  }

  // One order far from the market (an own bid's outline, a stray ask at $50) does not stretch
  // the colours: the scale spans the 5th to the 95th percentile of the GPU-hours shown, the
  // cheap and dear levels keep their distinct colours, and the legend says the range and that
  // prices beyond it take the end colours. Mutation seen failing: updateScales() spanning
  // minPrice() to maxPrice() (both levels paint nearly the same blue).
  void anOutlierDoesNotFlattenTheColours() {
    auto book = std::const_pointer_cast<BookSnapshot>(handMadeBook());
    book->cells[static_cast<std::size_t>(kAskStart - kT0)].asks.push_back(BookLevel{50'000'000, 1, 1});
    OrderBookGridView v;
    v.resize(900, 520);
    v.setSnapshot(book);
    v.setVisibleHours(kT0, 24);
    QCOMPARE(v.colourScale().low(), Price{1'500'000});
    QCOMPARE(v.colourScale().high(), Price{2'500'000});
    const QImage img = v.grab().toImage();
    auto at = [&](double hour, double gpu) { return img.pixelColor(v.pointOf(hour, gpu).toPoint()); };
    const QColor cheap = at(kAskStart + 1.5, 8.7);
    const QColor dear = at(kAskStart + 1.5, 21.3);
    QCOMPARE(cheap, v.colourScale().colour(kCheap));
    QCOMPARE(dear, v.colourScale().colour(kDear));
    const int apart = std::abs(cheap.red() - dear.red()) + std::abs(cheap.green() - dear.green()) +
                      std::abs(cheap.blue() - dear.blue());
    QVERIFY2(apart > 150, qPrintable(QString::number(apart)));
    QVERIFY2(v.legendText().contains("$1.50 to $2.50") && v.legendText().contains("beyond"),
             qPrintable(v.legendText()));
  }

  void zoomKeepsTheHourUnderTheCursor() {
    OrderBookGridView v;
    v.resize(900, 520);
    v.setSnapshot(handMadeBook());
    v.setVisibleHours(kT0, 24);
    v.zoomBy(0.5, kT0 + 12);
    QCOMPARE(v.visibleHourCount(), 12.0);
    QCOMPARE(v.visibleFirstHour(), static_cast<double>(kT0 + 6));
  }

  void dragOnTheMainWindowOpensTheRightTicket() {
    LocalMarketOptions o;
    o.tickMs = 20;
    o.publishMs = 20;
    TradingSession session(std::make_unique<LocalMarketBackend>(ScriptedFeed::factory(), "trader", o));
    MainWindow w(session);
    w.resize(1500, 950);
    w.show();
    session.start();
    QTRY_VERIFY_WITH_TIMEOUT(
        w.grid()->model().column(kAskStart) && w.grid()->model().column(kAskStart)->askDepth() == 24, 5000);
    OrderBookGridView* g = w.grid();
    g->setVisibleHours(kT0, 24);
    // Two nodes (16 GPUs) over hours kT0+2 .. kT0+5.
    drag(g, g->pointOf(kAskStart + 0.1, 0.25), g->pointOf(kT0 + 5.9, 16.25));
    OrderTicket* t = w.ticket();
    QCOMPARE(t->kind(), TicketKind::AllOrNoneBuy);
    QCOMPARE(t->clusterId(), kCluster);
    QCOMPARE(t->gpus(), 16);
    QCOMPARE(t->start(), kAskStart);
    QCOMPARE(t->end(), kT0 + 6);
    // Each hour: 16 x $2.00 = $32; four hours = $128, average $2.00.
    const auto q = t->quote();
    QVERIFY(q);
    QCOMPARE(q->total, Money{128'000'000});
    QCOMPARE(q->availableGpuHours, 64);
    QVERIFY(q->allOrNoneNow);
    QCOMPARE(*q->averagePrice(), 2'000'000.0);
    QVERIFY2(t->quoteText().contains("$128.00"), qPrintable(t->quoteText()));
    QVERIFY2(t->quoteText().contains("Can fill all-or-none now"), qPrintable(t->quoteText()));
    QCOMPARE(t->limit(), Price{2'000'000});  // the limit that fills now, until the trader types one

    // More GPUs than are offered (four nodes: 32): it cannot fill all-or-none now.
    drag(g, g->pointOf(kAskStart + 0.1, 0.25), g->pointOf(kAskStart + 1.9, 32.25));
    QCOMPARE(t->gpus(), 32);
    QVERIFY(!t->quote()->allOrNoneNow);
    QCOMPARE(t->quote()->availableGpuHours, 48);
    QVERIFY2(t->quoteText().contains("Cannot fill all-or-none now"), qPrintable(t->quoteText()));
  }
};

QTEST_MAIN(TestOrderBookGridView)
#include "test_order_book_grid_view.moc"
