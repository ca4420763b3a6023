#pragma once
// The account's forward positions, marked to the current next-day index of their class:
// P&L is (index - price) x GPU-hours for a long, the opposite for a short.
#include "core/net/ForwardViews.h"

#include <QAbstractTableModel>

#include <map>

namespace tessera::ui {

class ForwardPositionsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Position, Side, Class, Week, GpuHours, Price, Mark, Pnl, Margin, Status, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit ForwardPositionsModel(QObject* parent = nullptr);
  void setPositions(std::vector<net::ForwardPositionView> positions);
  void setIndex(Accelerator a, tessera::Price nextDay);
  // What the row's position gains or loses at the current mark (its last mark when settled).
  Money pnlOf(const net::ForwardPositionView& p) const;
  Money totalOpenPnl() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  tessera::Price markOf(const net::ForwardPositionView& p) const;
  std::vector<net::ForwardPositionView> positions_;
  std::map<Accelerator, tessera::Price> index_;
};

}  // namespace tessera::ui
