#pragma once
// The cluster list dock: filters above a sortable table. The selection (one cluster, or
// several as a group) drives the grid.
#include "ui/market/ClusterFilter.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QTableView;

namespace tessera::ui {

class ClusterListWidget : public QWidget {
  Q_OBJECT
 public:
  explicit ClusterListWidget(QWidget* parent = nullptr);
  ClusterListModel& model() { return *model_; }
  ClusterFilter& filter() { return *filter_; }
  QTableView* view() const { return view_; }
  void setClusters(std::vector<Cluster> clusters);
  void setQuotes(const std::vector<ClusterQuote>& quotes);
  void select(const std::vector<ClusterId>& ids);
  std::vector<ClusterId> selected() const;
  void focusSearch();

 signals:
  void selectionChanged(const std::vector<tessera::ClusterId>& clusters);

 private:
  void applyFilters();

  ClusterListModel* model_;
  ClusterFilter* filter_;
  QTableView* view_;
  QLineEdit* search_;
  QComboBox* accelerator_;
  QComboBox* region_;
  QComboBox* fabric_;
  QDoubleSpinBox* maxAsk_;
};

}  // namespace tessera::ui
