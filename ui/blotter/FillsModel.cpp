#include "ui/blotter/FillsModel.h"

#include "ui/shell/DisplayFormat.h"

namespace tessera::ui {

FillsModel::FillsModel(ClusterNames names, QObject* parent) : QAbstractTableModel(parent), names_(std::move(names)) {}

void FillsModel::addFills(const std::vector<Fill>& fills) {
  if (fills.empty()) return;
  beginInsertRows({}, 0, static_cast<int>(fills.size()) - 1);
  fills_.insert(fills_.end(), fills.begin(), fills.end());
  endInsertRows();
}

void FillsModel::markCallTrades(const std::vector<TradeId>& trades) {
  callTrades_.insert(trades.begin(), trades.end());
  if (!fills_.empty()) emit dataChanged(index(0, Aggressor), index(rowCount() - 1, Aggressor));
}

const Fill* FillsModel::fillAt(int row) const {
  const int n = static_cast<int>(fills_.size());
  return row >= 0 && row < n ? &fills_[static_cast<std::size_t>(n - 1 - row)] : nullptr;
}

int FillsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(fills_.size());
}
int FillsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant FillsModel::data(const QModelIndex& index, int role) const {
  const Fill* f = fillAt(index.row());
  if (!f || (role != Qt::DisplayRole && role != SortRole)) return {};
  const bool sort = role == SortRole;
  const Money notional = f->price * f->gpus * (f->end - f->start);
  switch (index.column()) {
    case Trade: return QVariant::fromValue<qulonglong>(f->trade);
    case Order: return QVariant::fromValue<qulonglong>(f->order);
    case Side: return f->side == tessera::Side::Buy ? tr("Bought") : tr("Sold");
    case Cluster: return names_(f->cluster);
    case Gpus: return f->gpus;
    case Start: return sort ? QVariant::fromValue<qlonglong>(f->start) : QVariant(formatHour(f->start));
    case End: return sort ? QVariant::fromValue<qlonglong>(f->end) : QVariant(formatHour(f->end));
    case Price: return sort ? QVariant::fromValue<qlonglong>(f->price) : QVariant(formatPrice(f->price));
    case Notional: return sort ? QVariant::fromValue<qlonglong>(notional) : QVariant(formatMoney(notional));
    case Aggressor:
      if (callTrades_.count(f->trade)) return tr("at call");
      return f->aggressor ? tr("taker") : tr("maker");
  }
  return {};
}

QVariant FillsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Trade", "Order", "Side",          "Cluster",  "GPUs",
                                "Start", "End",   "Price $/GPU-h", "Notional", "Role"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
