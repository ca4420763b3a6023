#include "ui/blotter/ContractsModel.h"

#include "ui/session/SettlementState.h"
#include "ui/shell/DisplayFormat.h"
#include "ui/shell/TermsFormat.h"

#include <QBrush>
#include <QColor>

namespace tessera::ui {

ContractsModel::ContractsModel(ClusterNames names, QObject* parent)
    : QAbstractTableModel(parent), names_(std::move(names)) {}

const QColor& ContractsModel::shortfallTint() {
  static const QColor c(200, 50, 50, 90);
  return c;
}
const QColor& ContractsModel::replacementTint() {
  static const QColor c(60, 130, 230, 80);
  return c;
}

void ContractsModel::setContracts(std::vector<Contract> contracts, const std::vector<ContractMark>& marks,
                                  AccountId me) {
  beginResetModel();
  contracts_ = std::move(contracts);
  marks_.clear();
  for (const ContractMark& m : marks) marks_[m.contract] = m;
  me_ = me;
  endResetModel();
}

void ContractsModel::setSettlement(std::map<ContractId, ContractSettlementStatus> status,
                                   std::set<ContractId> shortfall, bool settles) {
  status_ = std::move(status);
  shortfall_ = std::move(shortfall);
  settles_ = settles;
  if (!contracts_.empty()) emit dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

const Contract* ContractsModel::contractAt(int row) const {
  return row >= 0 && row < static_cast<int>(contracts_.size()) ? &contracts_[static_cast<std::size_t>(row)] : nullptr;
}

const ContractMark* ContractsModel::heldOf(ContractId id) const {
  const auto it = marks_.find(id);
  return it != marks_.end() ? &it->second : nullptr;
}

QString ContractsModel::shapeText(const Contract& c, const ContractMark& held) {
  if (held.soldGpuHours == 0) return tr("%1 GPUs").arg(c.gpus);
  if (held.held.size() == 1)
    return held.held.front().gpus == 0 ? tr("none (all sold)") : tr("%1 GPUs").arg(held.held.front().gpus);
  QStringList runs;
  for (const HeldStep& s : held.held) runs << tr("%1 GPUs until %2").arg(s.gpus).arg(formatHour(s.end));
  return runs.join(tr(", then "));
}

ContractId ContractsModel::replacesOf(const Contract& c) const {
  if (c.replaces) return c.replaces;
  const auto st = status_.find(c.id);
  return st != status_.end() ? st->second.replaces : 0;
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
  const auto st = status_.find(c->id);
  const ContractSettlementStatus* status = st != status_.end() ? &st->second : nullptr;
  const bool shortfall = shortfall_.count(c->id) > 0 || (status && isShortfall(status->state));
  const ContractId replaces = replacesOf(*c);
  if (role == Qt::ForegroundRole && index.column() == Pnl && marked) {
    return QBrush(mark->second.pnl() >= 0 ? QColor(40, 170, 70) : QColor(220, 60, 60));
  }
  if (role == Qt::ForegroundRole && index.column() == Realised && marked) {
    return QBrush(mark->second.realisedPnl >= 0 ? QColor(40, 170, 70) : QColor(220, 60, 60));
  }
  if (role == Qt::ForegroundRole && index.column() == State && shortfall) return QBrush(QColor(235, 80, 80));
  if (role == Qt::BackgroundRole) {
    if (shortfall) return QBrush(shortfallTint());
    if (replaces) return QBrush(replacementTint());
    return {};
  }
  if (role == Qt::DecorationRole && index.column() == State) {
    if (shortfall) return QColor(220, 60, 60);
    if (replaces) return QColor(60, 130, 230);
    return {};
  }
  if (role == Qt::ToolTipRole) {
    QString t = tr("Terms: %1").arg(describeTerms(c->terms));
    if (shortfall) t += tr("\nNot everything contracted was delivered: the remedy applies.");
    if (replaces) t += tr("\nA replacement for contract #%1, which failed.").arg(replaces);
    if (marked && mark->second.soldGpuHours > 0)
      t += tr("\nHeld after sales: %1 (%2 GPU-hours sold).")
               .arg(shapeText(*c, mark->second))
               .arg(mark->second.soldGpuHours);
    if (c->buyer == me_) t += tr("\nDouble-click for its shape over the hours.");
    return t;
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  const std::int64_t gpuHours = static_cast<std::int64_t>(c->gpus) * (c->end - c->start);
  switch (index.column()) {
    case Id: return QVariant::fromValue<qulonglong>(c->id);
    case Side: return c->buyer == me_ ? tr("Held (bought)") : tr("Sold");
    case Cluster: return names_(c->cluster);
    case Gpus: return c->gpus;
    case Held: {
      if (!marked) return {};
      const ContractMark& h = mark->second;
      if (sort)
        return QVariant::fromValue<qlonglong>(static_cast<qlonglong>(c->gpus) * (c->end - c->start) - h.soldGpuHours);
      return shapeText(*c, h);
    }
    case Start: return sort ? QVariant::fromValue<qlonglong>(c->start) : QVariant(formatHour(c->start));
    case End: return sort ? QVariant::fromValue<qlonglong>(c->end) : QVariant(formatHour(c->end));
    case Price: return sort ? QVariant::fromValue<qlonglong>(c->price) : QVariant(formatPrice(c->price));
    case Notional: return sort ? QVariant::fromValue<qlonglong>(c->notional()) : QVariant(formatMoney(c->notional()));
    case State:
      if (!settles_) return tr("n/a (in-process: no settlement)");
      if (!status) return tr("awaiting status");
      return contractStateLabel(status->state, status->stateName);
    case Delivered:
      if (!status) return {};
      return sort ? QVariant::fromValue<qlonglong>(status->deliveredGpuHours)
                  : QVariant(tr("%1 of %2").arg(status->deliveredGpuHours).arg(gpuHours));
    case Escrow:
      if (!status) return {};
      return sort ? QVariant::fromValue<qlonglong>(status->escrow) : QVariant(formatMoney(status->escrow));
    case Remedy: {
      QString r = remedyText(c->terms);
      return r.remove(0, r.indexOf(':') + 2);  // the column says "remedy" already
    }
    case Replaces:
      if (!replaces) return {};
      return sort ? QVariant::fromValue<qulonglong>(replaces) : QVariant(tr("Replaces #%1").arg(replaces));
    case Mark:
      if (!marked) return {};
      return sort ? QVariant::fromValue<qlonglong>(mark->second.markValue)
                  : QVariant(formatMoney(mark->second.markValue));
    case Pnl:
      if (!marked) return {};
      return sort ? QVariant::fromValue<qlonglong>(mark->second.pnl()) : QVariant(formatMoney(mark->second.pnl()));
    case Realised:
      if (!marked || mark->second.soldGpuHours == 0) return {};
      return sort ? QVariant::fromValue<qlonglong>(mark->second.realisedPnl)
                  : QVariant(formatMoney(mark->second.realisedPnl));
  }
  return {};
}

QVariant ContractsModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Contract",        "State",       "Side",   "Cluster",       "GPUs",
                                "Held now",        "Start",       "End",    "Price $/GPU-h", "Notional",
                                "Delivered GPU-h", "Escrow",      "Remedy", "Replaces",      "Mark (remaining)",
                                "P&L (remaining)", "Realised P&L"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
