#pragma once
// The cluster list: specs and the best prices of the next day, one row per cluster.
#include "ui/session/SessionTypes.h"

#include <QAbstractTableModel>

#include <unordered_map>

namespace tessera::ui {

class ClusterListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Name, Accelerator, Gpus, Region, Fabric, Provider, BestAsk, BestBid, Last, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;
  static constexpr int ClusterIdRole = Qt::UserRole + 1;

  explicit ClusterListModel(QObject* parent = nullptr);
  void setClusters(std::vector<Cluster> clusters);
  void setQuotes(const std::vector<ClusterQuote>& quotes);
  const Cluster* clusterAt(int row) const;
  const ClusterQuote* quoteOf(ClusterId id) const;
  int rowOf(ClusterId id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<Cluster> clusters_;
  std::unordered_map<ClusterId, ClusterQuote> quotes_;
};

}  // namespace tessera::ui
