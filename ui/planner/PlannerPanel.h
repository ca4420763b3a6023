#pragma once
// The planner: pick a workload, see where it can run ranked by effective cost, and look at the
// chosen one on the cost chart, the bandwidth curve, the topology map and the region map.
// Selecting a row shows that cluster with the job's placement highlighted. The table and the
// views share a vertical splitter; the question's controls fold away (by themselves when the
// panel is short, until the user chooses).
// The layout (tab, splitter, question shown) persists in QSettings under "planner/". Ctrl+1..4
// switch views.
//
// Two sources of rows. On the live market (setPlanRunner) the panel asks the planning question
// (workload, GPU kinds, start range, budget) and shows cost::planPlacements' answer in a
// PlacementTableModel: rows keep their places and the selection while prices update, and
// "Buy this placement" hands the chosen placement to whoever opens the order ticket. With fixed
// offers (setCandidates, setCandidateSource) it ranks them in an OfferRankingModel.
#include "core/cost/EffectiveCostModel.h"
#include "core/cost/PlanSearch.h"

#include <QWidget>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QCustomPlot;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QSplitter;
class QToolButton;
class QTableView;
class QResizeEvent;
class QTabWidget;

namespace tessera::planner {

class BandwidthSensitivityChart;
class EffectiveCostChart;
class OfferRankingModel;
class PlacementTableModel;
class WorkloadEditor;
class RegionMapView;
class TopologyMapView;

class PlannerPanel : public QWidget {
  Q_OBJECT

 public:
  enum class View { Cost = 0, Bandwidth = 1, Topology = 2, Regions = 3 };

  explicit PlannerPanel(QWidget* parent = nullptr);
  ~PlannerPanel() override;

  void setWorkloads(std::vector<cost::WorkloadProfile> workloads);
  // Adds a workload (replacing one of the same name); `select` makes it the current one.
  void addWorkload(const cost::WorkloadProfile& w, bool select);
  // Where "New workload..." saves (the user's own workloads); without one the button is hidden.
  void setWorkloadFolder(const QString& folder);
  // Opens the workload editor on a copy of the current workload (what "New workload..." does).
  WorkloadEditor* openWorkloadEditor();
  void setCandidates(std::vector<cost::CandidateOffer> candidates);
  // Offers that depend on the workload (e.g. the book's asks for its GPU count, via
  // cost::candidatesFromBook): called on the GUI thread whenever the workload changes or
  // refresh() is called; replaces the fixed candidates.
  using CandidateSource = std::function<std::vector<cost::CandidateOffer>(const cost::WorkloadProfile&)>;
  void setCandidateSource(CandidateSource source);
  void refresh();

  // The live market: the question is asked through `runner`, which answers on the GUI thread
  // (possibly later) through `done` with the request it priced (absolute hours) and the result.
  struct PlanQuestion {
    cost::WorkloadProfile workload;
    std::vector<Accelerator> kinds;  // empty: any
    Hour earliestAhead = 24;         // hours from now
    Hour latestAhead = 7 * 24;
    std::optional<double> budgetDollars;
  };
  using PlanDone = std::function<void(const cost::PlanRequest&, cost::PlanResult)>;
  using PlanRunner = std::function<void(const PlanQuestion&, PlanDone done)>;
  void setPlanRunner(PlanRunner runner);
  // Until the market has loaded (the caller says when), an answer with no placement says the
  // panel is waiting for the market rather than that nothing fits: a half-listed book would make
  // every cluster look unable to serve. Placements found meanwhile are shown at once.
  void setWaitingForMarket(bool waiting);
  bool waitingForMarket() const { return waitingForMarket_; }
  std::optional<PlanQuestion> question() const;
  void setStartRange(int earliestDays, int latestDays);
  void setBudget(std::optional<double> dollars);
  void setKinds(const std::vector<Accelerator>& kinds);
  PlacementTableModel* placements() const { return placements_; }
  QTableView* table() const { return table_; }
  QPushButton* buyButton() const { return buy_; }
  QPushButton* rerankButton() const { return rerank_; }
  QLabel* summary() const { return summary_; }
  // Firm or interruptible for the workload (the caller's text: which is cheaper and why, from
  // the reclaim rates the exchange observes); hidden while empty.
  void setCapacityChoice(const QString& text);
  QLabel* capacityChoice() const { return capacityChoice_; }
  QToolButton* questionToggle() const { return questionToggle_; }
  // The terminal's chart style (its theme) for the planner's charts.
  void setPlotStyle(const std::function<void(QCustomPlot*)>& style);
  // Shows `cluster` on the topology tab (with the plan's placement if it has one). The map stays
  // on it while prices update, until the user picks a row.
  void showClusterTopology(const Cluster& cluster);
  // Shows a contract's cluster on the topology tab with `gpus` GPUs highlighted, packed onto
  // whole nodes from node 0 (the exchange sells GPUs of a cluster, not named nodes), under
  // `caption`; it stays there while prices update, until the user picks a row.
  void showContractTopology(const Cluster& cluster, GpuCount gpus, const QString& caption);
  // Loads every *.json of a directory; returns one message per file that could not be read.
  std::vector<std::string> loadWorkloadDirectory(const std::filesystem::path& dir);

  void selectWorkload(int index);
  void selectOffer(int row);
  void showView(View v);

 signals:
  // "Buy this placement": the selected feasible placement, for an all-or-none bid.
  void buyPlacementRequested(const tessera::cost::PlannedPlacement& placement, const QString& workload);

 public:
  OfferRankingModel* model() const { return model_; }
  EffectiveCostChart* costChart() const { return costChart_; }
  BandwidthSensitivityChart* bandwidthChart() const { return bandwidthChart_; }
  TopologyMapView* topologyMap() const { return topologyMap_; }
  RegionMapView* regionMap() const { return regionMap_; }
  QTabWidget* tabs() const { return tabs_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateQuestionToggle();
  void recompute();
  void askQuestion(bool newQuestion);
  void showPlan(const cost::PlanRequest& asked, cost::PlanResult result, bool newQuestion, bool beforeMarket);
  void showSelected(int row);
  void showPlacementRow(int row);
  void updateButtons();
  void showWaiting(const QString& workload, int gpus);
  bool planMode() const { return static_cast<bool>(runner_); }
  void saveLayout() const;
  void restoreLayout();

  std::vector<cost::WorkloadProfile> workloads_;
  std::vector<cost::CandidateOffer> candidates_;
  CandidateSource source_;
  PlanRunner runner_;
  quint64 questionGeneration_ = 0;  // bumped whenever the question changes
  quint64 shownGeneration_ = 0;     // the generation the table shows
  bool waitingForMarket_ = false;
  bool topologyPinned_ = false;  // the map shows what was asked for (a cluster, a contract), not the row
  QComboBox* workloadBox_;
  QPushButton* newWorkload_;
  QString workloadFolder_;
  QToolButton* questionToggle_;
  bool questionChosen_ = false;  // the user folded or unfolded the question: keep it so
  bool autoFolding_ = false;     // the panel, not the user, is folding it (resizeEvent)
  QWidget* questionRow_;
  QToolButton* kinds_;
  QSpinBox* earliest_;
  QSpinBox* latest_;
  QDoubleSpinBox* budget_;
  QPushButton* rerank_;
  QPushButton* buy_;
  QLabel* legend_;
  PlacementTableModel* placements_;
  QLabel* summary_;
  QLabel* capacityChoice_;
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
