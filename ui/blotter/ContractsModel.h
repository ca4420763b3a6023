#pragma once
// The blotter's contracts: what the account holds (bought) or has sold, with the held ones
// marked to the current book.
#include "ui/blotter/ClusterNames.h"
#include "ui/session/SessionTypes.h"

#include <QAbstractTableModel>

#include <unordered_map>

namespace tessera::ui {

class ContractsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Id, Side, Cluster, Gpus, Start, End, Price, Notional, Mark, Pnl, ColumnCount };
  static constexpr int SortRole = Qt::UserRole;

  explicit ContractsModel(ClusterNames names, QObject* parent = nullptr);
  void setContracts(std::vector<Contract> contracts, const std::vector<ContractMark>& marks, AccountId me);
  const Contract* contractAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  ClusterNames names_;
  std::vector<Contract> contracts_;
  std::unordered_map<ContractId, ContractMark> marks_;
  AccountId me_ = 0;
};

}  // namespace tessera::ui
