#include "ui/forwards/ForwardOrdersModel.h"

#include "ui/shell/DisplayFormat.h"

namespace tessera::ui {

ForwardOrdersModel::ForwardOrdersModel(QObject* parent) : QAbstractTableModel(parent) {}

void ForwardOrdersModel::setOrders(std::vector<net::ForwardWorkingOrder> orders) {
  beginResetModel();
  orders_ = std::move(orders);
  endResetModel();
}

const net::ForwardWorkingOrder* ForwardOrdersModel::orderAt(int row) const {
  return row >= 0 && row < rowCount() ? &orders_[static_cast<std::size_t>(row)] : nullptr;
}

int ForwardOrdersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(orders_.size());
}
int ForwardOrdersModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ForwardOrdersModel::data(const QModelIndex& index, int role) const {
  const auto* o = orderAt(index.row());
  if (!o || role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Order: return QVariant::fromValue<qulonglong>(o->orderId);
    case Side: return o->side == tessera::Side::Buy ? tr("Buy (long)") : tr("Sell (short)");
    case Class: return toQString(toString(o->accelerator));
    case Week: return formatDay(o->weekStart);
    case Leaves: return QVariant::fromValue<qlonglong>(o->leavesGpuHours);
    case Price: return formatPrice(o->price);
  }
  return {};
}

QVariant ForwardOrdersModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Order", "Side", "Class", "Week of", "Working GPU-h", "Price $/GPU-h"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
