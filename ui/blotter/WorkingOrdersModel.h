#pragma once
// The blotter's working orders: one row per order of the account still in the book.
#include "ui/blotter/ClusterNames.h"

#include "core/engine/Matcher.h"

#include <QAbstractTableModel>

namespace tessera::ui {

class WorkingOrdersModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, Side, Type, Cluster, Gpus, Start, End, Duration, Limit, Filled, Leaves, Tif, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit WorkingOrdersModel(ClusterNames names, QObject* parent = nullptr);
  void setOrders(std::vector<OrderView> orders);
  const OrderView* orderAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  ClusterNames names_;
  std::vector<OrderView> orders_;
};

}  // namespace tessera::ui
