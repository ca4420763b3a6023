#include "ui/blotter/SettlementNotesModel.h"

#include "ui/session/SettlementState.h"
#include "ui/shell/DisplayFormat.h"

#include <QBrush>
#include <QColor>

namespace tessera::ui {

SettlementNotesModel::SettlementNotesModel(QObject* parent, std::size_t maxRows)
    : QAbstractTableModel(parent), maxRows_(std::max<std::size_t>(1, maxRows)) {}

void SettlementNotesModel::addNotes(const std::vector<SettlementNote>& notes) {
  if (notes.empty()) return;
  const std::size_t add = std::min(notes.size(), maxRows_);
  beginInsertRows({}, 0, static_cast<int>(add) - 1);
  for (std::size_t i = notes.size() - add; i < notes.size(); ++i) notes_.push_front(notes[i]);
  endInsertRows();
  if (notes_.size() > maxRows_) {
    // The oldest are at the bottom.
    beginRemoveRows({}, static_cast<int>(maxRows_), static_cast<int>(notes_.size()) - 1);
    notes_.resize(maxRows_);
    endRemoveRows();
  }
}

const SettlementNote* SettlementNotesModel::noteAt(int row) const {
  return row >= 0 && row < static_cast<int>(notes_.size()) ? &notes_[static_cast<std::size_t>(row)] : nullptr;
}

int SettlementNotesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(notes_.size());
}
int SettlementNotesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SettlementNotesModel::data(const QModelIndex& index, int role) const {
  const SettlementNote* n = noteAt(index.row());
  if (!n) return {};
  if (role == Qt::ForegroundRole && index.column() == State && isShortfall(n->state))
    return QBrush(QColor(235, 80, 80));
  if (role == Qt::ToolTipRole && index.column() == What) return n->what;
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  switch (index.column()) {
    case ExchangeHour:
      // Ties keep arrival order: the row number breaks them (newest first).
      return sort ? QVariant::fromValue<qlonglong>(n->exchangeHour * 1'000'000 - index.row())
                  : QVariant(formatHour(n->exchangeHour));
    case Contract: return QVariant::fromValue<qulonglong>(n->contract);
    case State: return contractStateLabel(n->state, n->stateName);
    case What: return n->what;
  }
  return {};
}

QVariant SettlementNotesModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Exchange time (UTC)", "Contract", "State", "What happened"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
