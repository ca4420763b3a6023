#pragma once
// The answer to a planning question as a table: one row per cluster, the feasible placements
// ranked by effective cost (with the window each would occupy), then the clusters that cannot
// serve with the reason.
//
// Rows are keyed by cluster and keep their order while prices update (updatePlan): the rank
// column shows the current rank, the change column marks what moved since the table was ranked
// (effective cost up or down, a placement that appeared or went away), and a view's selection
// stays on its row. setPlan (a new question) and rerank() sort again.
#include "core/cost/PlanSearch.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace tessera::planner {

class PlacementTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Rank,
    Cluster,
    Gpus,
    Start,
    Days,
    AskRate,
    EffectiveCost,
    EffectiveRate,
    Mfu,
    Change,
    Detail,
    ColumnCount
  };

  explicit PlacementTableModel(QObject* parent = nullptr);

  // A new question: rows in rank order, then the clusters that cannot serve, by cluster id.
  void setPlan(cost::PlanResult plan);
  // The same question on fresher prices: rows stay where they are (new clusters at the end).
  void updatePlan(cost::PlanResult plan);
  // Sorts the rows by the current ranking, as setPlan does, and clears the change marks.
  void rerank();

  const cost::PlanResult& plan() const { return plan_; }
  ClusterId clusterAt(int row) const;
  int rowOf(ClusterId cluster) const;  // -1 when absent
  const cost::PlannedPlacement* placementAt(int row) const;
  const cost::ClusterUnfit* unfitAt(int row) const;
  int rankAt(int row) const;  // 1 = cheapest; 0 when the cluster cannot serve
  // Whether any row is no longer where the current ranking would put it.
  bool orderIsStale() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  struct Row {
    ClusterId cluster = 0;
    std::optional<double> costWhenRanked;  // effective cost when the rows were last sorted
  };
  void reindex();
  std::vector<Row> orderedRows() const;
  QString changeText(const Row& row) const;

  cost::PlanResult plan_;
  std::vector<Row> rows_;
  std::vector<int> placementOfRow_;  // index into plan_.placements, or -1
  std::vector<int> unfitOfRow_;      // index into plan_.unfit, or -1
};

}  // namespace tessera::planner
