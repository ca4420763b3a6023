// The option chain dock on a real exchange: once the H100 index is published the dock shows the
// first listed month's strikes with reference values in dollars; a click on a call's ask fills
// the order ticket with that series and the writer's premium and puts the focus on its notional,
// and Enter there trades it:
// checked at the exchange, where the trader now holds the option (a second client asks for
// positions).
#include "ExchangeTerminal.h"
#include "OffscreenScreen.h"
#include "OptionMember.h"
#include "ui/options/OptionChainPanel.h"
#include "ui/ticket/OrderTicket.h"

#include <QComboBox>
#include <QDockWidget>
#include <QRegularExpression>
#include <QScrollBar>
#include <QTableWidget>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

class TestOptionChainDock : public QObject {
  Q_OBJECT

 private slots:
  void clickAnAskThenBuyTradesTheOption() {
    ExchangeTerminal t;
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10'000);
    publishIndexAtTwoDollars(t);
    const auto first = indexoptions::listedPeriods(kNow + 1).front();
    const indexoptions::OptionSeries call{Accelerator::H100, indexoptions::OptionKind::Call, first.kind, first.start,
                                          2'000'000};
    // The forward dealer's account writes 100 GPU-hours of the $2.00 call at $0.40.
    OptionMember writer(t.exchange.port(), std::string(net::kForwardDealerAccount));
    QTRY_VERIFY_WITH_TIMEOUT(writer.loggedOn, 5'000);
    net::OptionNewOrder offer;
    offer.side = Side::Sell;
    offer.series = call;
    offer.gpuHours = 100;
    offer.premium = 400'000;
    writer.client->placeOption(offer);
    QTRY_VERIFY_WITH_TIMEOUT(writer.heard("option_accepted"), 5'000);

    auto* panel = t.window->findChild<OptionChainPanel*>();
    QVERIFY(panel);
    panel->parentWidget()->show();
    auto* table = panel->findChild<QTableWidget*>();
    auto* period = panel->findChildren<QComboBox*>().at(1);
    // The chain arrives (asked again after each book change) with the $2.00 strike's ask.
    int row = -1;
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                               row = -1;
                               for (int r = 0; r < table->rowCount(); ++r)
                                 if (table->item(r, OptionChainPanel::Strike) &&
                                     table->item(r, OptionChainPanel::Strike)->text() == "$2.00" &&
                                     table->item(r, OptionChainPanel::CallAsk) &&
                                     table->item(r, OptionChainPanel::CallAsk)->text() == "$0.40")
                                   row = r;
                               return row >= 0;
                             }()),
                             10'000);
    QCOMPARE(period->currentText(), QString::fromStdString(indexoptions::periodName(first)));
    QVERIFY(table->item(row, OptionChainPanel::CallValue)->text().startsWith("$0."));
    QVERIFY(table->item(row, OptionChainPanel::CallIv)->text().endsWith("%"));
    // A click on the ask fills the order ticket; Enter there sends it.
    QApplication::setActiveWindow(t.window.get());
    QVERIFY(QTest::qWaitForWindowActive(t.window.get()));
    const QRect cell = table->visualItemRect(table->item(row, OptionChainPanel::CallAsk));
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, cell.center());
    OrderTicket* ticket = t.window->ticket();
    QCOMPARE(ticket->kind(), TicketKind::Option);
    QVERIFY2(ticket->canSubmit(), qPrintable(ticket->problem()));
    // The focus is on the notional (the one thing the click did not choose): Enter sends.
    auto* notional = ticket->findChild<QLineEdit*>("optionGpuHours");
    QVERIFY(notional && notional->isVisible());
    QTRY_COMPARE(QApplication::focusWidget(), notional);
    QTest::keyClick(notional, Qt::Key_Return);

    // At the exchange: the ticket's 1,000 GPU-hours met the writer's 100 (the rest bids on), so
    // the trader is long 100 GPU-hours of the call at $0.40.
    OptionMember trader(t.exchange.port(), "trader");
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                               trader.client->requestOptionPositions();
                               QTest::qWait(100);
                               std::lock_guard lock(trader.mutex);
                               return trader.positions.size() == 1;
                             }()),
                             10'000);
    std::lock_guard lock(trader.mutex);
    const auto& p = trader.positions.front();
    QVERIFY(p.isLong);
    QVERIFY(p.series == call);
    QCOMPARE(p.gpuHours, std::int64_t(100));
    QCOMPARE(p.premium, Price(400'000));
  }

  // On a 1366 x 768 laptop screen, with the dock where the terminal puts it (the bottom, beside
  // the blotter): every column of the chain without scrolling sideways, at least six strikes in
  // view, each control at its full size inside the panel, and every price in dollars and cents.
  void readableOnALaptopScreen() {
    ExchangeTerminal t(QSize(1366, 768));
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10'000);
    publishIndexAtTwoDollars(t);
    QDockWidget* dock = nullptr;
    for (auto* d : t.window->findChildren<QDockWidget*>())
      if (d->objectName() == "optionsDock") dock = d;
    QVERIFY(dock);
    dock->raise();
    auto* panel = t.window->findChild<OptionChainPanel*>();
    auto* table = panel->findChild<QTableWidget*>();
    QTRY_VERIFY_WITH_TIMEOUT(table->rowCount() >= 7 && table->item(0, OptionChainPanel::CallValue), 10'000);
    QTest::qWait(200);
    const QString where = QStringLiteral("panel %1x%2, table viewport %3x%4")
                              .arg(panel->width())
                              .arg(panel->height())
                              .arg(table->viewport()->width())
                              .arg(table->viewport()->height());
    QVERIFY2(panel->isVisible(), qPrintable(where));
    // The first start gives the dock about 550 pixels beside the blotter: the panel needs less.
    QVERIFY2(panel->minimumSizeHint().width() <= 540,
             qPrintable(where + QStringLiteral(", needs %1").arg(panel->minimumSizeHint().width())));
    QVERIFY2(table->horizontalScrollBar()->maximum() == 0, qPrintable(where));
    QVERIFY2(table->viewport()->height() >= 6 * table->rowHeight(0), qPrintable(where));
    for (auto* w : panel->findChildren<QWidget*>()) {
      if (!w->isVisible() || w->parentWidget() != panel) continue;
      QVERIFY2(panel->rect().contains(w->geometry()), qPrintable(where + ", " + w->metaObject()->className()));
      if (qobject_cast<QComboBox*>(w))
        QVERIFY2(w->width() >= w->sizeHint().width(), qPrintable(where + ", " + w->metaObject()->className()));
    }
    const QRegularExpression dollars(QStringLiteral("^(\\$[0-9,]+\\.[0-9]{2}|–)$"));
    for (int r = 0; r < table->rowCount(); ++r)
      for (int c : {int(OptionChainPanel::CallBid), int(OptionChainPanel::CallAsk), int(OptionChainPanel::CallValue),
                    int(OptionChainPanel::Strike), int(OptionChainPanel::PutBid), int(OptionChainPanel::PutAsk),
                    int(OptionChainPanel::PutValue)})
        if (auto* item = table->item(r, c)) QVERIFY2(dollars.match(item->text()).hasMatch(), qPrintable(item->text()));
  }
};

int main(int argc, char** argv) {
  return tessera::ui::testing::runOnOffscreenScreen<TestOptionChainDock>(QSize(1366, 768), argc, argv);
}
#include "test_option_chain_dock.moc"
