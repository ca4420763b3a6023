#include "ui/planner/BandwidthSensitivityChart.h"

#include "ui/planner/PlannerFormat.h"

#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace tessera::planner {

std::vector<double> defaultBandwidthGrid() {
  std::vector<double> grid;
  for (double e = 0; e <= 3.0001; e += 0.1) grid.push_back(std::pow(10.0, e));
  return grid;
}

std::vector<SensitivityPoint> bandwidthSweep(const cost::WorkloadProfile& w, const cost::Topology& t,
                                             const cost::Offer& o, const std::vector<double>& perGpuGBps) {
  std::vector<SensitivityPoint> out;
  for (double bw : perGpuGBps) {
    cost::Topology scaled = t;
    // Per-GPU share = rails * gbpsPerRail / 8 / gpusPerNode.
    scaled.fabric.gbpsPerRail = bw * 8.0 * t.gpusPerNode / std::max(1, t.fabric.railsPerNode);
    const cost::CostResult r = cost::evaluate(w, scaled, o);
    if (const auto* b = std::get_if<cost::CostBreakdown>(&r))
      out.push_back({bw, b->wallClockHours / 24.0, b->terms.total()});
  }
  return out;
}

BandwidthSensitivityChart::BandwidthSensitivityChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumSize(320, 260);  // fits the planner dock on a 1366 x 768 screen
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(
      0, 0, new QCPTextElement(plot_, "Time and cost vs inter-node bandwidth", QFont("sans", 11, QFont::Bold)));

  days_ = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  days_->setName("wall-clock time (days, left)");
  days_->setPen(QPen(QColor(0x15, 0x65, 0xc0), 2.5));
  cost_ = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  cost_->setName("effective cost (right)");
  cost_->setPen(QPen(QColor(0xc6, 0x28, 0x28), 2.5, Qt::DashLine));
  marker_ = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  marker_->setName("this cluster");
  marker_->setLineStyle(QCPGraph::lsNone);
  marker_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(Qt::black, 1.5), QColor(0xff, 0xeb, 0x3b), 11));

  plot_->xAxis->setScaleType(QCPAxis::stLogarithmic);
  auto log = QSharedPointer<QCPAxisTickerLog>::create();
  log->setSubTickCount(8);
  plot_->xAxis->setTicker(log);
  plot_->xAxis->setNumberFormat("gb");
  plot_->xAxis->setLabel("inter-node NIC bandwidth per GPU (GB/s, before oversubscription; log scale)");
  plot_->yAxis->setLabel("wall-clock time (days)");
  plot_->yAxis2->setVisible(true);
  plot_->legend->setVisible(true);
  plot_->legend->setBrush(QColor(255, 255, 255, 220));
  QFont lf = plot_->legend->font();
  lf.setPointSize(8);
  plot_->legend->setFont(lf);
  plot_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

void BandwidthSensitivityChart::setScenario(const cost::WorkloadProfile& w, const cost::Topology& t,
                                            const cost::Offer& o) {
  points_ = bandwidthSweep(w, t, o, defaultBandwidthGrid());
  marked_ = t.fabric.nodeGBps() / std::max(1, t.gpusPerNode);
  double maxCost = 0, maxDays = 0;
  for (const auto& p : points_) {
    maxCost = std::max(maxCost, p.effectiveCost);
    maxDays = std::max(maxDays, p.wallClockDays);
  }
  const double divisor = maxCost >= 1e6 ? 1e6 : maxCost >= 1e3 ? 1e3 : 1;
  const QString unit = maxCost >= 1e6 ? "$M" : maxCost >= 1e3 ? "$k" : "$";
  QVector<double> x, d, c;
  for (const auto& p : points_) {
    x << p.gbytesPerSecPerGpu;
    d << p.wallClockDays;
    c << p.effectiveCost / divisor;
  }
  days_->setData(x, d, true);
  cost_->setData(x, c, true);
  const auto here = bandwidthSweep(w, t, o, {marked_});
  marker_->data()->clear();
  if (!here.empty()) marker_->addData(marked_, here.front().wallClockDays);
  marker_->setName(QString("this cluster: %1 per GPU").arg(bandwidthText(marked_)));
  plot_->yAxis2->setLabel("effective cost (" + unit + ")");
  plot_->xAxis->setRange(0.8, 1250);
  plot_->yAxis->setRange(0, maxDays > 0 ? maxDays * 1.1 : 1);
  // Cost is proportional to time here; a taller right axis keeps the two curves apart.
  plot_->yAxis2->setRange(0, maxCost > 0 ? maxCost / divisor * 1.5 : 1);
  plot_->replot();
}

}  // namespace tessera::planner
