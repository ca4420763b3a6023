#include "ui/forwards/ForwardPositionsModel.h"

#include "ui/shell/DisplayFormat.h"

#include <QBrush>
#include <QColor>

namespace tessera::ui {

ForwardPositionsModel::ForwardPositionsModel(QObject* parent) : QAbstractTableModel(parent) {}

void ForwardPositionsModel::setPositions(std::vector<net::ForwardPositionView> positions) {
  beginResetModel();
  positions_ = std::move(positions);
  endResetModel();
}

void ForwardPositionsModel::setIndex(Accelerator a, tessera::Price nextDay) {
  if (index_[a] == nextDay) return;
  index_[a] = nextDay;
  if (!positions_.empty()) emit dataChanged(index(0, Mark), index(rowCount() - 1, Pnl));
}

tessera::Price ForwardPositionsModel::markOf(const net::ForwardPositionView& p) const {
  if (p.status != "open") return p.lastMark;
  auto it = index_.find(p.accelerator);
  return it != index_.end() && it->second > 0 ? it->second : p.lastMark;
}

Money ForwardPositionsModel::pnlOf(const net::ForwardPositionView& p) const { return p.pnlAt(markOf(p)); }

Money ForwardPositionsModel::totalOpenPnl() const {
  Money total = 0;
  for (const auto& p : positions_)
    if (p.status == "open") total += pnlOf(p);
  return total;
}

int ForwardPositionsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(positions_.size());
}
int ForwardPositionsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ForwardPositionsModel::data(const QModelIndex& index, int role) const {
  if (index.row() < 0 || index.row() >= rowCount()) return {};
  const auto& p = positions_[static_cast<std::size_t>(index.row())];
  const Money pnl = pnlOf(p);
  if (role == Qt::ForegroundRole && index.column() == Pnl && pnl != 0)
    return QBrush(pnl > 0 ? QColor(46, 160, 67) : QColor(215, 58, 73));
  const bool sort = role == SortRole;
  if (role != Qt::DisplayRole && !sort) return {};
  switch (index.column()) {
    case Position: return QVariant::fromValue<qulonglong>(p.position);
    case Side: return p.isLong ? tr("Long") : tr("Short");
    case Class: return toQString(toString(p.accelerator));
    case Week: return sort ? QVariant::fromValue<qlonglong>(p.weekStart) : QVariant(formatDay(p.weekStart));
    case GpuHours: return QVariant::fromValue<qlonglong>(p.gpuHours);
    case Price: return sort ? QVariant::fromValue<qlonglong>(p.price) : QVariant(formatPrice(p.price));
    case Mark: return sort ? QVariant::fromValue<qlonglong>(markOf(p)) : QVariant(formatPrice(markOf(p)));
    case Pnl: return sort ? QVariant::fromValue<qlonglong>(pnl) : QVariant(formatMoney(pnl));
    case Margin: return sort ? QVariant::fromValue<qlonglong>(p.margin) : QVariant(formatMoney(p.margin));
    case Status: return toQString(p.status).replace('_', ' ');
  }
  return {};
}

QVariant ForwardPositionsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Position",      "Side",       "Class", "Week of", "GPU-h",
                                "Price $/GPU-h", "Index mark", "P&L",   "Margin",  "Status"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
