// Not a test: saves PNGs of the planner, to look at them and for the README (dark theme):
//   QT_QPA_PLATFORM=offscreen ./planner_screenshots <source dir> <output dir> [width height]
// On the terminal's default market (the embedded exchange fed by the simulated market), at
// width x height (default 1920 x 1080; other sizes get a "-WxH" suffix):
//   planner-live-ranked.png (the window, a training run ranked, the planner dock given the bottom
//   half of the window as a user would), planner-live-why-chart-docked.png
//   (its cost chart as docked), planner-live-dock.png and planner-live-why-chart.png (the dock
//   floated at a readable size), planner-live-topology-from-cluster-list.png (right-click a
//   cluster in the cluster list -> Topology), planner-live-topology.png (that map floated),
//   planner-live-topology-from-contract.png (the placement bought, then right-click its contract
//   in the blotter -> Topology).
// On fixed example offers over the shipped topologies (resources/topologies), light theme:
//   planner-effective-cost.png, planner-bandwidth.png, planner-topology.png,
//   planner-regions.png, planner-topology-two-site.png.
#include "../cost/PlannerExamples.h"
#include "core/cost/TopologyJson.h"
#include "ui/blotter/BlotterWidget.h"
#include "ui/market/ClusterListModel.h"
#include "ui/market/ClusterListWidget.h"
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/OfferRankingModel.h"
#include "ui/planner/PlacementTableModel.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/planner/TopologyMapView.h"
#include "ui/session/EmbeddedExchangeBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/ticket/OrderTicket.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPushButton>
#include <QSettings>
#include <QStandardPaths>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QTimer>

#include <iostream>

using namespace tessera;
using namespace tessera::ui;

namespace {
void waitFor(const std::function<bool()>& done, int ms) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < ms) {
    QApplication::processEvents(QEventLoop::AllEvents, 50);
    QThread::msleep(10);
  }
}
void settle(int ms = 600) {
  waitFor([] { return false; }, ms);
}
bool save(QWidget* w, const QString& file) {
  settle();
  const bool ok = w->grab().save(file);
  std::cout << (ok ? "saved " : "FAILED ") << file.toStdString() << "\n";
  return ok;
}
// Brings a tabified dock to the front by its tab, as a user does.
void raiseTab(QMainWindow& window, const QString& title) {
  for (QDockWidget* d : window.findChildren<QDockWidget*>())
    if (d->windowTitle().startsWith(title)) d->raise();
  for (QTabBar* bar : window.findChildren<QTabBar*>())
    for (int i = 0; i < bar->count(); ++i)
      if (bar->tabText(i).startsWith(title) && bar->isVisible()) {
        const QPointF at = bar->tabRect(i).center();
        QMouseEvent press(QEvent::MouseButtonPress, at, bar->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton, {});
        QMouseEvent release(QEvent::MouseButtonRelease, at, bar->mapToGlobal(at), Qt::LeftButton, Qt::NoButton, {});
        QApplication::sendEvent(bar, &press);
        QApplication::sendEvent(bar, &release);
      }
  settle(200);
}
// Opens `view`'s context menu at `index` and triggers the entry named `action`.
bool contextMenuAction(QTableView* view, const QModelIndex& index, const char* action) {
  view->scrollTo(index);
  const QPoint at = view->visualRect(index).center();
  view->setCurrentIndex(index);
  bool done = false;
  QTimer::singleShot(300, view, [&done, view, action] {
    for (QMenu* menu : view->findChildren<QMenu*>())
      if (menu->isVisible()) {
        if (auto* a = menu->findChild<QAction*>(action)) a->trigger(), done = true;
        menu->close();
      }
    if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
      if (!done && !menu->actions().isEmpty()) menu->actions().front()->trigger(), done = true;
      menu->close();
    }
  });
  QContextMenuEvent right(QContextMenuEvent::Mouse, at, view->viewport()->mapToGlobal(at));
  QApplication::sendEvent(view->viewport(), &right);
  return done;
}

bool liveShots(const QDir& out, int width, int height, const QString& suffix) {
  backtest::SimulatedMarketConfig cfg;  // the terminal's market (TerminalOptions)
  cfg.ticksPerHour = 60;
  TradingSession session(std::make_unique<EmbeddedExchangeBackend>(cfg, "trader", 100, "", ":memory:"));
  MainWindow window(session);
  window.setTheme(Theme::Dark);
  window.resize(width, height);
  window.show();
  session.start();

  auto* panel = window.findChild<planner::PlannerPanel*>("plannerPanel");
  auto* dock = window.findChild<QDockWidget*>("plannerDock");
  if (!panel || !dock) {
    std::cerr << "no planner dock in this build\n";
    return false;
  }
  settle(1000);  // the window laid out, its tab bars with it
  raiseTab(window, "Planner");
  // The user gives the planner the bottom half of the window, as one does to study a plan.
  if (auto* blotter = window.findChild<QDockWidget*>("blotterDock"))
    window.resizeDocks({blotter, dock}, {width / 5, width}, Qt::Horizontal);
  window.resizeDocks({dock}, {height * 55 / 100}, Qt::Vertical);
  auto* box = panel->findChild<QComboBox*>();
  box->setCurrentIndex(box->findText("llm-70b", Qt::MatchStartsWith));
  waitFor([&] { return !panel->placements()->plan().placements.empty(); }, 60000);
  panel->selectOffer(0);
  panel->showView(planner::PlannerPanel::View::Cost);
  raiseTab(window, "Planner");
  bool ok = save(&window, out.filePath("planner-live-ranked" + suffix + ".png"));
  ok &= save(panel->costChart(), out.filePath("planner-live-why-chart-docked" + suffix + ".png"));
  // The dock on its own, floated at a readable size, for the chart.
  dock->setFloating(true);
  dock->resize(std::min(width, 1600), std::min(height, 1000));
  ok &= save(dock, out.filePath("planner-live-dock" + suffix + ".png"));
  ok &= save(panel->costChart(), out.filePath("planner-live-why-chart" + suffix + ".png"));
  dock->setFloating(false);
  raiseTab(window, "Planner");

  // Right-click a leased cluster in the cluster list; the menu's Topology entry.
  QTableView* clusters = window.clusterList()->view();
  QModelIndex target;
  for (int r = 0; r < clusters->model()->rowCount(); ++r) {
    const QModelIndex i = clusters->model()->index(r, 0);
    if (i.data().toString().startsWith("tundra")) target = i;
  }
  if (target.isValid()) {
    clusters->scrollTo(target);
    QTimer::singleShot(300, [] {
      if (auto* menu = qobject_cast<QMenu*>(QApplication::activePopupWidget())) {
        menu->actions().front()->trigger();
        menu->close();
      }
    });
    emit clusters->customContextMenuRequested(clusters->visualRect(target).center());
    ok &= save(&window, out.filePath("planner-live-topology-from-cluster-list" + suffix + ".png"));
    dock->setFloating(true);
    dock->resize(std::min(width, 1600), std::min(height, 1000));
    ok &= save(dock, out.filePath("planner-live-topology" + suffix + ".png"));
    dock->setFloating(false);
  } else {
    std::cerr << "no tundra cluster in the list\n";
    ok = false;
  }

  // Buy the first placement, then right-click its contract in the blotter -> Topology.
  raiseTab(window, "Planner");
  panel->showView(planner::PlannerPanel::View::Cost);
  panel->selectOffer(0);
  OrderTicket* ticket = window.ticket();
  ticket->setConfirmAboveGpuHours(std::int64_t{1} << 40);
  panel->buyButton()->click();
  settle(300);
  for (QPushButton* b : ticket->findChildren<QPushButton*>())
    if (b->text().startsWith("Submit")) b->click();
  waitFor([&] { return !session.contracts().empty(); }, 20000);
  raiseTab(window, "Blotter");
  BlotterWidget* blotter = window.blotter();
  if (auto* tabs = blotter->findChild<QTabWidget*>())
    for (int i = 0; i < tabs->count(); ++i)
      if (tabs->tabText(i).startsWith("Contracts")) tabs->setCurrentIndex(i);
  QTableView* contracts = blotter->contractsView();
  waitFor([&] { return contracts->model()->rowCount() > 0; }, 5000);
  if (contracts->model()->rowCount() > 0 &&
      contextMenuAction(contracts, contracts->model()->index(0, 0), "contractTopologyAction")) {
    settle(800);
    ok &= save(&window, out.filePath("planner-live-topology-from-contract" + suffix + ".png"));
  } else {
    std::cerr << "no contract to show\n";
    ok = false;
  }
  return ok;
}

bool fixedOfferShots(const QString& src, const QDir& out) {
  using namespace tessera::planner;
  PlannerPanel panel;
  panel.resize(1400, 900);
  panel.setCandidates(cost::testdata::exampleOffers((src + "/resources/topologies").toStdString()));
  for (const auto& problem : panel.loadWorkloadDirectory((src + "/resources/workloads").toStdString()))
    std::cerr << problem << "\n";
  panel.show();
  bool ok = true;
  auto* box = panel.findChild<QComboBox*>();
  for (int i = 0; box && i < box->count(); ++i)
    if (box->itemText(i).startsWith("llm-70b")) panel.selectWorkload(i);
  panel.showView(PlannerPanel::View::Cost);
  ok &= save(&panel, out.filePath("planner-effective-cost.png"));
  panel.showView(PlannerPanel::View::Bandwidth);
  for (int row = 0; row < panel.model()->rowCount(); ++row)
    if (panel.model()->index(row, OfferRankingModel::Cluster).data().toString().startsWith("spot-pool"))
      panel.selectOffer(row);
  ok &= save(&panel, out.filePath("planner-bandwidth.png"));
  panel.showView(PlannerPanel::View::Topology);
  panel.selectOffer(0);
  settle();
  panel.topologyMap()->fitAll();
  // Zoomed in on the first racks, as a user would with the wheel.
  for (int i = 0; i < 3; ++i) panel.topologyMap()->zoomIn();
  const QRectF all = panel.topologyMap()->scene()->itemsBoundingRect();
  panel.topologyMap()->centerOn(all.left() + all.width() * 0.25, all.center().y());
  ok &= save(&panel, out.filePath("planner-topology.png"));
  panel.showView(PlannerPanel::View::Regions);
  ok &= save(&panel, out.filePath("planner-regions.png"));

  // A two-site cluster on its own, with a placement that spans both sites.
  TopologyMapView map;
  map.resize(1400, 800);
  auto two = cost::loadTopologyFile((src + "/resources/topologies/two-site-h100.json").toStdString());
  map.setTopology(std::get<cost::Topology>(two));
  map.setPlacement(*cost::scatterPlacement(std::get<cost::Topology>(two), 64, 8, 8));
  map.show();
  settle();
  map.fitAll();
  ok &= save(&map, out.filePath("planner-topology-two-site.png"));
  return ok;
}
}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("tessera-screenshots");
  QSettings().clear();  // the default layout, not the last run's
  if (argc < 3) {
    std::cerr << "usage: planner_screenshots <source dir> <output dir> [width height]\n";
    return 2;
  }
  const QString src = argv[1];
  const QDir out(argv[2]);
  QDir().mkpath(out.path());
  const int width = argc > 4 ? std::atoi(argv[3]) : 1920;
  const int height = argc > 4 ? std::atoi(argv[4]) : 1080;
  const QString suffix = argc > 4 ? QString("-%1x%2").arg(width).arg(height) : QString();
  bool ok = liveShots(out, width, height, suffix);
  if (suffix.isEmpty()) ok &= fixedOfferShots(src, out);
  return ok ? 0 : 1;
}
