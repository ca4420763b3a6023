// The terminal on an exchange whose H100 cluster trades in calls (docs/protocol.md "Call mode"),
// with real key and mouse events: the ticket says the cluster trades in calls (and another
// cluster continuously), a bid entered through it waits at the exchange instead of trading
// against a crossing ask, and the grid shows the next call's indicative clearing and a countdown.
//
// Mutations seen failing: MainWindow not handing the call mode to the ticket (the label says
// "Continuously"); MainWindow not handing it to the grid (no indicative price, no banner).
#include "ExchangeTerminal.h"

#include "ui/grid/OrderBookGridView.h"
#include "ui/ticket/OrderTicket.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QLabel>
#include <QPushButton>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

constexpr Hour kStart = kNow + 3;
constexpr Hour kEnd = kNow + 5;

// The demo exchange with cluster 1 in calls, a call an hour (none falls within a test).
net::ExchangeConfig callConfig() {
  net::ExchangeConfig c = exchangeConfig();
  c.callMode.clusters = {c.clusters.front().name};
  c.callMode.periodSeconds = 3600;
  return c;
}

}  // namespace

class TestCallModeTerminal : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName("TesseraTest");
    QApplication::setApplicationName("test_call_mode_terminal");
    QSettings().clear();
  }

  void aBidWaitsForTheCallAndTheGridShowsItsClearing() {
    ExchangeTerminal t(callConfig(), {1600, 1000});
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10000);
    QApplication::setActiveWindow(t.window.get());
    QVERIFY(QTest::qWaitForWindowActive(t.window.get()));
    // The house provider's ask at $2.00 waits for the call too.
    t.exchange.inject(houseAsk(1, 8, kStart, kEnd, 2'000'000), "house-provider");
    OrderTicket* ticket = t.window->ticket();
    ticket->setKind(TicketKind::DivisibleBuy);
    auto* mode = ticket->findChild<QLabel*>("ticketTradingMode");
    auto* cluster = ticket->findChild<QComboBox*>("ticketCluster");
    QVERIFY(mode && cluster);
    QCOMPARE(cluster->currentData().toUInt(), kH100);
    QTRY_VERIFY2(mode->text().startsWith("In calls"), qPrintable(mode->text()));
    QVERIFY(mode->text().contains("the next call is in"));
    // Another cluster, chosen with the keyboard, trades continuously.
    cluster->setFocus();
    QTest::keyClick(cluster, Qt::Key_Down);
    QVERIFY(cluster->currentData().toUInt() != kH100);
    QVERIFY2(mode->text().startsWith("Continuously"), qPrintable(mode->text()));
    QTest::keyClick(cluster, Qt::Key_Up);
    QCOMPARE(cluster->currentData().toUInt(), kH100);

    ticket->findChild<QDateTimeEdit*>("ticketStart")->setDateTime(at(kStart));
    ticket->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(at(kEnd));
    retype(ticket->findChild<QLineEdit*>("ticketGpus"), "8");
    retype(ticket->findChild<QLineEdit*>("ticketLimit"), "3.00");
    auto* submit = ticket->findChild<QPushButton*>("ticketSubmit");
    QTRY_VERIFY2(submit->isEnabled(), qPrintable(ticket->problem()));
    QTest::mouseClick(submit, Qt::LeftButton);

    // At the exchange: the bid waits, whole, although the ask crosses it; nothing filled.
    QTRY_VERIFY_WITH_TIMEOUT(t.observer->workingOrders().size() == 1, 10000);
    QCOMPARE(t.observer->workingOrders().front().leavesGpuHours, std::int64_t{16});
    for (const net::OrderUpdate& u : t.observer->execs())
      QVERIFY(u.state != net::OrderState::Filled && u.state != net::OrderState::PartiallyFilled);

    // The grid: the call would trade both hours at $2.50; the banner counts down to the call.
    auto* grid = t.window->findChild<OrderBookGridView*>("orderBookGrid");
    QVERIFY(grid);
    QTRY_VERIFY_WITH_TIMEOUT(grid->indicativePrice(kStart) == std::optional<Price>(2'500'000), 10000);
    QCOMPARE(grid->indicativePrice(kEnd - 1), std::optional<Price>(2'500'000));
    QVERIFY2(grid->callBanner().startsWith("Call auction: next call in"), qPrintable(grid->callBanner()));
    QVERIFY2(grid->callBanner().contains("2 hour(s) would trade, up to 8 GPUs"), qPrintable(grid->callBanner()));
  }
};

QTEST_MAIN(TestCallModeTerminal)
#include "test_call_mode_terminal.moc"
