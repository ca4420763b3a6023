#pragma once
// The blotter's order history: every order of the account that stopped working (filled,
// cancelled, expired, rejected) with its final state and the exchange hour it ended, newest
// first. Orders that ended before the terminal started come from the exchange's order history
// (traded or not); their hour is not known.
#include "ui/blotter/ClusterNames.h"
#include "ui/session/SessionTypes.h"

#include <QAbstractTableModel>

namespace tessera::ui {

class OrderHistoryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Order, Ended, State, Side, Cluster, Gpus, Start, End, Limit, Filled, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit OrderHistoryModel(ClusterNames names, QObject* parent = nullptr);
  void add(const std::vector<FinishedOrder>& orders);
  const FinishedOrder* orderAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  ClusterNames names_;
  std::vector<FinishedOrder> orders_;  // oldest first; rows show newest first
};

}  // namespace tessera::ui
