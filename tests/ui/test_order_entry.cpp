// Orders entered in the GUI reach the embedded exchange and come back into the blotter:
// a resting bid appears in working orders and can be cancelled from its row, a crossing
// all-or-none buy fills and shows as fills, a contract and cash spent, a rejected order
// raises an error dialog.
#include "TestSettings.h"
#include "GuiTestSupport.h"
#include "ScriptedMarket.h"

#include "ui/blotter/BlotterWidget.h"
#include "ui/session/LocalMarketBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/OrderTicket.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QDoubleSpinBox>
#include <QMessageBox>
#include <QPushButton>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

constexpr Money kCash = 10'000'000LL * kMicrosPerDollar;

struct Terminal {
  TradingSession session;
  MainWindow window;
  explicit Terminal(LocalMarketOptions o =
                        [] {
                          LocalMarketOptions x;
                          x.tickMs = 20;
                          x.publishMs = 20;
                          x.startingCash = kCash;
                          return x;
                        }())
      : session(std::make_unique<LocalMarketBackend>(ScriptedFeed::factory(), "trader", o)), window(session) {
    window.resize(1500, 950);
    window.show();
    session.start();
  }
};

void fillTicket(OrderTicket* t, TicketKind kind, int gpus, Hour start, Hour end, double limit) {
  t->setKind(kind);
  t->findChild<QLineEdit*>("ticketGpus")->setText(QString::number(gpus));
  t->findChild<QDateTimeEdit*>("ticketStart")
      ->setDateTime(QDateTime::fromSecsSinceEpoch(start * 3600, QTimeZone::utc()));
  t->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(QDateTime::fromSecsSinceEpoch(end * 3600, QTimeZone::utc()));
  t->findChild<QLineEdit*>("ticketLimit")->setText(QString::number(limit, 'f', 2));
}

QString cell(QTableView* v, int row, int col) { return v->model()->index(row, col).data().toString(); }

}  // namespace

class TestOrderEntry : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_order_entry", false); }

  void restingBidShowsInTheBlotterAndCancelsFromItsRow() {
    Terminal t;
    QTRY_COMPARE_WITH_TIMEOUT(t.session.now(), kT0, 5000);
    QTRY_VERIFY(!t.session.clusters().empty());
    OrderTicket* ticket = t.window.ticket();
    // A divisible bid below every ask: it rests.
    fillTicket(ticket, TicketKind::DivisibleBuy, 4, kT0 + 12, kT0 + 20, 1.50);
    QTest::mouseClick(ticket->findChild<QPushButton*>("ticketSubmit"), Qt::LeftButton);
    QTableView* orders = t.window.blotter()->ordersView();
    QTRY_COMPARE_WITH_TIMEOUT(orders->model()->rowCount(), 1, 5000);
    QCOMPARE(cell(orders, 0, WorkingOrdersModel::Side), QString("Buy"));
    QCOMPARE(cell(orders, 0, WorkingOrdersModel::Gpus), QString("4"));
    QCOMPARE(cell(orders, 0, WorkingOrdersModel::Limit), QString("$1.50"));
    QCOMPARE(cell(orders, 0, WorkingOrdersModel::Cluster), QString("test-us-east-h100"));
    QCOMPARE(cell(orders, 0, WorkingOrdersModel::Leaves), QString("32"));
    // What the blotter shows is the engine's own view of the order.
    QCOMPARE(t.session.workingOrders().size(), 1u);
    QCOMPARE(t.session.workingOrders().front().request.limit, Price{1'500'000});
    QCOMPARE(t.session.account().reserved, Money{32 * 1'500'000});
    QVERIFY(t.session.lastLatencyMs() > 0);

    orders->selectRow(0);
    orders->setFocus();
    t.window.blotter()->cancelSelected();
    QTRY_COMPARE_WITH_TIMEOUT(orders->model()->rowCount(), 0, 5000);
    QVERIFY(t.session.workingOrders().empty());
  }

  void enterSubmitsFromTheTicket() {
    Terminal t;
    QTRY_COMPARE_WITH_TIMEOUT(t.session.now(), kT0, 5000);
    QTRY_VERIFY(!t.session.clusters().empty());
    QApplication::setActiveWindow(&t.window);
    QVERIFY(QTest::qWaitForWindowActive(&t.window));
    OrderTicket* ticket = t.window.ticket();
    fillTicket(ticket, TicketKind::DivisibleBuy, 2, kT0 + 30, kT0 + 33, 1.25);
    auto* gpus = ticket->findChild<QLineEdit*>("ticketGpus");
    gpus->setFocus();
    QTest::keyClick(gpus, Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(t.window.blotter()->ordersView()->model()->rowCount(), 1, 5000);
    QCOMPARE(t.session.workingOrders().front().request.gpus, 2);
  }

  void crossingAllOrNoneBuyFillsAndShowsAsAContract() {
    Terminal t;
    QTRY_COMPARE_WITH_TIMEOUT(t.session.now(), kT0, 5000);
    QTRY_VERIFY(!t.session.clusters().empty());
    OrderTicket* ticket = t.window.ticket();
    // 20 GPUs x 4 h costs $168 at an average of $2.10: a $2.20 average bound fills.
    fillTicket(ticket, TicketKind::AllOrNoneBuy, 20, kAskStart, kAskStart + 4, 2.20);
    ticket->submit();
    BlotterWidget* b = t.window.blotter();
    QTRY_VERIFY_WITH_TIMEOUT(b->fills().rowCount() >= 1, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(b->contracts().rowCount() >= 1, 5000);
    Money spent = 0;
    GpuCount gpus = 0;
    for (int r = 0; r < b->fills().rowCount(); ++r) {
      const Fill* f = b->fills().fillAt(r);
      QVERIFY(f->side == Side::Buy);
      spent += f->price * f->gpus * (f->end - f->start);
      gpus += f->gpus;
    }
    QCOMPARE(spent, Money{168'000'000});
    QTRY_COMPARE_WITH_TIMEOUT(t.session.account().balance, kCash - 168'000'000, 5000);
    QCOMPARE(b->workingOrders().rowCount(), 0);
    // The book lost what we took: 4 GPUs at $2.50 remain in those hours.
    // The grid's snapshot may not cover that hour yet while the worker rebuilds it under load.
    auto askDepth = [&] {
      const GridColumn* c = t.window.grid()->model().column(kAskStart);
      return c ? c->askDepth() : -1;
    };
    QTRY_COMPARE_WITH_TIMEOUT(askDepth(), 4, 5000);

    // Sell part of the held contract back: it rests as a sell-back order above the asks.
    QTRY_VERIFY_WITH_TIMEOUT(!ticket->findChild<QComboBox*>("ticketContract")->currentText().isEmpty(), 5000);
    ticket->setKind(TicketKind::SellBack);
    QCOMPARE(ticket->clusterId(), kCluster);
    ticket->findChild<QLineEdit*>("ticketGpus")->setText(QString::number(5));
    ticket->findChild<QLineEdit*>("ticketLimit")->setText(QString::number(3.00, 'f', 2));
    const auto o = ticket->order();
    QVERIFY(std::holds_alternative<OrderRequest>(o));
    QVERIFY(std::get<OrderRequest>(o).sellBack.has_value());
    ticket->submit();
    QTRY_COMPARE_WITH_TIMEOUT(b->workingOrders().rowCount(), 1, 5000);
    const OrderView* sell = b->workingOrders().orderAt(0);
    QVERIFY(sell->request.side == Side::Sell);
    QVERIFY(sell->request.sellBack.has_value());
    QCOMPARE(sell->request.gpus, 5);
    QVERIFY(b->workingOrders().index(0, WorkingOrdersModel::Type).data().toString().contains("sell-back"));
  }

  void rejectedOrderRaisesAnErrorDialog() {
    Terminal t;
    QTRY_COMPARE_WITH_TIMEOUT(t.session.now(), kT0, 5000);
    QTRY_VERIFY(!t.session.clusters().empty());
    OrderTicket* ticket = t.window.ticket();
    ticket->setConfirmAboveGpuHours(1'000'000);
    // A sell of capacity the trader neither owns nor holds.
    fillTicket(ticket, TicketKind::DivisibleSell, 4, kAskStart, kAskStart + 2, 2.0);
    ticket->submit();
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = t.window.findChild<QMessageBox*>()) != nullptr && box->isVisible(), 5000);
    QVERIFY2(box->text().contains("did not accept"), qPrintable(box->text()));
    box->close();
    QCOMPARE(t.window.blotter()->ordersView()->model()->rowCount(), 0);
  }
};

QTEST_MAIN(TestOrderEntry)
#include "test_order_entry.moc"
