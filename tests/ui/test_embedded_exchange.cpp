// The default market: the embedded exchange server fed by the simulated market, traded through
// the exchange client. Its book reaches the grid, and an order entered in the ticket travels
// over the loopback connection, shows in the blotter, and cancels from its row.
#include "TestSettings.h"
#include "ui/blotter/BlotterWidget.h"
#include "core/cost/MarketOffers.h"
#include "ui/grid/OrderBookGridView.h"
#include "backtest/SimulatedClusters.h"
#include "ui/session/EmbeddedExchangeBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/OrderTicket.h"

#include <QDateTimeEdit>

#include <optional>

#include <atomic>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

class TestEmbeddedExchange : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_embedded_exchange", false); }

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
    // Six firm clusters and the interruptible books of those that have one.
    const std::size_t books = backtest::interruptibleClusters(backtest::simulatedClusters(6)).size();
    QVERIFY(books > 0);
    QTRY_VERIFY_WITH_TIMEOUT(session.clusters().size() == 6 + books, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(session.now() >= cfg.start, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(w.grid()->model().maxAskDepth() > 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(session.account().balance > 0, 10000);  // the balance reply comes after logon

    OrderTicket* t = w.ticket();
    t->setKind(TicketKind::DivisibleBuy);
    t->findChild<QLineEdit*>("ticketGpus")->setText(QString::number(3));
    const Hour start = session.now() + 48;
    t->findChild<QDateTimeEdit*>("ticketStart")
        ->setDateTime(QDateTime::fromSecsSinceEpoch(start * 3600, QTimeZone::utc()));
    t->findChild<QDateTimeEdit*>("ticketEnd")
        ->setDateTime(QDateTime::fromSecsSinceEpoch((start + 5) * 3600, QTimeZone::utc()));
    t->findChild<QLineEdit*>("ticketLimit")->setText(QString::number(0.05, 'f', 2));  // far below every ask: it rests
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

  // A contract bought on the exchange goes through settlement in the terminal: notices in the
  // Settlement tab, its state in the contracts table, escrow in the account; and the exchange's
  // price index reaches the index dock.
  void settlementAndTheIndexReachTheTerminal() {
    backtest::SimulatedMarketConfig cfg;
    cfg.seed = 7;
    cfg.clusterCount = 4;
    cfg.ticksPerHour = 30;
    TradingSession session(std::make_unique<EmbeddedExchangeBackend>(cfg, "trader", 20));
    QVERIFY(session.settlesContracts());
    QVERIFY(session.indexSource() == IndexSource::Exchange);
    MainWindow w(session);
    w.resize(1500, 950);
    w.show();
    session.start();
    QTRY_VERIFY_WITH_TIMEOUT(session.connection() == ConnectionState::Connected, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(w.grid()->model().maxAskDepth() > 0, 10000);
    QVERIFY(session.account().settlementKnown);

    // One GPU for one hour that is offered, a few hours out, at a limit that takes the ask.
    const OrderBookGridModel& m = w.grid()->model();
    std::optional<Hour> hour;
    for (Hour h = session.now() + 3; h < m.firstHour() + m.hours() && !hour; ++h) {
      if (m.column(h) && m.column(h)->askDepth() > 0) hour = h;
    }
    QVERIFY(hour);
    OrderTicket* t = w.ticket();
    t->setKind(TicketKind::DivisibleBuy);
    t->findChild<QLineEdit*>("ticketGpus")->setText(QString::number(1));
    t->findChild<QDateTimeEdit*>("ticketStart")
        ->setDateTime(QDateTime::fromSecsSinceEpoch(*hour * 3600, QTimeZone::utc()));
    t->findChild<QDateTimeEdit*>("ticketEnd")
        ->setDateTime(QDateTime::fromSecsSinceEpoch((*hour + 1) * 3600, QTimeZone::utc()));
    t->findChild<QLineEdit*>("ticketLimit")->setText(QString::number(90, 'f', 2));
    QStringList problems;
    connect(&session, &TradingSession::orderRejected, &w, [&](OrderId, const QString& why) { problems << why; });
    connect(&session, &TradingSession::errorOccurred, &w, [&](const QString& why) { problems << why; });
    connect(t, &OrderTicket::invalidOrder, &w, [&](const QString& why) { problems << why; });
    t->submit();
    QTRY_VERIFY2_WITH_TIMEOUT(!session.contracts().empty(),
                              qPrintable(problems.join("; ") + QString(" working %1 fills %2 cluster %3 watched %4")
                                                                   .arg(session.workingOrders().size())
                                                                   .arg(session.fills().size())
                                                                   .arg(t->clusterId())
                                                                   .arg(session.watchedClusters().front())),
                              10000);
    const ContractId id = session.contracts().front().id;
    // Escrow is paid at fill and the exchange says so.
    QTRY_VERIFY_WITH_TIMEOUT(session.statusOf(id) != nullptr, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!session.settlementNotes().empty(), 10000);
    QVERIFY(session.settlementNotes().front().contract == id);
    QTRY_VERIFY_WITH_TIMEOUT(w.blotter()->settlementNotes().rowCount() > 0, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(
        w.blotter()->contracts().index(0, ContractsModel::State).data().toString() != "awaiting status", 5000);
    // Once its hour is over the contract is delivered and settled, the escrow empty.
    QTRY_VERIFY_WITH_TIMEOUT(session.statusOf(id) && session.statusOf(id)->state == ContractState::Settled, 30000);
    // The notice brings the state; the escrow figure comes with the next positions reply.
    QTRY_COMPARE_WITH_TIMEOUT(session.statusOf(id)->escrow, Money{0}, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(w.blotter()->contracts().index(0, ContractsModel::State).data().toString(),
                              QString("settled"), 5000);
    // The simulated market trades, so the index has values by now.
    QTRY_VERIFY_WITH_TIMEOUT(!session.index().empty(), 10000);
  }
};

QTEST_MAIN(TestEmbeddedExchange)
#include "test_embedded_exchange.moc"
