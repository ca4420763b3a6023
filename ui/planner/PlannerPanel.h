#pragma once
// The planner: pick a workload, see the candidate offers ranked by effective cost, and look at
// the chosen one on the cost chart, the bandwidth curve, the topology map and the region map.
// Selecting a row shows that cluster with the job's placement highlighted. The layout (tab,
// splitter) persists in QSettings under "planner/". Ctrl+1..4 switch views.
#include "core/cost/EffectiveCostModel.h"

#include <QWidget>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QSplitter;
class QTableView;
class QTabWidget;

namespace tessera::planner {

class BandwidthSensitivityChart;
class EffectiveCostChart;
class OfferRankingModel;
class RegionMapView;
class TopologyMapView;

class PlannerPanel : public QWidget {
  Q_OBJECT

 public:
  enum class View { Cost = 0, Bandwidth = 1, Topology = 2, Regions = 3 };

  explicit PlannerPanel(QWidget* parent = nullptr);
  ~PlannerPanel() override;

  void setWorkloads(std::vector<cost::WorkloadProfile> workloads);
  void setCandidates(std::vector<cost::CandidateOffer> candidates);
  // Offers that depend on the workload (e.g. the book's asks for its GPU count, via
  // cost::candidatesFromBook): called on the GUI thread whenever the workload changes or
  // refresh() is called; replaces the fixed candidates.
  using CandidateSource = std::function<std::vector<cost::CandidateOffer>(const cost::WorkloadProfile&)>;
  void setCandidateSource(CandidateSource source);
  void refresh() { recompute(); }
  // Loads every *.json of a directory; returns one message per file that could not be read.
  std::vector<std::string> loadWorkloadDirectory(const std::filesystem::path& dir);

  void selectWorkload(int index);
  void selectOffer(int row);
  void showView(View v);

  OfferRankingModel* model() const { return model_; }
  EffectiveCostChart* costChart() const { return costChart_; }
  BandwidthSensitivityChart* bandwidthChart() const { return bandwidthChart_; }
  TopologyMapView* topologyMap() const { return topologyMap_; }
  RegionMapView* regionMap() const { return regionMap_; }
  QTabWidget* tabs() const { return tabs_; }

 private:
  void recompute();
  void showSelected(int row);
  void saveLayout() const;
  void restoreLayout();

  std::vector<cost::WorkloadProfile> workloads_;
  std::vector<cost::CandidateOffer> candidates_;
  CandidateSource source_;
  QComboBox* workloadBox_;
  QLabel* summary_;
  QSplitter* splitter_;
  QTableView* table_;
  QTabWidget* tabs_;
  OfferRankingModel* model_;
  EffectiveCostChart* costChart_;
  BandwidthSensitivityChart* bandwidthChart_;
  TopologyMapView* topologyMap_;
  RegionMapView* regionMap_;
};

}  // namespace tessera::planner
