#pragma once
// The account's working forward orders.
#include "core/net/ForwardViews.h"

#include <QAbstractTableModel>

namespace tessera::ui {

class ForwardOrdersModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Order, Side, Class, Week, Leaves, Price, ColumnCount };

  explicit ForwardOrdersModel(QObject* parent = nullptr);
  void setOrders(std::vector<net::ForwardWorkingOrder> orders);
  const net::ForwardWorkingOrder* orderAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<net::ForwardWorkingOrder> orders_;
};

}  // namespace tessera::ui
