#pragma once
// The blotter's contracts: what the account holds (bought) or has sold, with the held ones
// marked to the current book, and where each stands in settlement (state, GPU-hours delivered,
// escrow, remedy, the contract a replacement makes good), and for a bought one what is left of it
// after sales: its shape as GPUs over hours, and the P&L realised on what was sold. Failed or partly delivered
// contracts and replacements are tinted so they stand out.
#include "ui/blotter/ClusterNames.h"
#include "ui/session/SessionTypes.h"

#include <QAbstractTableModel>

#include <map>
#include <set>
#include <unordered_map>

namespace tessera::ui {

class ContractsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Id,
    State,
    Side,
    Cluster,
    Gpus,
    Held,
    Start,
    End,
    Price,
    Notional,
    Delivered,
    Escrow,
    Remedy,
    Replaces,
    Mark,
    Pnl,
    Realised,
    ColumnCount
  };
  static constexpr int SortRole = Qt::UserRole;

  explicit ContractsModel(ClusterNames names, QObject* parent = nullptr);
  void setContracts(std::vector<Contract> contracts, const std::vector<ContractMark>& marks, AccountId me);
  // `settles`: whether the market settles contracts at all (the in-process engine does not).
  // `shortfall`: contracts that were ever failed or partly delivered.
  void setSettlement(std::map<ContractId, ContractSettlementStatus> status, std::set<ContractId> shortfall,
                     bool settles);
  const Contract* contractAt(int row) const;
  // A bought contract as held after its sales (its shape and marks); null for one sold.
  const ContractMark* heldOf(ContractId id) const;
  AccountId me() const { return me_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  // What is held of a bought contract, in words: "21 GPUs" when nothing was sold, else each run
  // of hours with its GPUs ("21 GPUs until Mon 07 Dec 14:00, then 11 GPUs until ...").
  static QString shapeText(const Contract& c, const ContractMark& held);

  static const QColor& shortfallTint();
  static const QColor& replacementTint();

 private:
  ContractId replacesOf(const Contract& c) const;

  ClusterNames names_;
  std::vector<Contract> contracts_;
  std::unordered_map<ContractId, ContractMark> marks_;
  std::map<ContractId, ContractSettlementStatus> status_;
  std::set<ContractId> shortfall_;
  bool settles_ = false;
  AccountId me_ = 0;
};

}  // namespace tessera::ui
