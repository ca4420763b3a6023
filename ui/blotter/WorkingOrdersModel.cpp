#include "ui/blotter/WorkingOrdersModel.h"

#include "ui/shell/DisplayFormat.h"

namespace tessera::ui {

WorkingOrdersModel::WorkingOrdersModel(ClusterNames names, QObject* parent)
    : QAbstractTableModel(parent), names_(std::move(names)) {}

void WorkingOrdersModel::setOrders(std::vector<OrderView> orders) {
  beginResetModel();
  orders_ = std::move(orders);
  endResetModel();
}

const OrderView* WorkingOrdersModel::orderAt(int row) const {
  return row >= 0 && row < static_cast<int>(orders_.size()) ? &orders_[static_cast<std::size_t>(row)] : nullptr;
}

int WorkingOrdersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(orders_.size());
}
int WorkingOrdersModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant WorkingOrdersModel::data(const QModelIndex& index, int role) const {
  const OrderView* o = orderAt(index.row());
  if (!o || (role != Qt::DisplayRole && role != SortRole && role != Qt::TextAlignmentRole)) return {};
  const OrderRequest& r = o->request;
  if (role == Qt::TextAlignmentRole) {
    return index.column() >= Gpus ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
  }
  const bool sort = role == SortRole;
  switch (index.column()) {
    case Id: return QVariant::fromValue<qulonglong>(r.id);
    case Side: return r.side == tessera::Side::Buy ? tr("Buy") : tr("Sell");
    case Type: {
      QString t = r.fill == FillStyle::AllOrNone ? tr("all-or-none") : tr("divisible");
      if (r.duration) t += tr(", flexible");
      if (r.constraints) t += tr(", constraints");
      if (r.sellBack) t += tr(", sell-back #%1").arg(*r.sellBack);
      return t;
    }
    case Cluster: return r.cluster ? names_(*r.cluster) : tr("(any matching)");
    case Gpus: return r.gpus;
    case Start: return sort ? QVariant::fromValue<qlonglong>(r.start) : QVariant(formatHour(r.start));
    case End: return sort ? QVariant::fromValue<qlonglong>(r.end) : QVariant(formatHour(r.end));
    case Duration: return QVariant::fromValue<qlonglong>(r.hours());
    case Limit: return sort ? QVariant::fromValue<qlonglong>(r.limit) : QVariant(formatPrice(r.limit));
    case Filled: return QVariant::fromValue<qlonglong>(o->filledGpuHours);
    case Leaves: return QVariant::fromValue<qlonglong>(o->leavesGpuHours);
    case Tif: return toQString(toString(r.tif));
  }
  return {};
}

QVariant WorkingOrdersModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Order", "Side",  "Type",          "Cluster",      "GPUs",         "Start",
                                "End",   "Hours", "Limit $/GPU-h", "Filled GPU-h", "Leaves GPU-h", "TIF"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
