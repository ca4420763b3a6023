#pragma once
// Wall-clock time and effective cost of one workload on one offer as the inter-node bandwidth
// varies (the topology's rails scaled), with the cluster's actual bandwidth marked.
#include "core/cost/EffectiveCostModel.h"

#include <QWidget>

#include <vector>

class QCustomPlot;
class QCPGraph;

namespace tessera::planner {

struct SensitivityPoint {
  double gbytesPerSecPerGpu = 0;  // inter-node bandwidth per GPU
  double wallClockDays = 0;
  double effectiveCost = 0;  // dollars
};

// Evaluates the workload with the topology's per-rail bandwidth set so that each GPU gets
// each of `perGpuGBps`; points where the model cannot serve the workload are left out.
std::vector<SensitivityPoint> bandwidthSweep(const cost::WorkloadProfile& w, const cost::Topology& t,
                                             const cost::Offer& o, const std::vector<double>& perGpuGBps);
// 1 GB/s to 1 TB/s per GPU, log-spaced.
std::vector<double> defaultBandwidthGrid();

class BandwidthSensitivityChart : public QWidget {
  Q_OBJECT

 public:
  explicit BandwidthSensitivityChart(QWidget* parent = nullptr);

  void setScenario(const cost::WorkloadProfile& w, const cost::Topology& t, const cost::Offer& o);
  QCustomPlot* plot() const { return plot_; }
  const std::vector<SensitivityPoint>& points() const { return points_; }
  double markedBandwidth() const { return marked_; }

 private:
  QCustomPlot* plot_;
  QCPGraph* days_;
  QCPGraph* cost_;
  QCPGraph* marker_;
  std::vector<SensitivityPoint> points_;
  double marked_ = 0;
};

}  // namespace tessera::planner
