// Saves PNG screenshots of the planner views, to look at them:
//   xvfb-run -a -s "-screen 0 1600x1000x24" ./planner_screenshots <source dir> <output dir>
#include "PlannerExamples.h"
#include "core/cost/WorkloadJson.h"
#include "ui/planner/BandwidthSensitivityChart.h"
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/OfferRankingModel.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/planner/RegionMapView.h"
#include "ui/planner/TopologyMapView.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QGraphicsScene>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>

#include <iostream>

using namespace tessera;
using namespace tessera::planner;

namespace {
void settle() {
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
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
  QCoreApplication::setOrganizationName("tessera-screenshots");
  QSettings().clear();  // the default layout, not the last run's
  if (argc < 3) {
    std::cerr << "usage: planner_screenshots <source dir> <output dir>\n";
    return 2;
  }
  const QString src = argv[1];
  const QDir out(argv[2]);
  QDir().mkpath(out.path());

  PlannerPanel panel;
  panel.resize(1400, 900);
  panel.setCandidates(cost::testdata::exampleOffers((src + "/resources/topologies").toStdString()));
  for (const auto& problem : panel.loadWorkloadDirectory((src + "/resources/workloads").toStdString()))
    std::cerr << problem << "\n";
  panel.show();
  bool ok = true;
  // Workloads load sorted by file name; pick the 70B pre-training run.
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
  panel.topologyMap()->zoomIn();
  panel.topologyMap()->zoomIn();
  panel.topologyMap()->zoomIn();
  const QRectF all = panel.topologyMap()->scene()->itemsBoundingRect();
  panel.topologyMap()->centerOn(all.left() + all.width() * 0.25, all.center().y());
  ok &= save(&panel, out.filePath("planner-topology.png"));
  panel.showView(PlannerPanel::View::Regions);
  ok &= save(&panel, out.filePath("planner-regions.png"));

  // A two-site cluster zoomed on its own, with a placement that spans both sites.
  TopologyMapView map;
  map.resize(1400, 800);
  auto two = cost::loadTopologyFile((src + "/resources/topologies/two-site-h100.json").toStdString());
  map.setTopology(std::get<cost::Topology>(two));
  map.setPlacement(*cost::scatterPlacement(std::get<cost::Topology>(two), 64, 8, 8));
  map.show();
  settle();
  map.fitAll();
  ok &= save(&map, out.filePath("planner-topology-two-site.png"));
  return ok ? 0 : 1;
}
