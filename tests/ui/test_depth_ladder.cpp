// The depth ladder, on a real exchange server (ExchangeTerminal.h): the hour under the grid's
// cursor shows the exchange's price levels and the account's own orders; a click on a level
// and then Submit sends an order at exactly that level's price (read back from the exchange by
// a second client of the account).
#include "TestSettings.h"
#include "ExchangeTerminal.h"

#include "ui/grid/OrderBookGridView.h"
#include "ui/ladder/DepthLadder.h"
#include "ui/ticket/OrderTicket.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

OrderRequest houseBid(OrderId id, GpuCount gpus, Hour start, Hour end, Price price) {
  OrderRequest b = houseAsk(id, gpus, start, end, price);
  b.side = Side::Buy;
  return b;
}

}  // namespace

class TestDepthLadder : public QObject {
  Q_OBJECT
  std::unique_ptr<ExchangeTerminal> t;
  OrderBookGridView* g = nullptr;
  DepthLadder* ladder = nullptr;

  void clickLevel(Side side, Price price, int column) {
    QTableView* v = ladder->view();
    const int row = ladder->rowOf(side, price);
    QVERIFY2(row >= 0, qPrintable(QString("no level at %1").arg(price)));
    v->scrollTo(v->model()->index(row, column));
    QTest::mouseClick(v->viewport(), Qt::LeftButton, {}, v->visualRect(v->model()->index(row, column)).center());
  }

 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_depth_ladder"); }

  void init() {
    t = std::make_unique<ExchangeTerminal>();
    QTRY_VERIFY_WITH_TIMEOUT(t->ready(), 10000);
    QApplication::setActiveWindow(t->window.get());
    QVERIFY(QTest::qWaitForWindowActive(t->window.get()));
    g = t->window->grid();
    ladder = t->window->depthLadder();
    t->window->ladderDock()->show();
    t->window->ladderDock()->raise();
    // Hours [kNow+2, kNow+10): asks 16 at $2.00 and 8 at $2.30; bids 4 at $1.80 (and, in
    // [kNow+2, kNow+5) only, 6 at $1.90).
    t->exchange.inject(houseAsk(1, 16, kNow + 2, kNow + 10, 2'000'000), "house-provider");
    t->exchange.inject(houseAsk(2, 8, kNow + 2, kNow + 10, 2'300'000), "house-provider");
    t->exchange.inject(houseBid(3, 4, kNow + 2, kNow + 10, 1'800'000), "house-mm");
    t->exchange.inject(houseBid(4, 6, kNow + 2, kNow + 5, 1'900'000), "house-mm");
    QTRY_VERIFY_WITH_TIMEOUT(g->model().maxAskDepth() == 24, 5000);
    g->setVisibleHours(kNow, 48);
  }

  void cleanup() { t.reset(); }

  // Mutations (each checked): a grid that does not report the hour under the cursor (no
  // hoursUnderCursor in mouseMoveEvent) leaves the ladder on its first hour and fails the hour
  // and level checks; followHours() showing each hour at once fails the sweep check.
  void theHourUnderTheCursorShowsItsLevels() {
    QTest::mouseMove(g, g->pointOf(kNow + 6.5, 4).toPoint());
    QTRY_COMPARE_WITH_TIMEOUT(ladder->model().first(), kNow + 6, 3000);
    QCOMPARE(ladder->model().end(), kNow + 7);
    const std::vector<LadderRow> want = {
        {2'300'000, Side::Sell, 8, 0}, {2'000'000, Side::Sell, 16, 0}, {1'800'000, Side::Buy, 4, 0}};
    QTRY_VERIFY_WITH_TIMEOUT(ladder->model().rows() == want, 3000);
    QVERIFY(ladder->findChild<QLabel*>("ladderTitle")->text().contains("us-east-h100-a"));
    // An hour with the second bid.
    QTest::mouseMove(g, g->pointOf(kNow + 3.5, 4).toPoint());
    QTRY_COMPARE_WITH_TIMEOUT(ladder->model().first(), kNow + 3, 3000);
    QCOMPARE(ladder->rowOf(Side::Buy, 1'900'000), 2);
    // Sweeping across the grid (each hour for less than the dwell) leaves the ladder where it was.
    QElapsedTimer sweep;
    sweep.start();
    for (double h = kNow + 4.5; h < kNow + 40; h += 1.0) QTest::mouseMove(g, g->pointOf(h, 4).toPoint());
    if (sweep.elapsed() < DepthLadder::kDwellMs)  // a machine this slow could rest on an hour
      QCOMPARE(ladder->model().first(), kNow + 3);
    // An hour nobody trades says so.
    QTest::mouseMove(g, g->pointOf(kNow + 30.5, 4).toPoint());
    QTRY_COMPARE_WITH_TIMEOUT(ladder->model().first(), kNow + 30, 3000);
    QVERIFY(ladder->findChild<QLabel*>("ladderEmpty")->isVisible());
    QVERIFY(ladder->findChild<QLabel*>("ladderEmpty")->text().contains("Nobody bids or offers"));
  }

  // Mutations (each checked): prefillAtPrice() not writing the level's price into the limit
  // field keeps the ticket's previous limit; a click that takes the other side of the level (a
  // bid sold to, an ask bought) instead of the column's side makes a sell ticket and fails.
  void aClickOnALevelThenSubmitSendsThatPrice() {
    OrderTicket* ticket = t->window->ticket();
    auto* limit = ticket->findChild<QLineEdit*>("ticketLimit");
    limit->setFocus();
    QTest::keyClick(limit, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(limit, "1.25");
    auto* gpus = ticket->findChild<QLineEdit*>("ticketGpus");
    gpus->setFocus();
    QTest::keyClick(gpus, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(gpus, "8");
    QTest::mouseMove(g, g->pointOf(kNow + 6.5, 4).toPoint());
    QTRY_COMPARE_WITH_TIMEOUT(ladder->model().first(), kNow + 6, 3000);
    QTRY_VERIFY_WITH_TIMEOUT(ladder->rowOf(Side::Buy, 1'800'000) >= 0, 3000);
    clickLevel(Side::Buy, 1'800'000, DepthLadderModel::Bids);  // join the bid
    QCOMPARE(limit->text(), QString("1.80"));
    QCOMPARE(ticket->kind(), TicketKind::DivisibleBuy);
    QCOMPARE(ticket->start(), kNow + 6);
    QCOMPARE(ticket->end(), kNow + 7);
    auto* submit = ticket->findChild<QPushButton*>("ticketSubmit");
    QVERIFY2(submit->isEnabled(), qPrintable(ticket->problem()));
    QTest::mouseClick(submit, Qt::LeftButton);
    std::vector<net::WorkingOrder> orders;
    QTRY_VERIFY_WITH_TIMEOUT((orders = t->observer->workingOrders()).size() == 1, 5000);
    const OrderRequest& r = orders.front().request;
    QCOMPARE(r.limit, Price{1'800'000});
    QVERIFY(r.side == Side::Buy);
    QCOMPARE(r.gpus, 8);
    QCOMPARE(r.start, kNow + 6);
    QCOMPARE(r.end, kNow + 7);
    QCOMPARE(*r.cluster, kH100);
    // The ladder shows it as ours, at its price.
    QTRY_VERIFY_WITH_TIMEOUT(
        ladder->rowOf(Side::Buy, 1'800'000) >= 0 &&
            ladder->model().rows()[static_cast<std::size_t>(ladder->rowOf(Side::Buy, 1'800'000))].ownGpus == 8,
        5000);
  }

  // The ladder follows the ticket being written: its hours as they are set with the keyboard,
  // and its cluster (the grid switches to a cluster chosen on the ticket, as the ladder shows
  // the grid's book); the cursor resting on the grid takes over again. Mutation seen failing:
  // MainWindow not connecting OrderTicket::windowChanged (the ladder stays on the hovered hour).
  void theLadderFollowsTheTicket() {
    QTest::mouseMove(g, g->pointOf(kNow + 30.5, 4).toPoint());
    QTRY_COMPARE_WITH_TIMEOUT(ladder->model().first(), kNow + 30, 3000);
    OrderTicket* ticket = t->window->ticket();
    ticket->setKind(TicketKind::DivisibleBuy);
    QCOMPARE(ticket->start(), kNow + 1);  // a fresh ticket: from the next hour, for 24 h
    auto* start = ticket->findChild<QDateTimeEdit*>("ticketStart");
    auto* end = ticket->findChild<QDateTimeEdit*>("ticketEnd");
    start->setFocus();
    start->setCurrentSection(QDateTimeEdit::HourSection);
    QTest::keyClick(start, Qt::Key_Up);
    QTest::keyClick(start, Qt::Key_Up);
    QCOMPARE(ticket->start(), kNow + 3);
    QCOMPARE(ladder->model().first(), kNow + 3);
    QCOMPARE(ladder->model().end(), ticket->end());
    QVERIFY(ladder->findChild<QLabel*>("ladderTitle")->text().contains("the ticket's hours"));
    end->setFocus();
    end->setCurrentSection(QDateTimeEdit::DaySection);
    QTest::keyClick(end, Qt::Key_Down);  // kNow + 1: before the start, not a window to show
    end->setCurrentSection(QDateTimeEdit::HourSection);
    for (int i = 0; i < 4; ++i) QTest::keyClick(end, Qt::Key_Up);
    QCOMPARE(ticket->end(), kNow + 5);
    QCOMPARE(ladder->model().first(), kNow + 3);
    QCOMPARE(ladder->model().end(), kNow + 5);
    const std::vector<LadderRow> want = {{2'300'000, Side::Sell, 8, 0},
                                         {2'000'000, Side::Sell, 16, 0},
                                         {1'900'000, Side::Buy, 6, 0},
                                         {1'800'000, Side::Buy, 4, 0}};
    QTRY_VERIFY_WITH_TIMEOUT(ladder->model().rows() == want, 3000);
    // Another cluster on the ticket: the grid and the ladder show its book.
    auto* cluster = ticket->findChild<QComboBox*>("ticketCluster");
    QVERIFY(cluster);
    cluster->setFocus();
    QTest::keyClick(cluster, Qt::Key_Down);
    const ClusterId other = ticket->clusterId();
    QVERIFY(other != kH100);
    QTRY_VERIFY_WITH_TIMEOUT(t->session->watchedClusters() == std::vector<ClusterId>{other}, 5000);
    QTRY_VERIFY_WITH_TIMEOUT(ladder->findChild<QLabel*>("ladderTitle")
                                 ->text()
                                 .contains(QString::fromStdString(t->session->cluster(other)->name)),
                             5000);
    QCOMPARE(ladder->model().first(), kNow + 3);
    // The cursor resting on the grid shows its hour again.
    QTest::mouseMove(g, g->pointOf(kNow + 7.5, 4).toPoint());
    QTRY_COMPARE_WITH_TIMEOUT(ladder->model().first(), kNow + 7, 3000);
    QVERIFY(!ladder->findChild<QLabel*>("ladderTitle")->text().contains("the ticket's hours"));
  }
};

QTEST_MAIN(TestDepthLadder)
#include "test_depth_ladder.moc"
