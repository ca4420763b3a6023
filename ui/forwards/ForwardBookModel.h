#pragma once
// One forward book (an accelerator class and delivery week) as a price ladder: bids on the left,
// asks on the right, best prices on the first row.
#include "core/net/ForwardViews.h"

#include <QAbstractTableModel>

namespace tessera::ui {

class ForwardBookModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { BidOrders, BidGpuHours, BidPrice, AskPrice, AskGpuHours, AskOrders, ColumnCount };

  explicit ForwardBookModel(QObject* parent = nullptr);
  void setBook(const net::ForwardBookView& book);
  const net::ForwardBookView& book() const { return book_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  net::ForwardBookView book_;
};

}  // namespace tessera::ui
