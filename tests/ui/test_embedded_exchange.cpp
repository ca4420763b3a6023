// The default market: the embedded exchange server fed by the simulated market, traded through
// the exchange client. Its book reaches the grid, and an order entered in the ticket travels
// over the loopback connection, shows in the blotter, and cancels from its row.
#include "ui/blotter/BlotterWidget.h"
#include "core/cost/MarketOffers.h"
#include "ui/grid/OrderBookGridView.h"
#include "ui/session/EmbeddedExchangeBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/OrderTicket.h"

#include <QDateTimeEdit>

#include <atomic>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

class TestEmbeddedExchange : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName("TesseraTest");
    QApplication::setApplicationName("test_embedded_exchange");
  }

  void ordersTravelThroughTheExchange() {
    backtest::SimulatedMarketConfig cfg;
    cfg.seed = 5;
    cfg.clusterCount = 6;
    cfg.ticksPerHour = 60;
    TradingSession session(std::make_unique<EmbeddedExchangeBackend>(cfg, "trader", 20));
    MainWindow w(session);
    w.resize(1500, 950);
    w.show();
    session.start();
    QTRY_VERIFY_WITH_TIMEOUT(session.connection() == ConnectionState::Connected, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(session.clusters().size() == 6, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(session.now() >= cfg.start, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(w.grid()->model().maxAskDepth() > 0, 10000);
    QVERIFY(session.account().balance > 0);

    OrderTicket* t = w.ticket();
    t->setKind(TicketKind::DivisibleBuy);
    t->findChild<QSpinBox*>("ticketGpus")->setValue(3);
    const Hour start = session.now() + 48;
    t->findChild<QDateTimeEdit*>("ticketStart")->setDateTime(QDateTime::fromSecsSinceEpoch(start * 3600, QTimeZone::utc()));
    t->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(QDateTime::fromSecsSinceEpoch((start + 5) * 3600, QTimeZone::utc()));
    t->findChild<QDoubleSpinBox*>("ticketLimit")->setValue(0.05);  // far below every ask: it rests
    t->submit();
    QTableView* orders = w.blotter()->ordersView();
    QTRY_COMPARE_WITH_TIMEOUT(orders->model()->rowCount(), 1, 10000);
    QCOMPARE(orders->model()->index(0, WorkingOrdersModel::Gpus).data().toString(), QString("3"));
    QCOMPARE(orders->model()->index(0, WorkingOrdersModel::Limit).data().toString(), QString("$0.05"));
    QTRY_VERIFY_WITH_TIMEOUT(session.lastLatencyMs() > 0, 5000);
    orders->selectRow(0);
    w.blotter()->cancelSelected();
    QTRY_COMPARE_WITH_TIMEOUT(orders->model()->rowCount(), 0, 10000);

    // The planner's engine queries work on the client's copy of the book too.
    std::atomic<std::size_t> levels = 0;
    std::atomic<bool> done = false;
    session.runOnBook([&](const Matcher& book) {
      for (const Cluster& c : book.clusters())
        for (Hour h = book.now(); h < book.now() + 168; ++h) levels += book.depth(c.id, h, Side::Sell, 64).size();
      done = true;
    });
    QTRY_VERIFY(done);
    QVERIFY(levels > 0);
  }
};

QTEST_MAIN(TestEmbeddedExchange)
#include "test_embedded_exchange.moc"
