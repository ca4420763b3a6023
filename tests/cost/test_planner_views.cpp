// The planner views, built offscreen: what they draw follows from the model.
#include "CostTestData.h"
#include "PlannerExamples.h"
#include "core/cost/WorkloadJson.h"
#include "ui/planner/BandwidthSensitivityChart.h"
#include "ui/planner/EffectiveCostChart.h"
#include "ui/planner/OfferRankingModel.h"
#include "ui/planner/PlannerFormat.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/planner/RegionMapView.h"
#include "ui/planner/TopologyMapView.h"
#include "ui/planner/WorkloadEditor.h"

#include <QApplication>
#include <QComboBox>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
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
    QCOMPARE(view.switchItemCount(), 4 + 8);      // 4 leaves, 8 spines
    QCOMPARE(view.nvlinkDomainItemCount(), 128);  // one HGX baseboard per node
    QCOMPARE(view.linkLabelCount(), 8);           // uplink + node link per leaf
    QCOMPARE(view.highlightedGpuCount(), 0);
  }

  void topologyMapHighlightsPlacement() {
    TopologyMapView view;
    const Topology t = loadTopology("two-site-h100");
    view.setTopology(t);
    QCOMPARE(view.linkLabelCount(), 4 * 2 + 1);  // plus the inter-site link
    view.setPlacement(*packPlacement(t, 20));
    QCOMPARE(view.highlightedGpuCount(), 20);
    view.setPlacement(Placement{{{0, 2}, {40, 8}}});
    QCOMPARE(view.highlightedGpuCount(), 10);
    view.setPlacement(Placement{{{999, 2}}});  // not in the cluster: highlight cleared
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
    QCOMPARE(view.nvlinkDomainItemCount(), 8);  // 144 nodes / 18 per NVL72 rack
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

  // Link labels sit on an opaque background above every link line, and the map takes the
  // palette's colours (dark theme: a dark canvas). Fails if a label is drawn without its
  // background or under the links (mutation tried: addLabel without the background box), or if
  // the canvas keeps a fixed light colour.
  void topologyLabelsSitAboveLinksOnThePalette() {
    TopologyMapView view;
    QPalette dark = view.palette();
    dark.setColor(QPalette::Base, QColor(24, 26, 30));
    dark.setColor(QPalette::AlternateBase, QColor(32, 34, 38));
    dark.setColor(QPalette::Text, QColor(220, 222, 226));
    view.setPalette(dark);
    view.setTopology(loadTopology("two-site-h100"));
    view.resize(900, 600);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.backgroundBrush().color(), QColor(24, 26, 30));
    const QImage shot = view.grab().toImage();
    QVERIFY(qGray(shot.pixel(3, 3)) < 60);
    const QList<QGraphicsItem*> items = view.scene()->items();
    int crossed = 0;
    for (QGraphicsItem* item : items) {
      auto* text = qgraphicsitem_cast<QGraphicsSimpleTextItem*>(item);
      if (!text) continue;
      const QRectF r = text->sceneBoundingRect();
      for (QGraphicsItem* other : items) {
        auto* line = qgraphicsitem_cast<QGraphicsLineItem*>(other);
        if (!line || !line->sceneBoundingRect().adjusted(-1, -1, 1, 1).intersects(r)) continue;
        ++crossed;
        QVERIFY2(text->zValue() > line->zValue(), qPrintable(text->text()));
        bool covered = false;  // an opaque box of the canvas colour under the text, above the line
        for (QGraphicsItem* under : items) {
          auto* box = qgraphicsitem_cast<QGraphicsRectItem*>(under);
          if (box && box->data(0).toString() == "label background" && box->zValue() > line->zValue() &&
              box->zValue() < text->zValue() && box->sceneBoundingRect().contains(r) &&
              box->brush().color() == view.backgroundBrush().color())
            covered = true;
        }
        QVERIFY2(covered, qPrintable(text->text()));
      }
    }
    QVERIFY(crossed > 0);  // the node-link labels sit on the leaf's trunk line
  }

  // Cluster labels on the Regions map never overlap, and stay inside the view, at any dock size;
  // with room to spare every label is shown. Fails if labels keep fixed offsets from their dots
  // (mutation tried: the first candidate place taken whether free or not).
  void regionLabelsNeverOverlapAtAnySize() {
    std::vector<Cluster> clusters;
    const char* regions[] = {"us-east",      "us-east",      "us-east",    "us-central", "us-west",
                             "us-west",      "eu-west",      "eu-central", "eu-north-1", "eu-north-1",
                             "ap-northeast", "ap-southeast", "mars-1"};
    ClusterId id = 1;
    for (const char* r : regions) {
      Cluster c;
      c.id = id;
      c.name = std::string(r) + "-cluster-" + std::to_string(id);
      c.region = r;
      c.nodeCount = static_cast<int>(4 + 30 * (id % 4));
      clusters.push_back(c);
      ++id;
    }
    RegionMapView view;
    view.setClusters(clusters);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (QSize size : {QSize(280, 180), QSize(420, 260), QSize(640, 360), QSize(900, 520), QSize(1500, 900)}) {
      view.resize(size);
      QCoreApplication::processEvents();
      const std::vector<QRect> rects = view.labelRects();
      QCOMPARE(static_cast<int>(rects.size()) + view.hiddenLabelCount(), static_cast<int>(clusters.size()));
      for (std::size_t i = 0; i < rects.size(); ++i) {
        QVERIFY(view.viewport()->rect().contains(rects[i]));
        for (std::size_t j = i + 1; j < rects.size(); ++j)
          QVERIFY2(!rects[i].intersects(rects[j]), qPrintable(QString("%1x%2").arg(size.width()).arg(size.height())));
      }
      if (size.width() >= 900) QCOMPARE(view.hiddenLabelCount(), 0);
    }
  }

  // The ranking table and the cost chart write each offer's cost and duration the same way:
  // dollars with thousands separators, days and hours. Fails if the chart keeps its own
  // formatting (mutation tried: "$%1M, %2 days" tick labels).
  void tableAndChartWriteNumbersAlike() {
    QCOMPARE(moneyText(2160412.5), QStringLiteral("$2,160,412.50"));
    QCOMPARE(durationText(316), QStringLiteral("13 d 4 h"));
    QCOMPARE(durationText(336), QStringLiteral("14 d"));
    QCOMPARE(durationText(20), QStringLiteral("20 h"));
    QCOMPARE(flopsText(3.1e15), QStringLiteral("3.1 PFLOP"));
    PlannerPanel panel;
    panel.setCandidates(td::exampleOffers(td::sourcePath("resources/topologies").toStdString()));
    panel.setWorkloads({loadWorkload("llm-70b-pretrain")});
    OfferRankingModel* m = panel.model();
    auto ticker = panel.costChart()->plot()->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    QVERIFY(ticker);
    QCOMPARE(panel.costChart()->barCount(), 5);
    for (int bar = 0; bar < panel.costChart()->barCount(); ++bar) {
      const QString tick = ticker->ticks().value(bar + 1);
      const QString cost = m->index(bar, OfferRankingModel::EffectiveCost).data().toString();
      const QString days = m->index(bar, OfferRankingModel::WallClock).data().toString();
      QVERIFY2(cost.startsWith("$") && cost.contains(","), qPrintable(cost));
      QVERIFY2(tick.contains(cost + ", " + days), qPrintable(tick + " / " + cost + " / " + days));
    }
  }

  // The chart's title and why-line are whole at any dock size: each text element gets at least
  // the height its lines need, inside the chart. Fails when the legend and the axis title keep
  // their room in a short chart (mutation tried: roomy always true: the title is squeezed).
  void costChartTitleIsWholeAtDockSizes() {
    PlannerPanel panel;
    panel.setCandidates(td::exampleOffers(td::sourcePath("resources/topologies").toStdString()));
    panel.setWorkloads({loadWorkload("llm-70b-pretrain")});
    EffectiveCostChart* chart = panel.costChart();
    panel.showView(PlannerPanel::View::Cost);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    for (QSize size : {QSize(560, 360), QSize(600, 420), QSize(900, 520), QSize(1400, 900)}) {
      panel.resize(size);
      QCoreApplication::processEvents();
      chart->plot()->replot();
      for (QCPTextElement* e : {chart->titleElement(), chart->whyElement()}) {
        const QFontMetrics m(e->font());
        const int lines = static_cast<int>(e->text().count('\n')) + 1;
        const QRect r = e->outerRect();
        QVERIFY2(r.height() >= lines * m.height(), qPrintable(QString("%1x%2: %3 has %4 px for %5 lines, plot %6")
                                                                  .arg(size.width())
                                                                  .arg(size.height())
                                                                  .arg(e->text().left(20))
                                                                  .arg(r.height())
                                                                  .arg(lines)
                                                                  .arg(chart->plot()->height())));
        QVERIFY(chart->plot()->rect().contains(r));
        QVERIFY(m.horizontalAdvance(e->text().split('\n').front()) <= chart->plot()->width());
      }
      QVERIFY(chart->plot()->axisRect()->rect().height() > 20);  // room left for the bars
    }
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
    QCOMPARE(chart.plot()->graphCount(), 1);  // the hourly-rate markers
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
