// The planner dock on the terminal's default market (the embedded exchange fed by the simulated
// market): a training run gets ranked placements, the user's row survives price updates, and
// "Buy this placement" sends the plan's all-or-none bid, checked in the exchange's journal.
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/PlacementTableModel.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/planner/TopologyMapView.h"
#include "ui/session/EmbeddedExchangeBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/OrderTicket.h"

#include "core/net/Journal.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace tessera;
using namespace tessera::ui;

namespace {

struct LiveTerminal {
  std::unique_ptr<TradingSession> session;
  std::unique_ptr<MainWindow> window;
  planner::PlannerPanel* panel = nullptr;

  LiveTerminal(const QString& journal, int tickMs) {
    backtest::SimulatedMarketConfig cfg;  // the terminal's market (TerminalOptions), at a fixed start
    cfg.ticksPerHour = 60;
    session = std::make_unique<TradingSession>(
        std::make_unique<EmbeddedExchangeBackend>(cfg, "trader", tickMs, "", journal.toStdString()));
    window = std::make_unique<MainWindow>(*session);
    window->resize(1600, 1000);
    window->show();
    session->start();
    panel = window->findChild<planner::PlannerPanel*>("plannerPanel");
  }
  ~LiveTerminal() {
    window.reset();
    session.reset();
  }
  // Picks the workload from the planner's list, as a user does from the combo box.
  void chooseWorkload(const QString& name) {
    auto* box = panel->findChild<QComboBox*>();
    const int i = box->findText(name, Qt::MatchStartsWith);
    QVERIFY(i >= 0);
    box->setCurrentIndex(i);
  }
  QTableView* table() const { return panel->table(); }
  planner::PlacementTableModel* rows() const { return panel->placements(); }
  void clickRow(int row) {
    const QRect r = table()->visualRect(rows()->index(row, planner::PlacementTableModel::Cluster));
    QTest::mouseClick(table()->viewport(), Qt::LeftButton, {}, r.center());
  }
};

}  // namespace

class TestPlannerBridge : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("tessera-tests");
    QCoreApplication::setApplicationName("test_planner_bridge");
  }

  // Until the market has loaded the planner says it is waiting, never that nothing fits; the
  // first answer it shows is a ranking. Fails if the bridge lets the panel answer from the book
  // before it has supply (mutation tried: the bridge not calling setWaitingForMarket(true)).
  void waitsForTheMarketBeforeAnswering() {
    LiveTerminal t(QStringLiteral(":memory:"), 5);
    t.chooseWorkload("llm-70b-pretrain");
    QVERIFY2(t.panel->summary()->text().startsWith("Waiting for the market"), qPrintable(t.panel->summary()->text()));
    QCOMPARE(t.rows()->rowCount(), 0);
    QVERIFY(t.panel->costChart()->statusLine().startsWith("Waiting for the market"));
    QStringList shown;  // the summary each time the table changes
    const auto record = [&] { shown << t.panel->summary()->text(); };
    connect(t.rows(), &QAbstractItemModel::modelReset, this, record);
    connect(t.rows(), &QAbstractItemModel::dataChanged, this, record);
    QTRY_VERIFY_WITH_TIMEOUT(!t.rows()->plan().placements.empty(), 30000);
    for (const QString& text : shown)
      QVERIFY2(!text.startsWith("No cluster can place"), qPrintable(shown.join("\n")));
    QVERIFY(t.panel->summary()->text().contains("ranked by effective cost"));
    QVERIFY(!t.panel->waitingForMarket());
  }

  // The user clicks the second-ranked placement; ten clock hours (ten re-pricings) later the
  // selection and every row are where they were. Fails if an update re-ranks the table or
  // resets the model (mutation tried: showPlan calling setPlan for every answer).
  void selectionSurvivesTenBookUpdates() {
    LiveTerminal t(QStringLiteral(":memory:"), 5);
    t.chooseWorkload("llm-70b-pretrain");
    QTRY_VERIFY_WITH_TIMEOUT(t.rows()->plan().placements.size() >= 2, 30000);
    QVERIFY(t.panel->summary()->text().contains("ranked by effective cost"));
    t.clickRow(1);
    QCOMPARE(t.table()->currentIndex().row(), 1);
    const ClusterId chosen = t.rows()->clusterAt(1);
    QVERIFY(t.rows()->placementAt(1) != nullptr);
    std::vector<ClusterId> order;
    for (int r = 0; r < t.rows()->rowCount(); ++r) order.push_back(t.rows()->clusterAt(r));
    const std::string topologyShown = t.panel->topologyMap()->topology().name;
    QCOMPARE(topologyShown, t.rows()->placementAt(1)->topology.name);

    QSignalSpy updates(t.rows(), &QAbstractItemModel::dataChanged);
    QSignalSpy resets(t.rows(), &QAbstractItemModel::modelReset);
    const Hour before = t.session->now();
    // Ten answers to the same question, one per clock hour (an update or, wrongly, a reset).
    QTRY_VERIFY_WITH_TIMEOUT(updates.count() + resets.count() >= 10 && t.session->now() >= before + 10, 120000);
    QCOMPARE(resets.count(), 0);
    QCOMPARE(t.table()->currentIndex().row(), 1);
    QCOMPARE(t.rows()->clusterAt(t.table()->currentIndex().row()), chosen);
    for (std::size_t r = 0; r < order.size(); ++r) QCOMPARE(t.rows()->clusterAt(static_cast<int>(r)), order[r]);
    QCOMPARE(t.panel->topologyMap()->topology().name, topologyShown);
  }

  // "Buy this placement" then Enter in the ticket: the exchange journals an all-or-none bid
  // whose cluster, window, GPUs, limit and cost factor are the plan's. Fails if the ticket
  // drops the plan's factors or the panel hands over another row.
  void buyThisPlacementSendsThePlansBid() {
    QTemporaryDir dir;
    const QString journal = dir.filePath("exchange.db");
    cost::PlannedPlacement plan;
    {
      LiveTerminal t(journal, 40);
      t.chooseWorkload("llm-70b-pretrain");
      QTRY_VERIFY_WITH_TIMEOUT(!t.rows()->plan().placements.empty(), 30000);
      t.clickRow(0);
      QVERIFY(t.panel->buyButton()->isEnabled());
      plan = *t.rows()->placementAt(0);
      OrderTicket* ticket = t.window->ticket();
      ticket->setConfirmAboveGpuHours(std::int64_t{1} << 40);  // no confirmation dialog in a test
      QTest::mouseClick(t.panel->buyButton(), Qt::LeftButton);
      QCOMPARE(ticket->kind(), TicketKind::AllOrNoneBuy);
      QCOMPARE(ticket->clusterId(), plan.cluster.id);
      QCOMPARE(ticket->limit(), plan.limit);
      QVERIFY(ticket->findChild<QLabel*>("ticketPlanNote")->text().contains("effective cost"));
      QSignalSpy accepted(t.session.get(), &TradingSession::orderAccepted);
      QSignalSpy rejected(t.session.get(), &TradingSession::orderRejected);
      QTest::keyClick(ticket->findChild<QLineEdit*>("ticketGpus"), Qt::Key_Return);
      QTRY_VERIFY_WITH_TIMEOUT(accepted.count() + rejected.count() > 0, 10000);
      QVERIFY2(rejected.isEmpty(), rejected.isEmpty() ? "" : qPrintable(rejected.front().at(1).toString()));
    }
    // At the exchange: the journal of what it accepted.
    auto opened = net::Journal::open(journal.toStdString(), false);
    QVERIFY(std::holds_alternative<std::unique_ptr<net::Journal>>(opened));
    std::vector<nlohmann::json> bids;
    std::get<std::unique_ptr<net::Journal>>(opened)->replay([&](const net::JournalEntry& e) {
      const auto j = nlohmann::json::parse(e.input);
      if (j.value("type", "") == "order" && j.value("account", "") == "trader") bids.push_back(j);
    });
    QCOMPARE(bids.size(), std::size_t{1});
    const nlohmann::json& o = bids.front();
    QCOMPARE(o["side"].get<std::string>(), std::string("buy"));
    QCOMPARE(o["fill"].get<std::string>(), std::string("all_or_none"));
    QCOMPARE(o["cluster"].get<ClusterId>(), plan.cluster.id);
    QCOMPARE(o["gpus"].get<GpuCount>(), plan.gpus);
    QCOMPARE(o["start"].get<Hour>(), plan.start);
    QCOMPARE(o["end"].get<Hour>(), plan.end);
    QCOMPARE(o["limit"].get<Price>(), plan.limit);
    QVERIFY2(o.contains("effective_cost_factors"), o.dump().c_str());
    QCOMPARE(o["effective_cost_factors"].size(), std::size_t{1});
    QCOMPARE(o["effective_cost_factors"][0]["cluster"].get<ClusterId>(), plan.cluster.id);
    QCOMPARE(o["effective_cost_factors"][0]["factor_ppm"].get<std::int64_t>(), plan.costFactor.ppm);
  }
};

QTEST_MAIN(TestPlannerBridge)
#include "test_planner_bridge.moc"
