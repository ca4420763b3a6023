#include "ui/forwards/ForwardBookModel.h"

#include "ui/shell/DisplayFormat.h"

#include <QBrush>
#include <QColor>

#include <algorithm>

namespace tessera::ui {

ForwardBookModel::ForwardBookModel(QObject* parent) : QAbstractTableModel(parent) {}

void ForwardBookModel::setBook(const net::ForwardBookView& book) {
  if (book == book_) return;
  beginResetModel();
  book_ = book;
  endResetModel();
}

int ForwardBookModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(std::max(book_.bids.size(), book_.asks.size()));
}
int ForwardBookModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ForwardBookModel::data(const QModelIndex& index, int role) const {
  const auto row = static_cast<std::size_t>(index.row());
  const bool bidSide = index.column() <= BidPrice;
  const auto& levels = bidSide ? book_.bids : book_.asks;
  if (row >= levels.size()) return {};
  const ForwardLevel& l = levels[row];
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ForegroundRole && (index.column() == BidPrice || index.column() == AskPrice))
    return QBrush(bidSide ? QColor(46, 160, 67) : QColor(215, 58, 73));
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case BidOrders:
    case AskOrders: return l.orders;
    case BidGpuHours:
    case AskGpuHours: return QLocale().toString(static_cast<qlonglong>(l.gpuHours));
    case BidPrice:
    case AskPrice: return formatPrice(l.price);
  }
  return {};
}

QVariant ForwardBookModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Orders", "Bid GPU-h", "Bid $/GPU-h", "Ask $/GPU-h", "Ask GPU-h", "Orders"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
