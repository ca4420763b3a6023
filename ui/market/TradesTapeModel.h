#pragma once
// The trades tape: every trade on the exchange, newest first, own trades highlighted.
#include "ui/blotter/ClusterNames.h"
#include "ui/session/SessionTypes.h"

#include <QAbstractTableModel>

#include <deque>

namespace tessera::ui {

class TradesTapeModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // Price and size first, as on any tape: a narrow dock shows them without scrolling.
  enum Column { Time, Price, Gpus, Hours, Start, Cluster, Aggressor, ColumnCount };
  static constexpr std::size_t kRows = 2000;

  explicit TradesTapeModel(ClusterNames names, QObject* parent = nullptr);
  void addTrades(const std::vector<TradePrint>& trades);
  const TradePrint* tradeAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  ClusterNames names_;
  std::deque<TradePrint> trades_;  // newest first
};

}  // namespace tessera::ui
