// The order ticket's option mode against a real exchange server, with real key and mouse events:
// a trader picks "Option on the price index", types a series, a notional and a premium, sees the
// reference value, delta and implied volatility in dollars, and presses Enter; what reached the
// exchange is read by a second session (the trader's option positions and working orders).
//
// Mutations seen failing: OptionTicketForm::order() sending a call whatever the Call/put control
// says (typedPutReachesTheExchangeOnce: the order meets no offer, no position); OrderTicket::
// submitOption() not remembering the order sent (typedPutReachesTheExchangeOnce: the second
// Enter sends it again); referenceText() pricing an unlisted strike on a forward 5% above
// the chain's (anUnlistedStrikeIsPricedAsTheExchangePricesIt: $0.07 against the exchange's $0.04);
// OptionChainPanel::pickCell giving Buy for a bid (aClickOnTheChainFillsTheTicket: the side
// reads Buy).
#include "ExchangeTerminal.h"
#include "OffscreenScreen.h"
#include "OptionMember.h"

#include "ui/options/OptionChainPanel.h"
#include "ui/ticket/OptionTicketForm.h"
#include "ui/ticket/OrderTicket.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QTableWidget>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

using indexoptions::OptionKind;

indexoptions::OptionSeries firstMonth(OptionKind kind, Price strike) {
  const auto first = indexoptions::listedPeriods(kNow + 1).front();
  return {Accelerator::H100, kind, first.kind, first.start, strike};
}

// The writer (the forward dealer's account) offers `gpuHours` of `s` at `premium`.
void offer(OptionMember& writer, const indexoptions::OptionSeries& s, std::int64_t gpuHours, Price premium) {
  net::OptionNewOrder o;
  o.side = Side::Sell;
  o.series = s;
  o.gpuHours = gpuHours;
  o.premium = premium;
  writer.client->placeOption(o);
}

// The ticket in option mode, chosen as a trader does: the order-type list, End (its last entry).
OptionTicketForm* optionTicket(ExchangeTerminal& t) {
  QApplication::setActiveWindow(t.window.get());
  if (!QTest::qWaitForWindowActive(t.window.get())) return nullptr;
  OrderTicket* ticket = t.window->ticket();
  auto* kind = ticket->findChild<QComboBox*>("ticketKind");
  kind->setFocus();
  QTest::keyClick(kind, Qt::Key_End);
  if (ticket->kind() != TicketKind::Option) return nullptr;
  return ticket->optionForm();
}

QString referenceOf(OptionTicketForm* form) { return form->findChild<QLabel*>("optionReference")->text(); }

}  // namespace

class TestTicketOption : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName("TesseraTest");
    QApplication::setApplicationName("test_ticket_option");
    QSettings().clear();
  }

  // A put typed field by field, sent with Enter, bought from the writer's offer; Enter again
  // sends nothing more.
  void typedPutReachesTheExchangeOnce() {
    ExchangeTerminal t;
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10'000);
    publishIndexAtTwoDollars(t);
    const auto put = firstMonth(OptionKind::Put, 1'900'000);
    OptionMember writer(t.exchange.port(), std::string(net::kForwardDealerAccount));
    QTRY_VERIFY_WITH_TIMEOUT(writer.loggedOn, 5'000);
    offer(writer, put, 40, 150'000);
    QTRY_VERIFY_WITH_TIMEOUT(writer.heard("option_accepted"), 5'000);

    OptionTicketForm* form = optionTicket(t);
    QVERIFY(form);
    OrderTicket* ticket = t.window->ticket();
    // Only the option's fields show: no cluster, GPUs or window of a capacity order.
    QVERIFY(form->isVisible());
    QVERIFY(!ticket->findChild<QComboBox*>("ticketCluster")->isVisible());
    QVERIFY(!ticket->findChild<QLineEdit*>("ticketGpus")->isVisible());
    auto* period = form->findChild<QComboBox*>("optionPeriod");
    QCOMPARE(period->currentText(), QString::fromStdString(indexoptions::periodName(put.period())));
    auto* kind = form->findChild<QComboBox*>("optionKind");
    kind->setFocus();
    QTest::keyClick(kind, Qt::Key_Down);
    QVERIFY(kind->currentText().startsWith("Put"));
    retype(form->findChild<QLineEdit*>("optionStrike"), "1.90");
    retype(form->findChild<QLineEdit*>("optionGpuHours"), "40");
    auto* premium = form->findChild<QLineEdit*>("optionPremium");
    retype(premium, "0.15");
    // The exchange's chain reaches the ticket: value, delta and the book in dollars.
    QTRY_VERIFY_WITH_TIMEOUT(referenceOf(form).contains("ask $0.15"), 10'000);
    const QString ref = referenceOf(form);
    QVERIFY2(QRegularExpression("Reference value \\$0\\.[0-9]{2}/GPU-h").match(ref).hasMatch(), qPrintable(ref));
    QVERIFY2(QRegularExpression("delta -0\\.[0-9]{2}").match(ref).hasMatch(), qPrintable(ref));
    QVERIFY2(QRegularExpression("implies [0-9]+\\.[0-9]% volatility").match(ref).hasMatch(), qPrintable(ref));
    QVERIFY2(ref.contains("you pay at most $6.00 in premium"), qPrintable(ref));
    QTest::keyClick(premium, Qt::Key_Return);

    OptionMember trader(t.exchange.port(), "trader");
    QTRY_VERIFY_WITH_TIMEOUT(trader.loggedOn, 5'000);
    QTRY_VERIFY_WITH_TIMEOUT(trader.positionsNow().size() == 1, 10'000);
    const auto p = trader.positionsNow().front();
    QVERIFY(p.isLong);
    QVERIFY(p.series == put);
    QCOMPARE(p.gpuHours, std::int64_t(40));
    QCOMPARE(p.premium, Price(150'000));
    // Enter again: the same ticket is not a second order (it would rest as a bid for 40 more).
    QTest::keyClick(premium, Qt::Key_Return);
    QVERIFY(ticket->findChild<QLabel*>("ticketStatus")->text().startsWith("Already sent"));
    QTest::qWait(300);
    QVERIFY(trader.workingNow().empty());
    QCOMPARE(trader.positionsNow().size(), std::size_t(1));
  }

  // A value that cannot be sent shows its reason under its field, and Enter sends nothing.
  void badInputIsRefusedWithItsReason() {
    ExchangeTerminal t;
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10'000);
    publishIndexAtTwoDollars(t);
    OptionTicketForm* form = optionTicket(t);
    QVERIFY(form);
    OrderTicket* ticket = t.window->ticket();
    retype(form->findChild<QLineEdit*>("optionStrike"), "2.005");
    auto* strikeWhy = form->findChild<QLabel*>("optionStrikeError");
    QVERIFY(strikeWhy->isVisible());
    QVERIFY2(strikeWhy->text().contains("whole cents"), qPrintable(strikeWhy->text()));
    retype(form->findChild<QLineEdit*>("optionStrike"), "2.00");
    QVERIFY(!strikeWhy->isVisible());
    auto* premium = form->findChild<QLineEdit*>("optionPremium");
    retype(premium, "150");
    auto* premiumWhy = form->findChild<QLabel*>("optionPremiumError");
    QVERIFY2(premiumWhy->isVisible() && premiumWhy->text().contains("$100.00"), qPrintable(premiumWhy->text()));
    QVERIFY(!ticket->findChild<QPushButton*>("ticketSubmit")->isEnabled());
    QTest::keyClick(premium, Qt::Key_Return);
    QVERIFY(ticket->findChild<QLabel*>("ticketStatus")->text().startsWith("Not sent. Premium:"));
    OptionMember trader(t.exchange.port(), "trader");
    QTRY_VERIFY_WITH_TIMEOUT(trader.loggedOn, 5'000);
    QTest::qWait(300);
    QVERIFY(trader.workingNow().empty());
    QVERIFY(trader.positionsNow().empty());
  }

  // A strike off the chain's ladder is priced by the ticket from the chain's forward and
  // volatility; once an order rests there the exchange prices the series itself, and both agree.
  void anUnlistedStrikeIsPricedAsTheExchangePricesIt() {
    ExchangeTerminal t;
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10'000);
    publishIndexAtTwoDollars(t);
    OptionTicketForm* form = optionTicket(t);
    QVERIFY(form);
    retype(form->findChild<QLineEdit*>("optionStrike"), "2.37");
    QTRY_VERIFY_WITH_TIMEOUT(referenceOf(form).startsWith("Reference value"), 10'000);
    QVERIFY2(referenceOf(form).contains("no orders in this series"), qPrintable(referenceOf(form)));
    const QString mine = referenceOf(form).section(" · ", 0, 1);
    OptionMember writer(t.exchange.port(), std::string(net::kForwardDealerAccount));
    QTRY_VERIFY_WITH_TIMEOUT(writer.loggedOn, 5'000);
    offer(writer, firstMonth(OptionKind::Call, 2'370'000), 10, 900'000);
    QTRY_VERIFY_WITH_TIMEOUT(referenceOf(form).contains("ask $0.90"), 10'000);
    QCOMPARE(referenceOf(form).section(" · ", 0, 1), mine);
  }

  // On a 1366 x 768 laptop screen, in the ticket dock where the terminal puts it: every field of
  // the option mode at least its minimum width and inside the dock's width (no sideways
  // scrolling), and the reference line in dollars, never micro-dollars or enum names.
  void fitsALaptopScreen() {
    ExchangeTerminal t(QSize(1366, 768));
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10'000);
    publishIndexAtTwoDollars(t);
    OptionTicketForm* form = optionTicket(t);
    QVERIFY(form);
    QTRY_VERIFY_WITH_TIMEOUT(referenceOf(form).startsWith("Reference value"), 10'000);
    QTest::qWait(200);
    QScrollArea* area = nullptr;
    for (QWidget* w = t.window->ticket(); w && !area; w = w->parentWidget()) area = qobject_cast<QScrollArea*>(w);
    QVERIFY(area);
    const int width = area->viewport()->width();
    for (QWidget* w : form->findChildren<QWidget*>()) {
      if (!w->isVisible() || !(qobject_cast<QComboBox*>(w) || qobject_cast<QLineEdit*>(w))) continue;
      const QRect in = QRect(w->mapTo(area->viewport(), QPoint(0, 0)), w->size());
      const QString what =
          QStringLiteral("%1 at %2..%3 of %4").arg(w->objectName()).arg(in.left()).arg(in.right()).arg(width);
      QVERIFY2(in.left() >= 0 && in.right() < width, qPrintable(what));
      QVERIFY2(w->width() >= w->minimumSizeHint().width(), qPrintable(what));
    }
    const QString ref = referenceOf(form);
    QVERIFY2(!QRegularExpression("[0-9]{5,}|Call|Put|Month|H100 ").match(ref.section(" · ", 0, 3)).hasMatch(),
             qPrintable(ref));
    QVERIFY2(QRegularExpression("forward \\$2\\.00, volatility [0-9]+\\.[0-9]%").match(ref).hasMatch(),
             qPrintable(ref));
  }

  // A click on the chain dock fills the ticket: a bid to write at it, an ask to buy at it.
  void aClickOnTheChainFillsTheTicket() {
    ExchangeTerminal t;
    QTRY_VERIFY_WITH_TIMEOUT(t.ready(), 10'000);
    publishIndexAtTwoDollars(t);
    const auto call = firstMonth(OptionKind::Call, 2'000'000);
    OptionMember writer(t.exchange.port(), std::string(net::kForwardDealerAccount));
    QTRY_VERIFY_WITH_TIMEOUT(writer.loggedOn, 5'000);
    offer(writer, call, 100, 400'000);
    net::OptionNewOrder bid;
    bid.side = Side::Buy;
    bid.series = call;
    bid.gpuHours = 100;
    bid.premium = 250'000;
    writer.client->placeOption(bid);
    auto* panel = t.window->findChild<OptionChainPanel*>();
    for (auto* d : t.window->findChildren<QDockWidget*>())
      if (d->objectName() == "optionsDock") d->raise();
    auto* table = panel->findChild<QTableWidget*>();
    int row = -1;
    QTRY_VERIFY_WITH_TIMEOUT(([&] {
                               row = -1;
                               for (int r = 0; r < table->rowCount(); ++r)
                                 if (table->item(r, OptionChainPanel::Strike)->text() == "$2.00" &&
                                     table->item(r, OptionChainPanel::CallBid) &&
                                     table->item(r, OptionChainPanel::CallBid)->text() == "$0.25")
                                   row = r;
                               return row >= 0;
                             }()),
                             10'000);
    OptionTicketForm* form = t.window->ticket()->optionForm();
    auto click = [&](int column) {
      QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                        table->visualItemRect(table->item(row, column)).center());
    };
    click(OptionChainPanel::CallBid);
    QCOMPARE(t.window->ticket()->kind(), TicketKind::Option);
    QVERIFY(form->findChild<QComboBox*>("optionSide")->currentText().startsWith("Write"));
    QCOMPARE(form->findChild<QLineEdit*>("optionPremium")->text(), QString("0.25"));
    QCOMPARE(form->findChild<QLineEdit*>("optionStrike")->text(), QString("2.00"));
    QVERIFY(form->findChild<QComboBox*>("optionKind")->currentText().startsWith("Call"));
    click(OptionChainPanel::CallAsk);
    QVERIFY(form->findChild<QComboBox*>("optionSide")->currentText().startsWith("Buy"));
    QCOMPARE(form->findChild<QLineEdit*>("optionPremium")->text(), QString("0.40"));
  }
};

int main(int argc, char** argv) { return runOnOffscreenScreen<TestTicketOption>(QSize(1366, 768), argc, argv); }
#include "test_ticket_option.moc"
