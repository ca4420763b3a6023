// The forwards dock: week choices follow the exchange clock, the ticket's margin and order,
// books shown for the selected class and week, positions' P&L marked to the index.
#include "ui/forwards/ForwardBookModel.h"
#include "ui/forwards/ForwardPositionsModel.h"
#include "ui/forwards/ForwardsPanel.h"

#include <QComboBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

class TestForwardsPanel : public QObject {
  Q_OBJECT

 private slots:
  void weeksAreTheComingMondays() {
    ForwardsPanel p;
    p.setNow(1000);
    QCOMPARE(p.selectedWeek(), Hour(1104));
    auto* weeks = p.findChildren<QComboBox*>().at(1);
    QCOMPARE(weeks->count(), 8);
    QCOMPARE(weeks->itemData(1).toLongLong(), qlonglong(1104 + 168));
    // The clock passing a Monday drops that week and keeps the chosen later one.
    weeks->setCurrentIndex(2);
    p.setNow(1110);
    QCOMPARE(p.selectedWeek(), Hour(1104 + 2 * 168));
    QCOMPARE(weeks->itemData(0).toLongLong(), qlonglong(1104 + 168));
  }

  void ticketSendsTheOrderWithItsMargin() {
    ForwardsPanel p;
    p.setNow(1000);
    p.setAvailable(true, {});
    QCOMPARE(ForwardsPanel::initialMargin(10'000, 2'000'000), Money(3'000'000'000));
    QSignalSpy spy(&p, &ForwardsPanel::submitRequested);
    QPushButton* sell = nullptr;
    for (auto* b : p.findChildren<QPushButton*>())
      if (b->text().startsWith("Sell")) sell = b;
    QVERIFY(sell);
    sell->click();
    QCOMPARE(spy.count(), 1);
    const auto o = spy.at(0).at(0).value<net::ForwardNewOrder>();
    QVERIFY(o.side == Side::Sell);
    QCOMPARE(o.weekStart, Hour(1104));
    QCOMPARE(o.gpuHours, std::int64_t(10'000));
    QCOMPARE(o.price, Price(2'000'000));
    QVERIFY(!o.clOrdId.empty());
    // Not connected: nothing can be sent.
    p.setAvailable(false, "offline");
    QVERIFY(!sell->isEnabled());
  }

  void bookModelShowsBestLevelsFirst() {
    ForwardBookModel m;
    m.setBook({Accelerator::H100, 1104, {{2'000'000, 500, 1}, {1'900'000, 800, 2}}, {{2'100'000, 300, 1}}});
    QCOMPARE(m.rowCount(), 2);
    QCOMPARE(m.data(m.index(0, ForwardBookModel::BidPrice), Qt::DisplayRole).toString(), QString("$2.00"));
    QCOMPARE(m.data(m.index(0, ForwardBookModel::AskPrice), Qt::DisplayRole).toString(), QString("$2.10"));
    QVERIFY(!m.data(m.index(1, ForwardBookModel::AskPrice), Qt::DisplayRole).isValid());
  }

  void positionsAreMarkedToTheIndex() {
    ForwardPositionsModel m;
    m.setPositions({{1, true, Accelerator::H100, 1104, 1'000, 2'000'000, "open", 300'000'000, 2'000'000},
                    {2, false, Accelerator::H100, 1104, 1'000, 2'200'000, "open", 330'000'000, 2'000'000},
                    {3, true, Accelerator::A100, 1104, 1'000, 1'000'000, "settled", 0, 1'500'000}});
    m.setIndex(Accelerator::H100, 2'100'000);
    QCOMPARE(m.data(m.index(0, ForwardPositionsModel::Pnl), ForwardPositionsModel::SortRole).toLongLong(),
             qlonglong(100'000'000));  // long: +0.10 x 1,000
    QCOMPARE(m.data(m.index(1, ForwardPositionsModel::Pnl), ForwardPositionsModel::SortRole).toLongLong(),
             qlonglong(100'000'000));  // short at 2.20: +0.10 x 1,000
    QCOMPARE(m.data(m.index(2, ForwardPositionsModel::Pnl), ForwardPositionsModel::SortRole).toLongLong(),
             qlonglong(500'000'000));  // settled: at its final mark
    QCOMPARE(m.totalOpenPnl(), Money(200'000'000));
  }
};

QTEST_MAIN(TestForwardsPanel)
#include "test_forwards_panel.moc"
