// Not a test: saves PNGs of the planner dock on the terminal's default market (the embedded
// exchange fed by the simulated market), in the dark theme, to look at them and for the README:
//   QT_QPA_PLATFORM=offscreen ./planner_live_screenshots <output dir> [width height]
// planner-live-ranked.png (a training run ranked in the terminal), planner-live-dock.png (the
// dock on its own), planner-live-why-chart.png (its cost chart), planner-live-topology-from-cluster-list.png and
// planner-live-topology.png (right-click a cluster in the cluster list -> Topology).
#include "ui/market/ClusterListModel.h"
#include "ui/market/ClusterListWidget.h"
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/PlacementTableModel.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/session/EmbeddedExchangeBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
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
}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("tessera-screenshots");
  QSettings().clear();  // the default layout, not the last run's
  if (argc < 2) {
    std::cerr << "usage: planner_live_screenshots <output dir> [width height]\n";
    return 2;
  }
  const QDir out(argv[1]);
  QDir().mkpath(out.path());
  const int width = argc > 3 ? std::atoi(argv[2]) : 1920;
  const int height = argc > 3 ? std::atoi(argv[3]) : 1080;
  const QString suffix = argc > 3 ? QString("-%1x%2").arg(width).arg(height) : QString();

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
    return 1;
  }
  dock->raise();
  window.resizeDocks({dock}, {height * 55 / 100}, Qt::Vertical);
  auto* box = panel->findChild<QComboBox*>();
  box->setCurrentIndex(box->findText("llm-70b", Qt::MatchStartsWith));
  waitFor([&] { return !panel->placements()->plan().placements.empty(); }, 60000);
  // The planner gets the bottom of the window (the default layout gives it a tab there).
  if (auto* blotter = window.findChild<QDockWidget*>("blotterDock")) window.resizeDocks({blotter, dock}, {width / 5, width}, Qt::Horizontal);
  window.resizeDocks({dock}, {height * 55 / 100}, Qt::Vertical);
  panel->selectOffer(0);
  panel->showView(planner::PlannerPanel::View::Cost);
  bool ok = save(&window, out.filePath("planner-live-ranked" + suffix + ".png"));
  // The dock on its own, floated at a readable size, for the chart.
  dock->setFloating(true);
  dock->resize(std::min(width, 1600), std::min(height, 1000));
  ok &= save(dock, out.filePath("planner-live-dock" + suffix + ".png"));
  ok &= save(panel->costChart(), out.filePath("planner-live-why-chart" + suffix + ".png"));
  dock->setFloating(false);
  window.resizeDocks({dock}, {height * 55 / 100}, Qt::Vertical);

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
        std::cout << "menu: " << menu->actions().front()->text().toStdString() << "\n";
        menu->actions().front()->trigger();
        menu->close();
      }
    });
    emit clusters->customContextMenuRequested(clusters->visualRect(target).center());
    ok &= save(&window, out.filePath("planner-live-topology-from-cluster-list" + suffix + ".png"));
    dock->setFloating(true);
    dock->resize(std::min(width, 1600), std::min(height, 1000));
    ok &= save(dock, out.filePath("planner-live-topology" + suffix + ".png"));
  } else {
    std::cerr << "no tundra cluster in the list\n";
    ok = false;
  }
  return ok ? 0 : 1;
}
