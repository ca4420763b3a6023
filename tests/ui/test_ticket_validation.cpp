// The ticket is the order, checked at the exchange (a real server on 127.0.0.1, and a second
// client of the same account that hears every execution report and asks for `orders`):
// - a value that cannot be sent (0 GPUs, letters, huge numbers, a negative, zero or
//   sub-cent price, an end before the start) stays on screen exactly as typed, shows its reason
//   next to the field, disables Submit, and neither Enter, Ctrl+Return nor a click sends it;
// - what is sent is what the fields show, and the order carries the exchange's id in the
//   ticket, the status bar and the blotter alike;
// - Enter twice sends one order;
// - a window somebody set does not move when the exchange clock passes its start; the one the
//   ticket offers by itself follows the clock;
// - the quote takes the order type and the limit into account (all-or-none, sell, constraint);
// - a reject reads in plain words.
#include "TestSettings.h"
#include "ExchangeTerminal.h"

#include "ui/blotter/BlotterWidget.h"
#include "ui/ticket/OrderTicket.h"

#include <QDateTimeEdit>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

class TestTicketValidation : public QObject {
  Q_OBJECT
  std::unique_ptr<ExchangeTerminal> t;
  OrderTicket* ticket = nullptr;

  QLineEdit* field(const char* name) { return ticket->findChild<QLineEdit*>(name); }
  QPushButton* submitButton() { return ticket->findChild<QPushButton*>("ticketSubmit"); }

  // A terminal on a fresh exchange, active, its ticket a divisible buy with the window it offers.
  void openTerminal() {
    t = std::make_unique<ExchangeTerminal>();
    QTRY_VERIFY_WITH_TIMEOUT(t->ready(), 10000);
    QApplication::setActiveWindow(t->window.get());
    QVERIFY(QTest::qWaitForWindowActive(t->window.get()));
    ticket = t->window->ticket();
    ticket->setKind(TicketKind::DivisibleBuy);
  }

  // Enter in the field, Ctrl+Return (the menu's submit) and a click on Submit.
  void trySending(QWidget* focus) {
    focus->setFocus();
    QTest::keyClick(focus, Qt::Key_Return);
    QTest::keyClick(focus, Qt::Key_Return, Qt::ControlModifier);
    QTest::mouseClick(submitButton(), Qt::LeftButton);
  }

 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_ticket_validation"); }

  void init() {
    openTerminal();
    if (QTest::currentTestFailed()) return;
    ticket->findChild<QDateTimeEdit*>("ticketStart")->setDateTime(at(kNow + 10));
    ticket->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(at(kNow + 14));
    retype(field("ticketGpus"), "8");
    retype(field("ticketLimit"), "1.25");
    QVERIFY2(submitButton()->isEnabled(), qPrintable(ticket->problem()));
  }

  void cleanup() { t.reset(); }

  void badValueBlocksSubmitAndSendsNothing_data() {
    QTest::addColumn<QString>("fieldName");
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("says");
    QTest::newRow("0 GPUs") << "ticketGpus"
                            << "0"
                            << "at least 1";
    QTest::newRow("negative GPUs") << "ticketGpus"
                                   << "-8"
                                   << "negative";
    QTest::newRow("letters for GPUs") << "ticketGpus"
                                      << "8x"
                                      << "not a whole number";
    QTest::newRow("huge GPUs") << "ticketGpus"
                               << "99999999999"
                               << "more than the cluster has";
    QTest::newRow("more GPUs than the cluster") << "ticketGpus"
                                                << "257"
                                                << "more than the cluster has (256)";
    QTest::newRow("negative price") << "ticketLimit"
                                    << "-5"
                                    << "above $0.00";
    QTest::newRow("zero price") << "ticketLimit"
                                << "0"
                                << "cannot trade";
    QTest::newRow("letters for a price") << "ticketLimit"
                                         << "abc"
                                         << "not a price";
    QTest::newRow("huge price") << "ticketLimit"
                                << "99999999999"
                                << "maximum of $100.00";
    QTest::newRow("fraction of a cent") << "ticketLimit"
                                        << "2.505"
                                        << "whole cents";
  }

  // Mutations that make it fail (each checked): OrderTicket::validate() leaving Submit
  // enabled (submit_->setEnabled(true)) fails the isEnabled check; OrderTicket::submit() sending
  // despite order()'s reason fails the exchange check (the exchange hears and rejects it); the old
  // QSpinBox/QDoubleSpinBox fields fail the shown-text check (they drop "-" and letters and cut
  // 99999999999).
  void badValueBlocksSubmitAndSendsNothing() {
    QFETCH(QString, fieldName);
    QFETCH(QString, typed);
    QFETCH(QString, says);
    QLineEdit* f = field(qPrintable(fieldName));
    retype(f, typed);
    QCOMPARE(f->text(), typed);  // nothing dropped, clamped or replaced
    QVERIFY(!submitButton()->isEnabled());
    auto* reason = ticket->findChild<QLabel*>(fieldName + "Error");
    QVERIFY(reason);
    QVERIFY2(reason->isVisible() && reason->text().contains(says), qPrintable(reason->text()));
    trySending(f);
    QTest::qWait(400);  // long enough for a sent order's report to come back (~ms on loopback)
    QVERIFY2(t->observer->execs().empty(), "the exchange heard of an order that cannot be sent");
    QVERIFY(t->observer->workingOrders().empty());
    QCOMPARE(f->text(), typed);
    // The "Not sent" line goes once the field is put right (mutation: validate() without the
    // notSentWhy_ check keeps it under a valid ticket).
    auto* status = ticket->findChild<QLabel*>("ticketStatus");
    QVERIFY(status->isVisible() && status->text().startsWith("Not sent"));
    if (fieldName == "ticketGpus")
      retype(f, "8");
    else if (fieldName == "ticketLimit")
      retype(f, "1.25");
    else
      return;
    QVERIFY2(submitButton()->isEnabled(), qPrintable(ticket->problem()));
    QVERIFY2(!status->isVisible(), qPrintable(status->text()));
  }

  // Mutation: a setNow() that moves the window, or a ticket that does not check the end
  // against the start, fails it.
  void endBeforeStartBlocksSubmit() {
    ticket->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(at(kNow + 9));
    QVERIFY(!submitButton()->isEnabled());
    auto* reason = ticket->findChild<QLabel*>("ticketEndError");
    QVERIFY2(reason->isVisible() && reason->text().contains("after the start"), qPrintable(reason->text()));
    trySending(field("ticketGpus"));
    QTest::qWait(400);
    QVERIFY(t->observer->execs().empty());
    QCOMPARE(ticket->end(), kNow + 9);  // not rewritten
  }

  // Mutation: the old setNow() (start moved to the next hour when the clock passes it) fails it.
  void theWindowDoesNotMoveWithTheClock() {
    ticket->findChild<QDateTimeEdit*>("ticketStart")->setDateTime(at(kNow + 1));
    ticket->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(at(kNow + 5));
    QVERIFY(submitButton()->isEnabled());
    t->exchange.inject(ClockAdvance{kNow + 2});
    QTRY_COMPARE_WITH_TIMEOUT(t->session->now(), kNow + 2, 5000);
    QCOMPARE(ticket->start(), kNow + 1);
    QCOMPARE(ticket->end(), kNow + 5);
    QVERIFY(!submitButton()->isEnabled());
    QVERIFY(ticket->findChild<QLabel*>("ticketStartError")->isVisible());
  }

  // The window the ticket offers by itself (nobody typed, dragged or picked one) follows the
  // exchange clock, so a ticket left open does not turn red; the order sent has that window.
  // Mutation seen failing: setNow() moving the window only at the first clock (the start stays
  // at kNow + 1, delivered).
  void theOfferedWindowFollowsTheClock() {
    t.reset();
    openTerminal();
    if (QTest::currentTestFailed()) return;
    QCOMPARE(ticket->start(), kNow + 1);
    const Hour length = ticket->end() - ticket->start();
    t->exchange.inject(ClockAdvance{kNow + 3});
    QTRY_COMPARE_WITH_TIMEOUT(t->session->now(), kNow + 3, 5000);
    QCOMPARE(ticket->start(), kNow + 4);
    QCOMPARE(ticket->end() - ticket->start(), length);
    retype(field("ticketGpus"), "8");
    retype(field("ticketLimit"), "1.25");
    QLineEdit* gpus = field("ticketGpus");
    gpus->setFocus();
    QTest::keyClick(gpus, Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(t->observer->workingOrders().size(), std::size_t{1}, 5000);
    QCOMPARE(t->observer->workingOrders().front().request.start, kNow + 4);
    QCOMPARE(t->observer->workingOrders().front().request.end, kNow + 4 + length);
  }

  // F2 ("New buy ticket") on a ticket whose start the clock has passed starts the window at the
  // next exchange hour with the same length; the exchange clock, not the wall clock, decides.
  // Mutation: F2 without renewDeliveredWindow() leaves the start delivered and Submit disabled.
  void aNewTicketStartsAfterTheExchangeClock() {
    ticket->findChild<QDateTimeEdit*>("ticketStart")->setDateTime(at(kNow + 1));
    ticket->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(at(kNow + 5));
    t->exchange.inject(ClockAdvance{kNow + 3});
    QTRY_COMPARE_WITH_TIMEOUT(t->session->now(), kNow + 3, 5000);
    QVERIFY(!submitButton()->isEnabled());
    QTest::keyClick(t->window.get(), Qt::Key_F2);
    QCOMPARE(ticket->start(), kNow + 4);
    QCOMPARE(ticket->end(), kNow + 8);
    retype(field("ticketGpus"), "8");
    QVERIFY2(submitButton()->isEnabled(), qPrintable(ticket->problem()));
  }

  // What the fields show is what the exchange holds; Enter twice is one order; the id the
  // ticket, the status bar and the blotter show is the exchange's.
  // Mutation: OrderTicket::submit() without its "already sent" check (and validate() not
  // disabling Submit for a sent ticket) sends two orders and fails the count.
  void doubleEnterSendsOneOrderExactlyAsShown() {
    retype(field("ticketGpus"), "24");
    retype(field("ticketLimit"), "1.37");
    QLineEdit* gpus = field("ticketGpus");
    gpus->setFocus();
    QTest::keyClick(gpus, Qt::Key_Return);
    QTest::keyClick(gpus, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(!t->observer->execs().empty(), 5000);
    QTest::qWait(400);
    QTest::keyClick(gpus, Qt::Key_Enter);
    QTest::qWait(400);
    const auto execs = t->observer->execs();
    QCOMPARE(execs.size(), std::size_t{1});
    QVERIFY(execs.front().state == net::OrderState::Accepted);
    const auto orders = t->observer->workingOrders();
    QCOMPARE(orders.size(), std::size_t{1});
    const OrderRequest& r = orders.front().request;
    QCOMPARE(r.gpus, 24);
    QCOMPARE(r.limit, Price{1'370'000});
    QCOMPARE(r.start, kNow + 10);
    QCOMPARE(r.end, kNow + 14);
    QVERIFY(r.side == Side::Buy && r.fill == FillStyle::Divisible);
    // One id everywhere.
    const OrderId id = orders.front().orderId;
    QTRY_COMPARE_WITH_TIMEOUT(ticket->sentOrderId().value_or(0), id, 5000);
    QTableView* blotter = t->window->blotter()->ordersView();
    QTRY_COMPARE_WITH_TIMEOUT(blotter->model()->rowCount(), 1, 5000);
    QCOMPARE(blotter->model()->index(0, WorkingOrdersModel::Id).data().toULongLong(), qulonglong{id});
    QVERIFY2(ticket->findChild<QLabel*>("ticketStatus")->text().contains(QString("#%1").arg(id)),
             qPrintable(ticket->findChild<QLabel*>("ticketStatus")->text()));
    QVERIFY2(t->window->statusBar()->currentMessage().contains(QString("#%1").arg(id)),
             qPrintable(t->window->statusBar()->currentMessage()));
    // A change makes it a new order, sent once more.
    retype(field("ticketGpus"), "23");
    QVERIFY(submitButton()->isEnabled());
    QTest::keyClick(field("ticketGpus"), Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(t->observer->workingOrders().size(), std::size_t{2}, 5000);
  }

  // The quote reads the limit and the order type.
  // Mutations: describeQuote() saying "Can fill" whenever every GPU-hour is offered (ignoring
  // the limit) fails the first check; a sell quoted against the asks fails the second; quote()
  // without the book reader (constraint orders unquoted) fails the third.
  void theQuoteTakesTheLimitAndTheOrderType() {
    // Each hour of [kNow+2, kNow+10): 16 GPUs at $2.00 and 16 at $3.00.
    t->exchange.inject(houseAsk(1, 16, kNow + 2, kNow + 10, 2'000'000), "house-provider");
    t->exchange.inject(houseAsk(2, 16, kNow + 2, kNow + 10, 3'000'000), "house-provider");
    QTRY_VERIFY_WITH_TIMEOUT(t->window->grid()->model().maxAskDepth() == 32, 5000);
    ticket->setKind(TicketKind::FlexibleBuy);
    ticket->findChild<QDateTimeEdit*>("ticketStart")->setDateTime(at(kNow + 2));
    ticket->findChild<QDateTimeEdit*>("ticketEnd")->setDateTime(at(kNow + 10));
    retype(field("ticketDuration"), "4");
    retype(field("ticketGpus"), "24");
    retype(field("ticketLimit"), "2.00");  // 24 GPUs average $2.34: above the limit
    QVERIFY2(ticket->quoteText().contains("Cannot fill now") && ticket->quoteText().contains("above your $2.00 limit"),
             qPrintable(ticket->quoteText()));
    QVERIFY(!ticket->quoteText().contains("Can fill"));
    retype(field("ticketLimit"), "2.40");
    QVERIFY2(ticket->quoteText().contains("Can fill all-or-none now"), qPrintable(ticket->quoteText()));

    ticket->setKind(TicketKind::DivisibleSell);
    QVERIFY2(ticket->quoteText().contains("No bids at or above"), qPrintable(ticket->quoteText()));
    QVERIFY(!ticket->quoteText().contains("all-or-none"));

    ticket->setKind(TicketKind::ConstraintBuy);
    QTRY_VERIFY2_WITH_TIMEOUT(ticket->quoteText().contains("us-east-h100-a"), qPrintable(ticket->quoteText()), 5000);
    QVERIFY2(ticket->quoteText().contains("Can fill all-or-none now"), qPrintable(ticket->quoteText()));
  }

  // Mutation: MainWindow showing the backend's "code: detail" text as it comes fails it.
  void aRejectReadsInPlainWords() {
    ticket->setKind(TicketKind::DivisibleSell);  // the trader holds no capacity to sell
    QVERIFY2(submitButton()->isEnabled(), qPrintable(ticket->problem()));
    QTest::keyClick(field("ticketGpus"), Qt::Key_Return);
    QMessageBox* box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = t->window->findChild<QMessageBox*>()) != nullptr && box->isVisible(), 5000);
    const QString text = box->text();
    box->close();
    QVERIFY2(text.contains("You do not own or hold these GPU-hours"), qPrintable(text));
    QVERIFY2(!text.contains("insufficient_holdings") && !text.contains(QRegularExpression("\\d{7,}")),
             qPrintable(text));
    QVERIFY2(text.contains("Sell 8 GPUs on us-east-h100-a"), qPrintable(text));
  }
};

QTEST_MAIN(TestTicketValidation)
#include "test_ticket_validation.moc"
