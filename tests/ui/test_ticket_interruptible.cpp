// The ticket's Capacity control against a real exchange server, with real key and mouse events:
// a constraint buy the trader switches to Interruptible (with its checkpoint interval) fills on
// the interruptible book and the exchange holds that contract; choosing the interruptible
// cluster sets the control to Interruptible, and switching it back to Firm is refused by the
// ticket with the reason, nothing sent.
//
// Mutations seen failing: OrderTicket::order() not setting `interruptible` from the control
// (the constraint buy rests instead of filling: constraintBuyAcceptsInterruptible...); the
// cluster combo not moving the control (theControlFollowsTheCluster...).
#include "ExchangeTerminal.h"

#include "ui/ticket/OrderTicket.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QPushButton>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

constexpr ClusterId kSpot = 4;
constexpr Hour kStart = kNow + 3;
constexpr Hour kEnd = kNow + 9;

// The demo exchange with cluster 1's interruptible book (cluster 4, two hours' notice): the
// house provider's 256 GPUs of cluster 1 split into 128 firm and 128 interruptible.
net::ExchangeConfig interruptibleConfig() {
  net::ExchangeConfig c = exchangeConfig();
  Cluster spot = c.clusters.front();
  spot.id = kSpot;
  spot.name = "us-east-h100-a-interruptible";
  spot.interruptibleOf = kH100;
  spot.noticeHours = 2;
  c.clusters.push_back(spot);
  c.grants.front().gpus = 128;
  net::GrantConfig g = c.grants.front();
  g.cluster = spot.name;
  c.grants.push_back(g);
  return c;
}

OrderRequest spotAsk(OrderId id, GpuCount gpus, Price price) {
  OrderRequest a = houseAsk(id, gpus, kStart, kEnd, price);
  a.cluster = kSpot;
  a.interruptible = true;
  return a;
}

void fillWindow(OrderTicket* ticket, const QString& gpus, const QString& limit) {
  ticket->findChild<QDateTimeEdit*>("ticketStart")->setDateTime(at(kStart));
  ticket->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(at(kEnd));
  retype(ticket->findChild<QLineEdit*>("ticketGpus"), gpus);
  retype(ticket->findChild<QLineEdit*>("ticketLimit"), limit);
}

}  // namespace

class TestTicketInterruptible : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName("TesseraTest");
    QApplication::setApplicationName("test_ticket_interruptible");
    QSettings().clear();
  }

  void constraintBuyAcceptsInterruptibleAndFillsThere() {
    ExchangeTerminal t(interruptibleConfig(), {1600, 1000});
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10000);
    QApplication::setActiveWindow(t.window.get());
    QVERIFY(QTest::qWaitForWindowActive(t.window.get()));
    // Only interruptible capacity is offered: 8 GPUs at $1.20.
    t.exchange.inject(spotAsk(1, 8, 1'200'000), "house-provider");
    OrderTicket* ticket = t.window->ticket();
    ticket->setKind(TicketKind::ConstraintBuy);
    auto* capacity = ticket->findChild<QComboBox*>("ticketCapacity");
    auto* checkpoint = ticket->findChild<QLineEdit*>("ticketCheckpoint");
    QVERIFY(capacity && checkpoint);
    QCOMPARE(capacity->currentText(), QString("Firm"));
    QVERIFY(!checkpoint->isVisible());  // firm capacity: no checkpoint asked
    fillWindow(ticket, "8", "2.00");
    retype(ticket->findChild<QLineEdit*>("ticketDuration"), "6");  // the whole window
    // The trader switches to Interruptible with the keyboard; the checkpoint field appears.
    capacity->setFocus();
    QTest::keyClick(capacity, Qt::Key_Down);
    QVERIFY(capacity->currentText().startsWith("Interruptible"));
    QTRY_VERIFY(checkpoint->isVisible());
    retype(checkpoint, "2");
    auto* submit = ticket->findChild<QPushButton*>("ticketSubmit");
    QTRY_VERIFY2(submit->isEnabled(), qPrintable(ticket->problem()));
    QTest::mouseClick(submit, Qt::LeftButton);
    // The exchange made the contract on the interruptible book.
    QTRY_VERIFY_WITH_TIMEOUT(!t.session->contracts().empty(), 10000);
    QCOMPARE(t.session->contracts().front().cluster, kSpot);
    QCOMPARE(t.session->contracts().front().gpus, GpuCount{8});
    QVERIFY(t.observer->workingOrders().empty());
  }

  void theControlFollowsTheClusterAndAFirmOrderThereIsRefused() {
    ExchangeTerminal t(interruptibleConfig(), {1600, 1000});
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10000);
    QApplication::setActiveWindow(t.window.get());
    QVERIFY(QTest::qWaitForWindowActive(t.window.get()));
    OrderTicket* ticket = t.window->ticket();
    ticket->setKind(TicketKind::DivisibleBuy);
    auto* capacity = ticket->findChild<QComboBox*>("ticketCapacity");
    auto* cluster = ticket->findChild<QComboBox*>("ticketCluster");
    const int spotRow = cluster->findData(kSpot);
    QVERIFY(spotRow >= 0);
    QVERIFY(cluster->itemText(spotRow).contains("interruptible, 2 h notice"));
    fillWindow(ticket, "4", "2.00");
    // Choosing the interruptible cluster sets the control to Interruptible.
    cluster->setFocus();
    while (cluster->currentIndex() < spotRow) QTest::keyClick(cluster, Qt::Key_Down);
    QVERIFY(capacity->currentText().startsWith("Interruptible"));
    // Back to Firm on that cluster: the ticket refuses with the reason and sends nothing.
    capacity->setFocus();
    QTest::keyClick(capacity, Qt::Key_Up);
    QCOMPARE(capacity->currentText(), QString("Firm"));
    auto* submit = ticket->findChild<QPushButton*>("ticketSubmit");
    QTRY_VERIFY(ticket->problem().contains("interruptible capacity"));
    QTest::mouseClick(submit, Qt::LeftButton);
    QTest::qWait(300);
    QVERIFY(t.observer->workingOrders().empty());
    QVERIFY(t.observer->execs().empty());
  }
};

QTEST_MAIN(TestTicketInterruptible)
#include "test_ticket_interruptible.moc"
