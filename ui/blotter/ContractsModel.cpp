#include "ui/blotter/ContractsModel.h"

#include "ui/shell/DisplayFormat.h"

#include <QBrush>
#include <QColor>

namespace tessera::ui {

ContractsModel::ContractsModel(ClusterNames names, QObject* parent)
    : QAbstractTableModel(parent), names_(std::move(names)) {}

void ContractsModel::setContracts(std::vector<Contract> contracts, const std::vector<ContractMark>& marks, AccountId me) {
  beginResetModel();
  contracts_ = std::move(contracts);
  marks_.clear();
  for (const ContractMark& m : marks) marks_[m.contract] = m;
  me_ = me;
  endResetModel();
}

const Contract* ContractsModel::contractAt(int row) const {
  return row >= 0 && row < static_cast<int>(contracts_.size()) ? &contracts_[static_cast<std::size_t>(row)] : nullptr;
}

int ContractsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(contracts_.size());
}
int ContractsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ContractsModel::data(const QModelIndex& index, int role) const {
  const Contract* c = contractAt(index.row());
  if (!c) return {};
  const auto mark = marks_.find(c->id);
  const bool marked = mark != marks_.end();
  if (role == Qt::ForegroundRole && index.column() == Pnl && marked) {
    return QBrush(mark->second.pnl() >= 0 ? QColor(40, 170, 70) : QColor(220, 60, 60));
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  switch (index.column()) {
    case Id: return QVariant::fromValue<qulonglong>(c->id);
    case Side: return c->buyer == me_ ? tr("Held (bought)") : tr("Sold");
    case Cluster: return names_(c->cluster);
    case Gpus: return c->gpus;
    case Start: return sort ? QVariant::fromValue<qlonglong>(c->start) : QVariant(formatHour(c->start));
    case End: return sort ? QVariant::fromValue<qlonglong>(c->end) : QVariant(formatHour(c->end));
    case Price: return sort ? QVariant::fromValue<qlonglong>(c->price) : QVariant(formatPrice(c->price));
    case Notional: return sort ? QVariant::fromValue<qlonglong>(c->notional()) : QVariant(formatMoney(c->notional()));
    case Mark:
      if (!marked) return {};
      return sort ? QVariant::fromValue<qlonglong>(mark->second.markValue) : QVariant(formatMoney(mark->second.markValue));
    case Pnl:
      if (!marked) return {};
      return sort ? QVariant::fromValue<qlonglong>(mark->second.pnl()) : QVariant(formatMoney(mark->second.pnl()));
  }
  return {};
}

QVariant ContractsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Contract", "Side", "Cluster", "GPUs", "Start", "End", "Price $/GPU-h",
                                "Notional", "Mark (remaining)", "P&L (remaining)"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
