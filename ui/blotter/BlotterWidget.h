#pragma once
// The blotter dock: working orders, fills, contracts (with their settlement state) and
// settlement notices in sortable tables, cancel from the row (Delete), cancel all, a delivery
// problem report for a contract sold (context menu), a contract's detail view with its held shape
// (double-click), and CSV export of the shown table.
#include "ui/blotter/ContractsModel.h"
#include "ui/blotter/FillsModel.h"
#include "ui/blotter/OrderHistoryModel.h"
#include "ui/blotter/SettlementNotesModel.h"
#include "ui/blotter/WorkingOrdersModel.h"

#include <QWidget>

class QLabel;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;

namespace tessera::ui {

class BlotterWidget : public QWidget {
  Q_OBJECT
 public:
  explicit BlotterWidget(ClusterNames names, QWidget* parent = nullptr);

  WorkingOrdersModel& workingOrders() { return *orders_; }
  FillsModel& fills() { return *fills_; }
  ContractsModel& contracts() { return *contracts_; }
  SettlementNotesModel& settlementNotes() { return *notes_; }
  OrderHistoryModel& orderHistory() { return *history_; }
  QTableView* fillsView() const { return fillsView_; }
  QTableView* historyView() const { return historyView_; }
  QTableView* ordersView() const { return ordersView_; }
  QTableView* contractsView() const { return contractsView_; }
  QTableView* settlementView() const { return notesView_; }
  QTabWidget* tabs() const { return tabs_; }
  // The exchange clock, for the contract detail view (hours before it are delivered).
  void setNow(Hour now) { now_ = now; }
  // Says, in the settlement tab, whether this market settles contracts at all.
  void setSettlementAvailable(bool settles);
  // The context-menu action of the contract row, enabled for contracts the account sold.
  QAction* reportDeliveryAction() const { return reportDelivery_; }
  // The model of the tab being shown, as sorted on screen.
  const QAbstractItemModel& shownModel() const;

 public slots:
  void cancelSelected();
  void amendSelected();
  // Shows the working order `id` selected (e.g. clicked on the grid); false if not listed.
  bool selectOrder(tessera::OrderId id);
  // The detail view of the selected contract (double-click, context menu): its held shape.
  void showContractDetail();
  void exportShown();

 signals:
  void cancelRequested(tessera::OrderId order);
  void amendRequested(tessera::OrderId order);
  void cancelAllRequested();
  void sellBackRequested(tessera::ContractId contract);
  void reportDeliveryRequested(const tessera::Contract& contract);
  // The contract menu's "Topology": its cluster with the contract's GPUs highlighted.
  void topologyRequested(const tessera::Contract& contract);

 private:
  QTableView* makeView(QAbstractItemModel* model, QSortFilterProxyModel** proxy);
  const Contract* currentContract() const;
  void updateSettlementHint();

  WorkingOrdersModel* orders_;
  FillsModel* fills_;
  ContractsModel* contracts_;
  QSortFilterProxyModel* ordersProxy_ = nullptr;
  QSortFilterProxyModel* fillsProxy_ = nullptr;
  QSortFilterProxyModel* contractsProxy_ = nullptr;
  QSortFilterProxyModel* notesProxy_ = nullptr;
  SettlementNotesModel* notes_;
  OrderHistoryModel* history_;
  QSortFilterProxyModel* historyProxy_ = nullptr;
  QTableView* historyView_ = nullptr;
  ClusterNames names_;
  QTableView* notesView_;
  QLabel* settlementHint_;
  QAction* reportDelivery_;
  bool settles_ = false;
  Hour now_ = 0;
  QTabWidget* tabs_;
  QTableView* ordersView_;
  QTableView* fillsView_;
  QTableView* contractsView_;
};

}  // namespace tessera::ui
