// The planner dock gets candidate offers priced from the live book of the embedded market.
#include "ui/planner/OfferRankingModel.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/session/LocalMarketBackend.h"
#include "ui/session/SimulatedMarketFeed.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/PlannerBridge.h"

#include "core/cost/MarketOffers.h"

#include <QStandardPaths>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

class TestPlannerBridge : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

  void rankedOffersComeFromTheBook() {
    backtest::SimulatedMarketConfig cfg;
    cfg.seed = 3;
    cfg.ticksPerHour = 4;
    LocalMarketOptions o;
    o.tickMs = 2;
    o.publishMs = 20;
    TradingSession session(std::make_unique<LocalMarketBackend>(SimulatedMarketFeed::factory(cfg), "trader", o));
    planner::PlannerPanel panel;
    PlannerBridge bridge(session, &panel);
    const QStringList problems = bridge.loadWorkloads();
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join("; ")));
    session.start();
    QTRY_VERIFY_WITH_TIMEOUT(session.now() >= cfg.start + 3, 10000);
    // What the bridge should find, asked of the engine directly.
    std::size_t direct = 0;
    bool done = false;
    const Hour start = session.now() + PlannerBridge::kStartAhead;
    session.runOnBook([&](const Matcher& book) {
      direct = cost::candidatesFromBook(book, 32, start, start + PlannerBridge::kWindowHours).size();
      done = true;
    });
    QTRY_VERIFY(done);
    qInfo("direct candidates for 32 GPUs: %zu", direct);
    QVERIFY(direct > 0);
    QTRY_VERIFY_WITH_TIMEOUT(panel.model()->rowCount() > 0, 10000);
  }
};

QTEST_MAIN(TestPlannerBridge)
#include "test_planner_bridge.moc"
