// The traded-price chart (ui/market/PriceChartWidget): its empty state explains itself in lines
// that fit a narrow dock and shows no made-up dates, and trades become points at their exchange
// hour on the tenor's line.
#include "ui/market/PriceChartWidget.h"

#include <QFontMetrics>
#include <QtTest>

#include <qcustomplot.h>

using namespace tessera;
using namespace tessera::ui;

namespace {

constexpr Hour kNow = 490'000;  // an exchange hour in 2025

QCPItemText* emptyNote(PriceChartWidget& w) { return w.plot()->findChild<QCPItemText*>("priceChartEmpty"); }

}  // namespace

class TestPriceChart : public QObject {
  Q_OBJECT
 private slots:
  // Mutation seen failing: the note's first two lines joined (495 px wide in a 363 px plot).
  // Without setTickLabels(!empty) the axis would show dates of January 1970.
  void emptyChartSaysWhyInLinesThatFitAndShowsNoDates() {
    PriceChartWidget w;
    w.resize(420, 320);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setClusters({7}, QStringLiteral("aurora-us-east-h100-a"));
    w.setTrades({});
    w.plot()->replot();
    QCPItemText* note = emptyNote(w);
    QVERIFY(note);
    QVERIFY(note->visible());
    QVERIFY(note->text().contains(QStringLiteral("aurora-us-east-h100-a")));
    const QFontMetrics fm(note->font());
    const int room = w.plot()->axisRect()->width();
    for (const QString& line : note->text().split('\n'))
      QVERIFY2(fm.horizontalAdvance(line) <= room, qPrintable(QStringLiteral("'%1' is %2 px wide, the plot %3 px")
                                                                  .arg(line)
                                                                  .arg(fm.horizontalAdvance(line))
                                                                  .arg(room)));
    QVERIFY(!w.plot()->xAxis->tickLabels());
    QVERIFY(!w.plot()->yAxis->tickLabels());
  }

  // x is seconds (the hour * 3600, mid-hour): an x of the hour itself lies in January 1970,
  // outside the checked range.
  void aTradeIsAPointAtItsExchangeHour() {
    PriceChartWidget w;
    w.resize(420, 320);
    w.setClusters({7}, QStringLiteral("aurora-us-east-h100-a"));
    std::deque<ui::TradePrint> trades;
    trades.push_back(ui::TradePrint{1, 7, 8, kNow + 2, kNow + 6, 2'500'000, kNow, Side::Buy, false});
    trades.push_back(
        ui::TradePrint{2, 9, 8, kNow + 2, kNow + 6, 9'000'000, kNow, Side::Buy, false});  // another cluster
    w.setTrades(trades);
    QCOMPARE(w.pointCount(Tenor::NextDay), 1);
    QVERIFY(!emptyNote(w)->visible());
    QVERIFY(w.plot()->xAxis->tickLabels());
    const QCPRange x = w.plot()->xAxis->range();
    QVERIFY(x.contains(static_cast<double>(kNow) * 3600.0 + 1800.0));
    QVERIFY(w.plot()->yAxis->range().contains(2.5));
  }
};

QTEST_MAIN(TestPriceChart)
#include "test_price_chart.moc"
