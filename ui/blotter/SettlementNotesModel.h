#pragma once
// The blotter's settlement tab: every settlement step the exchange reported for the account's
// contracts (started, delivered, paid, refunded, credited, replaced, settled), newest first.
#include "ui/session/SessionTypes.h"

#include <QAbstractTableModel>

#include <deque>

namespace tessera::ui {

class SettlementNotesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { ExchangeHour, Contract, State, What, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit SettlementNotesModel(QObject* parent = nullptr, std::size_t maxRows = 20000);
  void addNotes(const std::vector<SettlementNote>& notes);
  const SettlementNote* noteAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::size_t maxRows_;
  std::deque<SettlementNote> notes_;  // newest first, as the rows show them
};

}  // namespace tessera::ui
