#include "ui/blotter/OrderHistoryModel.h"

#include "ui/shell/DisplayFormat.h"
#include "ui/ticket/OrderMessages.h"

#include <QLocale>

namespace tessera::ui {

OrderHistoryModel::OrderHistoryModel(ClusterNames names, QObject* parent)
    : QAbstractTableModel(parent), names_(std::move(names)) {}

void OrderHistoryModel::add(const std::vector<FinishedOrder>& orders) {
  if (orders.empty()) return;
  beginInsertRows({}, 0, static_cast<int>(orders.size()) - 1);
  orders_.insert(orders_.end(), orders.begin(), orders.end());
  endInsertRows();
}

const FinishedOrder* OrderHistoryModel::orderAt(int row) const {
  const int n = static_cast<int>(orders_.size());
  return row >= 0 && row < n ? &orders_[static_cast<std::size_t>(n - 1 - row)] : nullptr;
}

int OrderHistoryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(orders_.size());
}
int OrderHistoryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant OrderHistoryModel::data(const QModelIndex& index, int role) const {
  const FinishedOrder* o = orderAt(index.row());
  if (!o) return {};
  const OrderRequest& r = o->request;
  if (role == Qt::ToolTipRole && index.column() == Ended && !o->at)
    return tr("Ended before this terminal started: the exchange keeps how an order ended, not when.");
  if (role == Qt::ToolTipRole && index.column() == State && !o->why.isEmpty())
    return o->state == FinishedState::Rejected ? describeReject(o->why) : describeCancel(o->why);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  const QLocale us(QLocale::English, QLocale::UnitedStates);
  switch (index.column()) {
    case Order:
      if (!o->order) return sort ? QVariant(0) : QVariant(tr("(none)"));
      return QVariant::fromValue<qulonglong>(o->order);
    case Ended:
      if (sort) return QVariant::fromValue<qlonglong>(o->at.value_or(-1));
      return o->at ? formatHour(*o->at) : tr("before start");
    case State:
      switch (o->state) {
        case FinishedState::Filled: return tr("Filled");
        case FinishedState::Cancelled: return o->filledGpuHours > 0 ? tr("Part filled, cancelled") : tr("Cancelled");
        case FinishedState::Expired: return o->filledGpuHours > 0 ? tr("Part filled, expired") : tr("Expired");
        case FinishedState::Rejected: return tr("Rejected");
      }
      return {};
    case Side: return r.side == tessera::Side::Buy ? tr("Buy") : tr("Sell");
    case Cluster: return r.cluster ? names_(*r.cluster) : tr("any that fits");
    case Gpus: return r.gpus;
    case Start: return sort ? QVariant::fromValue<qlonglong>(r.start) : QVariant(formatHour(r.start));
    case End: return sort ? QVariant::fromValue<qlonglong>(r.end) : QVariant(formatHour(r.end));
    case Limit: return sort ? QVariant::fromValue<qlonglong>(r.limit) : QVariant(formatPrice(r.limit));
    case Filled:
      return sort ? QVariant::fromValue<qlonglong>(o->filledGpuHours)
                  : QVariant(us.toString(static_cast<qlonglong>(o->filledGpuHours)));
  }
  return {};
}

QVariant OrderHistoryModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Order", "Ended", "Final state", "Side",          "Cluster",
                                "GPUs",  "Start", "End",         "Limit $/GPU-h", "Filled GPU-h"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
