#pragma once
// The blotter's fills: every fill of the account, newest first.
#include "ui/blotter/ClusterNames.h"

#include "core/engine/Events.h"

#include <QAbstractTableModel>

#include <set>
#include <vector>

namespace tessera::ui {

class FillsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Trade, Order, Side, Cluster, Gpus, Start, End, Price, Notional, Aggressor, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit FillsModel(ClusterNames names, QObject* parent = nullptr);
  void addFills(const std::vector<Fill>& fills);
  // Fills of these trades were made by a call: their role is "at call", neither taker nor maker.
  void markCallTrades(const std::vector<TradeId>& trades);
  const Fill* fillAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  ClusterNames names_;
  std::vector<Fill> fills_;  // oldest first; rows show newest first
  std::set<TradeId> callTrades_;
};

}  // namespace tessera::ui
