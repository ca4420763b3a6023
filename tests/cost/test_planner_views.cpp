// The planner views, built offscreen: what they draw follows from the model.
#include "CostTestData.h"
#include "PlannerExamples.h"
#include "core/cost/WorkloadJson.h"
#include "ui/planner/BandwidthSensitivityChart.h"
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/OfferRankingModel.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/planner/RegionMapView.h"
#include "ui/planner/TopologyMapView.h"
#include "ui/planner/WorkloadEditor.h"

#include <QApplication>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTabWidget>
#include <QtTest>
#include <qcustomplot.h>

using namespace tessera;
using namespace tessera::cost;
using namespace tessera::planner;
namespace td = tessera::cost::testdata;

namespace {

Topology loadTopology(const char* name) {
  auto t = loadTopologyFile(td::sourcePath("resources/topologies").toStdString() + "/" + name + ".json");
  if (auto* e = std::get_if<LoadError>(&t)) qFatal("%s", e->message.c_str());
  return std::get<Topology>(t);
}

WorkloadProfile loadWorkload(const char* name) {
  auto w = loadWorkloadFile(td::sourcePath("resources/workloads").toStdString() + "/" + name + ".json");
  if (auto* e = std::get_if<LoadError>(&w)) qFatal("%s", e->message.c_str());
  return std::get<WorkloadProfile>(w);
}

}  // namespace

class TestPlannerViews : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName("tessera-tests");
    QCoreApplication::setApplicationName("test_planner_views");
  }

  void topologyMapDrawsEveryNodeAndGpu() {
    TopologyMapView view;
    const Topology t = loadTopology("hgx-h100-ndr-ib");
    view.setTopology(t);
    QCOMPARE(view.nodeItemCount(), 128);
    QCOMPARE(view.gpuItemCount(), 1024);
    QCOMPARE(view.switchItemCount(), 4 + 8);       // 4 leaves, 8 spines
    QCOMPARE(view.nvlinkDomainItemCount(), 128);   // one HGX baseboard per node
    QCOMPARE(view.linkLabelCount(), 8);            // uplink + node link per leaf
    QCOMPARE(view.highlightedGpuCount(), 0);
  }

  void topologyMapHighlightsPlacement() {
    TopologyMapView view;
    const Topology t = loadTopology("two-site-h100");
    view.setTopology(t);
    QCOMPARE(view.linkLabelCount(), 4 * 2 + 1);    // plus the inter-site link
    view.setPlacement(*packPlacement(t, 20));
    QCOMPARE(view.highlightedGpuCount(), 20);
    view.setPlacement(Placement{{{0, 2}, {40, 8}}});
    QCOMPARE(view.highlightedGpuCount(), 10);
    view.setPlacement(Placement{{{999, 2}}});       // not in the cluster: highlight cleared
    QCOMPARE(view.highlightedGpuCount(), 0);
  }

  void topologyMapCapsHugeClusters() {
    Cluster huge;
    huge.nodeCount = 5000;
    TopologyMapView view;
    const Topology t = deriveTopology(huge);
    view.setTopology(t);
    QCOMPARE(view.nodeItemCount(), 1024);
    QCOMPARE(view.undrawnNodeCount(), 5000 - 1024);
    view.setPlacement(Placement{{{0, 8}, {4999, 8}}});  // one drawn node, one not
    QCOMPARE(view.highlightedGpuCount(), 8);
  }

  void topologyMapRackScaleDomainsAndZoom() {
    TopologyMapView view;
    view.setTopology(loadTopology("gb200-nvl72"));
    QCOMPARE(view.nvlinkDomainItemCount(), 8);     // 144 nodes / 18 per NVL72 rack
    const double before = view.zoom();
    view.zoomIn();
    QVERIFY(view.zoom() > before);
    view.zoomOut();
    QVERIFY(qAbs(view.zoom() - before) < 1e-9);
  }

  void regionMapPlacesClusters() {
    RegionMapView view;
    std::vector<Cluster> clusters(4);
    clusters[0].region = "us-east";
    clusters[1].region = "us-east";
    clusters[2].region = "eu-north-1";
    clusters[3].region = "mars-1";
    view.setClusters(clusters);
    QCOMPARE(view.clusterItemCount(), 4);
    QCOMPARE(view.unplacedCount(), 1);
    bool known = false;
    const QPointF us = regionAnchor("us-east", &known);
    QVERIFY(known);
    QVERIFY(regionAnchor("eu-north-1").x() > us.x());  // Europe is east of America
    QVERIFY(regionAnchor("eu-north").y() < regionAnchor("eu-south").y());
    regionAnchor("mars-1", &known);
    QVERIFY(!known);
  }

  void costChartStacksTermsAndMarksBothCheapest() {
    const WorkloadProfile w = td::articleTraining();
    Offer premium;
    premium.pricePerGpuHour = 3.0;
    Offer cheap;
    cheap.pricePerGpuHour = 1.5;
    Offer tiny = cheap;
    tiny.gpus = 8;
    std::vector<ChartOffer> offers = {
        {"fragmented", evaluate(w, td::articleCluster(false), cheap)},
        {"contiguous", evaluate(w, td::articleCluster(true), premium)},
        {"too small", evaluate(w, td::articleCluster(true), tiny)},
    };
    EffectiveCostChart chart;
    chart.setOffers(offers, "article");
    QCOMPARE(chart.barCount(), 2);
    QCOMPARE(chart.cheapestRateIndex(), 0);
    QCOMPARE(chart.cheapestRealIndex(), 1);
    // Bars are in $M: their stack equals the breakdown's total.
    QVERIFY(qAbs(chart.stackedTotal(0) - 4.86) < 0.01);
    QVERIFY(qAbs(chart.stackedTotal(1) - 2.16) < 0.01);
    QVERIFY(chart.plot()->xAxis->label().contains("too small"));
    QCOMPARE(chart.plot()->graphCount(), 1);        // the hourly-rate markers
    QCOMPARE(chart.plot()->graph(0)->data()->size(), 2);
    QVERIFY(chart.plot()->yAxis2->visible());
    QVERIFY(chart.plot()->legend->visible());
  }

  void bandwidthCurveFallsWithBandwidth() {
    const WorkloadProfile w = td::articleTraining();
    Offer o;
    o.pricePerGpuHour = 1.5;
    BandwidthSensitivityChart chart;
    chart.setScenario(w, td::articleCluster(false), o);
    const auto& pts = chart.points();
    QCOMPARE(pts.size(), defaultBandwidthGrid().size());
    QCOMPARE(chart.markedBandwidth(), 50.0);
    for (std::size_t i = 1; i < pts.size(); ++i) QVERIFY(pts[i].wallClockDays <= pts[i - 1].wallClockDays);
    QVERIFY(pts.front().wallClockDays > 10 * pts.back().wallClockDays);
    // At 50 GB/s per GPU the curve passes through the worked example's 135 days.
    const auto at50 = bandwidthSweep(w, td::articleCluster(false), o, {50.0});
    QVERIFY(qAbs(at50.front().wallClockDays - 135.0) < 0.1);
    QCOMPARE(chart.plot()->graphCount(), 3);
  }

  void panelRanksAndShowsSelection() {
    PlannerPanel panel;
    panel.setCandidates(td::exampleOffers(td::sourcePath("resources/topologies").toStdString()));
    panel.setWorkloads({loadWorkload("llm-70b-pretrain"), loadWorkload("finetune-8b-single-node")});
    OfferRankingModel* m = panel.model();
    QCOMPARE(m->rowCount(), 6);
    // Ranked by effective cost; the 192-GPU Ethernet pool cannot take 512 GPUs: last.
    for (int r = 1; r < m->rowCount() - 1; ++r)
      QVERIFY(m->index(r, OfferRankingModel::EffectiveCost).data(Qt::UserRole).toDouble() >=
              m->index(r - 1, OfferRankingModel::EffectiveCost).data(Qt::UserRole).toDouble());
    QCOMPARE(m->index(5, OfferRankingModel::Cluster).data().toString(), QStringLiteral("tier3-ethernet-l40s"));
    QVERIFY(m->index(5, OfferRankingModel::Detail).data().toString().contains("GPUs"));
    QCOMPARE(panel.costChart()->barCount(), 5);
    // Selecting a row shows that cluster with the job's 512 GPUs highlighted.
    panel.selectOffer(2);
    QCOMPARE(QString::fromStdString(panel.topologyMap()->topology().name),
             m->index(2, OfferRankingModel::Cluster).data().toString());
    QCOMPARE(panel.topologyMap()->highlightedGpuCount(), 512);
    QCOMPARE(panel.regionMap()->clusterItemCount(), 6);
    // The single-node fine-tune fits everywhere.
    panel.selectWorkload(1);
    QCOMPARE(panel.costChart()->barCount(), 6);
    QCOMPARE(panel.topologyMap()->highlightedGpuCount(), 8);
    panel.showView(PlannerPanel::View::Regions);
    QCOMPARE(panel.tabs()->currentIndex(), 3);
  }

  void panelAsksItsSourceForEachWorkload() {
    PlannerPanel panel;
    const auto all = td::exampleOffers(td::sourcePath("resources/topologies").toStdString());
    std::vector<GpuCount> asked;
    panel.setWorkloads({loadWorkload("llm-70b-pretrain"), loadWorkload("finetune-8b-single-node")});
    panel.setCandidateSource([&](const WorkloadProfile& w) {
      asked.push_back(w.gpus());
      std::vector<CandidateOffer> fit;  // as a book would: only clusters with enough GPUs offered
      for (const auto& c : all)
        if (c.topology.totalGpus() >= w.gpus()) fit.push_back(c);
      return fit;
    });
    QCOMPARE(asked, (std::vector<GpuCount>{512}));
    QCOMPARE(panel.model()->rowCount(), 5);
    panel.selectWorkload(1);
    QCOMPARE(asked, (std::vector<GpuCount>{512, 8}));
    QCOMPARE(panel.model()->rowCount(), 6);
    QCOMPARE(panel.regionMap()->clusterItemCount(), 6);
  }

  // "New..." (workload editor): typed with the keyboard, refused while a field is wrong (nothing
  // written), then saved as the JSON the planner and tessera-cli read, and selected. FLOPs per
  // step left blank come from 6 x parameters x tokens per step (mutation tried: 2x instead of 6x
  // fails the step time below).
  void workloadEditorSavesWhatThePlannerReads() {
    QTemporaryDir dir;
    PlannerPanel panel;
    panel.setWorkloads({loadWorkload("llm-70b-pretrain")});
    panel.setWorkloadFolder(dir.path());
    panel.show();
    auto* button = panel.findChild<QPushButton*>("plannerNewWorkload");
    QVERIFY(button && button->isVisible());
    QTest::mouseClick(button, Qt::LeftButton);
    auto* editor = panel.findChild<WorkloadEditor*>();
    QVERIFY(editor);
    auto type = [&](const char* field, const QString& text) {
      auto* e = editor->findChild<QLineEdit*>(field);
      QVERIFY2(e, field);
      e->selectAll();
      QTest::keyClick(e, Qt::Key_Delete);
      QTest::keyClicks(e, text);
    };
    type("workloadName", "my-13b");
    type("workloadParams", "13");
    type("workloadTokensPerStep", "2000000");
    type("workloadSteps", "50000");
    type("workloadFlopsPerStep", "");
    auto* data = editor->findChild<QSpinBox*>("workloadData");
    data->selectAll();
    QTest::keyClicks(data, "16");
    auto* tensor = editor->findChild<QSpinBox*>("workloadTensor");
    tensor->selectAll();
    QTest::keyClicks(tensor, "4");
    auto* save = editor->findChild<QPushButton*>("workloadSave");
    type("workloadCheckpointHours", "abc");
    QCOMPARE(editor->findChild<QLabel*>("workloadError")->text(), QString("Checkpoint every: 'abc' is not a number"));
    QVERIFY(!save->isEnabled());
    QTest::mouseClick(save, Qt::LeftButton);
    QVERIFY(QDir(dir.path()).entryList({"*.json"}).isEmpty());
    type("workloadCheckpointHours", "2");
    QVERIFY2(save->isEnabled(), qPrintable(editor->problem()));
    QTest::mouseClick(save, Qt::LeftButton);

    auto loaded = loadWorkloadFile((dir.path() + "/my-13b.json").toStdString());
    QVERIFY2(std::holds_alternative<WorkloadProfile>(loaded),
             std::holds_alternative<LoadError>(loaded) ? std::get<LoadError>(loaded).message.c_str() : "");
    const WorkloadProfile& w = std::get<WorkloadProfile>(loaded);
    QCOMPARE(w.name, std::string("my-13b"));
    QCOMPARE(w.gpus(), 16 * 4 * 1);
    QCOMPARE(w.steps, 50000.0);
    QCOMPARE(w.checkpointIntervalHours, 2.0);
    QVERIFY(qAbs(w.peakComputeSecondsPerStep - 6.0 * 13e9 * 2e6 / (64 * 989e12)) < 1e-9);
    QVERIFY(panel.findChild<QComboBox*>()->currentText().startsWith("my-13b"));
  }
};

QTEST_MAIN(TestPlannerViews)
#include "test_planner_views.moc"
