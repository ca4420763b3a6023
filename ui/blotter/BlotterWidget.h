#pragma once
// The blotter dock: working orders, fills and contracts in sortable tables, cancel from the
// row (Delete), cancel all, and CSV export of the shown table.
#include "ui/blotter/ContractsModel.h"
#include "ui/blotter/FillsModel.h"
#include "ui/blotter/WorkingOrdersModel.h"

#include <QWidget>

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
  QTableView* ordersView() const { return ordersView_; }
  // The model of the tab being shown, as sorted on screen.
  const QAbstractItemModel& shownModel() const;

 public slots:
  void cancelSelected();
  void exportShown();

 signals:
  void cancelRequested(tessera::OrderId order);
  void cancelAllRequested();
  void sellBackRequested(tessera::ContractId contract);

 private:
  QTableView* makeView(QAbstractItemModel* model, QSortFilterProxyModel** proxy);

  WorkingOrdersModel* orders_;
  FillsModel* fills_;
  ContractsModel* contracts_;
  QSortFilterProxyModel* ordersProxy_ = nullptr;
  QSortFilterProxyModel* fillsProxy_ = nullptr;
  QSortFilterProxyModel* contractsProxy_ = nullptr;
  QTabWidget* tabs_;
  QTableView* ordersView_;
  QTableView* fillsView_;
  QTableView* contractsView_;
};

}  // namespace tessera::ui
