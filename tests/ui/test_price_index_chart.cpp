// The price index chart: lines per accelerator class from index values (stale values apart
// from fresh ones, lines broken where one kind takes over), the dock's graphs, legend and table
// of current values, and the in-process market computing the index from its own trades.
#include "ScriptedMarket.h"

#include "ui/market/PriceIndexSeries.h"
#include "ui/market/PriceIndexWidget.h"
#include "ui/session/LocalMarketBackend.h"
#include "ui/shell/DisplayFormat.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

#include <qcustomplot.h>

#include <cmath>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

void add(IndexHistory& h, Accelerator a, Tenor t, Hour asOf, Price p, bool stale) {
  h[IndexKey{a, t, asOf}] = IndexPoint{a, t, asOf, p, stale ? 0 : 64, stale ? 0 : 2, stale};
}

// H100 next day: fresh 0-2, stale 3-4, fresh 5; A100 next day: fresh 0-1; H200 next week only.
IndexHistory history() {
  IndexHistory h;
  for (Hour i = 0; i < 3; ++i) add(h, Accelerator::H100, Tenor::NextDay, kT0 + i, 2'000'000 + i * 100'000, false);
  add(h, Accelerator::H100, Tenor::NextDay, kT0 + 3, 2'200'000, true);
  add(h, Accelerator::H100, Tenor::NextDay, kT0 + 4, 2'200'000, true);
  add(h, Accelerator::H100, Tenor::NextDay, kT0 + 5, 2'500'000, false);
  add(h, Accelerator::A100, Tenor::NextDay, kT0, 1'100'000, false);
  add(h, Accelerator::A100, Tenor::NextDay, kT0 + 1, 1'200'000, false);
  add(h, Accelerator::H200, Tenor::NextWeek, kT0, 3'000'000, false);
  return h;
}

int nanCount(const QVector<double>& v) {
  int n = 0;
  for (double x : v) n += std::isnan(x) ? 1 : 0;
  return n;
}

}  // namespace

class TestPriceIndexChart : public QObject {
  Q_OBJECT
 private slots:
  void oneLinePerClassOfTheTenor() {
    const auto lines = indexLines(history(), Tenor::NextDay);
    QCOMPARE(lines.size(), 2u);
    // Accelerator order: A100 before H100.
    QVERIFY(lines[0].accelerator == Accelerator::A100);
    QVERIFY(lines[1].accelerator == Accelerator::H100);
    QCOMPARE(lines[0].freshPoints, 2);
    QCOMPARE(lines[0].stalePoints, 0);
    QVERIFY(lines[0].staleX.isEmpty());
    QCOMPARE(lines[0].latest.price, Price{1'200'000});
    const auto week = indexLines(history(), Tenor::NextWeek);
    QCOMPARE(week.size(), 1u);
    QVERIFY(week[0].accelerator == Accelerator::H200);
    QVERIFY(indexLines(history(), Tenor::NextMonth).empty());
  }

  void staleValuesAreKeptApartFromFreshOnes() {
    const IndexLine h100 = indexLines(history(), Tenor::NextDay)[1];
    QCOMPARE(h100.freshPoints, 4);
    QCOMPARE(h100.stalePoints, 2);
    // Fresh: 3 values, a break, the value after the stale run.
    QCOMPARE(h100.freshX.size(), 5);
    QCOMPARE(nanCount(h100.freshY), 1);
    QVERIFY(std::isnan(h100.freshY[3]));
    QCOMPARE(h100.freshY[4], 2.5);
    // Stale: starts at the fresh value it carries forward, then the two stale hours.
    QCOMPARE(h100.staleX.size(), 3);
    QCOMPARE(h100.staleX[0], indexTimeOf(kT0 + 2));
    QCOMPARE(h100.staleY[0], 2.2);
    QCOMPARE(h100.staleX[2], indexTimeOf(kT0 + 4));
    QCOMPARE(nanCount(h100.staleY), 0);
    QVERIFY(h100.latest.asOf == kT0 + 5 && !h100.latest.stale);
    // Keys stay sorted so the chart can take them as they are.
    QVERIFY(std::is_sorted(h100.freshX.begin(), h100.freshX.end()));
    QVERIFY(std::is_sorted(h100.staleX.begin(), h100.staleX.end()));
    // The value as of hour h is drawn at the end of that hour.
    QCOMPARE(indexTimeOf(kT0), double(kT0 + 1) * 3600.0);
  }

  void twoStaleRunsAreTwoPiecesOfLine() {
    IndexHistory h;
    add(h, Accelerator::H100, Tenor::NextDay, kT0, 2'000'000, false);
    add(h, Accelerator::H100, Tenor::NextDay, kT0 + 1, 2'000'000, true);
    add(h, Accelerator::H100, Tenor::NextDay, kT0 + 2, 2'100'000, false);
    add(h, Accelerator::H100, Tenor::NextDay, kT0 + 3, 2'100'000, true);
    const IndexLine l = indexLines(h, Tenor::NextDay).front();
    QCOMPARE(l.stalePoints, 2);
    QCOMPARE(nanCount(l.staleY), 1);
    QVERIFY(std::is_sorted(l.staleX.begin(), l.staleX.end()));
  }

  void dockDrawsALinePerClassAndTheCurrentValues() {
    PriceIndexWidget w;
    w.resize(900, 360);
    w.setSource(IndexSource::Exchange);
    w.setHistory(history());
    // H100 fresh + H100 stale + A100 fresh; the stale line is not a legend entry of its own.
    QCOMPARE(w.plot()->graphCount(), 3);
    QCOMPARE(w.plot()->legend->itemCount(), 2);
    QCOMPARE(w.plot()->graph(0)->name(), QString("A100"));
    QCOMPARE(w.plot()->yAxis->label(), QString("$/GPU-hour"));
    QCOMPARE(w.table()->rowCount(), 2);
    QCOMPARE(w.table()->item(1, 0)->text(), QString("H100"));
    QCOMPARE(w.table()->item(1, 1)->text(), QString("$2.50"));
    QCOMPARE(w.table()->item(1, 2)->text(), QString("64"));
    QCOMPARE(w.table()->item(1, 3)->text(), QString("2"));
    QVERIFY(w.sourceLabel()->text().contains("published by the exchange"));
    QVERIFY(w.note()->text().contains(formatHour(kT0 + 6)));

    w.setTenor(Tenor::NextMonth);
    QCOMPARE(w.plot()->graphCount(), 0);
    QCOMPARE(w.table()->rowCount(), 0);
    QVERIFY(w.note()->text().contains("No value in this tenor yet"));
    w.setTenor(Tenor::NextWeek);
    QCOMPARE(w.plot()->graphCount(), 1);

    // A stale current value says so in the table.
    IndexHistory h;
    add(h, Accelerator::MI300X, Tenor::NextWeek, kT0, 1'900'000, true);
    w.setHistory(h);
    QVERIFY(w.table()->item(0, 1)->text().contains("stale"));
  }

  void inProcessMarketComputesTheIndexFromItsTrades() {
    LocalMarketOptions o;
    o.tickMs = 1000 * 60;  // this test steps the market itself
    LocalMarketBackend b(ScriptedFeed::factory(), "trader", o);
    QVERIFY(b.indexSource() == IndexSource::ComputedLocally);
    QVERIFY(!b.settlesContracts());
    std::vector<IndexPoint> got;
    connect(&b, &MarketBackend::indexPublished, &b,
            [&got](const std::vector<IndexPoint>& s) { got.insert(got.end(), s.begin(), s.end()); });
    b.start();  // the scripted market: clock kT0, asks from kT0 + 2
    OrderRequest buy;
    buy.id = 100;
    buy.side = Side::Buy;
    buy.fill = FillStyle::Divisible;
    buy.cluster = kCluster;
    buy.gpus = 4;
    buy.start = kAskStart;
    buy.end = kAskStart + 2;
    buy.limit = kCheap;
    b.submit(buy);  // 8 GPU-hours at $2.00, delivery 2 h ahead: the next-day index
    b.inject({ClockAdvance{kT0 + 1}});
    b.publishNow();
    QCOMPARE(got.size(), 1u);
    QVERIFY(got[0].accelerator == Accelerator::H100);
    QVERIFY(got[0].tenor == Tenor::NextDay);
    QCOMPARE(got[0].asOf, kT0);
    QCOMPARE(got[0].price, kCheap);
    QCOMPARE(got[0].gpuHours, std::int64_t{8});
    QCOMPARE(got[0].trades, 1);
    QVERIFY(!got[0].stale);
    // A day on with no more trades: the value is carried, flagged stale.
    got.clear();
    b.inject({ClockAdvance{kT0 + 30}});
    b.publishNow();
    QCOMPARE(got.size(), 29u);  // hours kT0 + 1 .. kT0 + 29
    int stale = 0;
    for (const IndexPoint& s : got) stale += s.stale ? 1 : 0;
    QCOMPARE(stale, 6);  // the trade at kT0 leaves the 24 h window after hour kT0 + 23
    QCOMPARE(got.back().price, kCheap);
    b.stop();
  }
};

QTEST_MAIN(TestPriceIndexChart)
#include "test_price_index_chart.moc"
