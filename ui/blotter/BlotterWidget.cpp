#include "ui/blotter/BlotterWidget.h"

#include "ui/blotter/ContractDetailDialog.h"
#include "ui/blotter/CsvExport.h"
#include "ui/blotter/EmptyTableNote.h"

#include <QAction>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTimer>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace tessera::ui {

BlotterWidget::BlotterWidget(ClusterNames names, QWidget* parent)
    : QWidget(parent),
      orders_(new WorkingOrdersModel(names, this)),
      fills_(new FillsModel(names, this)),
      contracts_(new ContractsModel(names, this)),
      notes_(new SettlementNotesModel(this)),
      history_(new OrderHistoryModel(names, this)),
      names_(names) {
  setObjectName("blotter");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  tabs_ = new QTabWidget(this);
  ordersView_ = makeView(orders_, &ordersProxy_);
  ordersView_->setObjectName("workingOrdersView");
  fillsView_ = makeView(fills_, &fillsProxy_);
  contractsView_ = makeView(contracts_, &contractsProxy_);
  tabs_->addTab(ordersView_, tr("Working orders"));
  tabs_->addTab(fillsView_, tr("Fills"));
  contractsView_->setObjectName("contractsView");
  tabs_->addTab(contractsView_, tr("Contracts"));
  notesView_ = makeView(notes_, &notesProxy_);
  notesView_->setObjectName("settlementView");
  notesView_->sortByColumn(SettlementNotesModel::ExchangeHour, Qt::DescendingOrder);
  for (auto [col, w] : {std::pair{SettlementNotesModel::ExchangeHour, 124},
                        {SettlementNotesModel::Contract, 64},
                        {SettlementNotesModel::State, 112}})
    notesView_->setColumnWidth(col, w);
  contractsView_->setColumnWidth(ContractsModel::Id, 76);
  contractsView_->setColumnWidth(ContractsModel::State, 112);
  auto* settlementTab = new QWidget(this);
  auto* sl = new QVBoxLayout(settlementTab);
  sl->setContentsMargins(0, 0, 0, 0);
  settlementHint_ = new QLabel(settlementTab);
  settlementHint_->setObjectName("settlementHint");
  settlementHint_->setWordWrap(true);
  settlementHint_->setMargin(4);
  sl->addWidget(settlementHint_);
  sl->addWidget(notesView_, 1);
  tabs_->addTab(settlementTab, tr("Settlement"));
  historyView_ = makeView(history_, &historyProxy_);
  historyView_->setObjectName("orderHistoryView");
  historyView_->sortByColumn(OrderHistoryModel::Ended, Qt::DescendingOrder);
  tabs_->addTab(historyView_, tr("Order history"));
  // An empty table says why it is empty and how to fill it.
  new EmptyTableNote(ordersView_, tr("No working orders — drag on the grid or press F2 to place one."));
  new EmptyTableNote(fillsView_, tr("No fills yet — each trade of one of your orders is listed here."));
  new EmptyTableNote(contractsView_, tr("No contracts — every fill is a contract: the GPUs you bought, or sold, "
                                        "for its hours."));
  new EmptyTableNote(historyView_, tr("No finished orders yet — orders that fill, are cancelled, expire or are "
                                      "rejected are listed here with how and when they ended."));
  connect(notes_, &QAbstractItemModel::rowsInserted, this, &BlotterWidget::updateSettlementHint);
  updateSettlementHint();
  layout->addWidget(tabs_);

  auto* buttons = new QHBoxLayout;
  auto* cancel = new QPushButton(tr("Cancel (Del)"), this);
  auto* cancelAll = new QPushButton(tr("Cancel all"), this);
  auto* sellBack = new QPushButton(tr("Sell back..."), this);
  auto* exportCsvButton = new QPushButton(tr("CSV..."), this);
  buttons->addWidget(cancel);
  buttons->addWidget(cancelAll);
  buttons->addWidget(sellBack);
  buttons->addStretch();
  buttons->addWidget(exportCsvButton);
  layout->addLayout(buttons);
  connect(cancel, &QPushButton::clicked, this, &BlotterWidget::cancelSelected);
  connect(cancelAll, &QPushButton::clicked, this, &BlotterWidget::cancelAllRequested);
  connect(exportCsvButton, &QPushButton::clicked, this, &BlotterWidget::exportShown);
  connect(sellBack, &QPushButton::clicked, this, [this] {
    const QModelIndex i = contractsView_->currentIndex();
    if (!i.isValid()) return;
    if (const Contract* c = contracts_->contractAt(contractsProxy_->mapToSource(i).row()))
      emit sellBackRequested(c->id);
  });

  auto* del = new QAction(tr("Cancel order"), ordersView_);
  del->setShortcut(QKeySequence::Delete);
  del->setShortcutContext(Qt::WidgetShortcut);
  connect(del, &QAction::triggered, this, &BlotterWidget::cancelSelected);
  ordersView_->addAction(del);
  auto* amend = new QAction(tr("Amend price or GPUs..."), ordersView_);
  amend->setObjectName("amendOrderAction");
  amend->setShortcut(QKeySequence(Qt::Key_F2 | Qt::ShiftModifier));
  amend->setShortcutContext(Qt::WidgetShortcut);
  connect(amend, &QAction::triggered, this, &BlotterWidget::amendSelected);
  ordersView_->addAction(amend);
  ordersView_->setContextMenuPolicy(Qt::ActionsContextMenu);

  reportDelivery_ = new QAction(tr("Report delivery problem..."), contractsView_);
  reportDelivery_->setObjectName("reportDeliveryAction");
  connect(reportDelivery_, &QAction::triggered, this, [this] {
    if (const Contract* c = currentContract(); c && c->seller == contracts_->me()) emit reportDeliveryRequested(*c);
  });
  auto* detailAction = new QAction(tr("Details and held shape..."), contractsView_);
  detailAction->setObjectName("contractDetailAction");
  connect(detailAction, &QAction::triggered, this, &BlotterWidget::showContractDetail);
  connect(contractsView_, &QAbstractItemView::doubleClicked, this, &BlotterWidget::showContractDetail);
  auto* sellBackAction = new QAction(tr("Sell back..."), contractsView_);
  connect(sellBackAction, &QAction::triggered, sellBack, &QPushButton::click);
  contractsView_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(contractsView_, &QWidget::customContextMenuRequested, this, [this, sellBackAction, detailAction](QPoint at) {
    const Contract* c = currentContract();
    if (!c) return;
    // Only the provider reports delivery; only a holder sells back.
    reportDelivery_->setEnabled(c->seller == contracts_->me() && settles_);
    reportDelivery_->setToolTip(settles_ ? QString() : tr("This market does not settle contracts."));
    sellBackAction->setEnabled(c->buyer == contracts_->me());
    QMenu menu(contractsView_);
    menu.setToolTipsVisible(true);
    menu.addAction(detailAction);
    menu.addAction(reportDelivery_);
    menu.addAction(sellBackAction);
    menu.addSeparator();
    const Contract k = *c;
    menu.addAction(tr("Topology of %1").arg(names_(k.cluster)), this, [this, k] { emit topologyRequested(k); })
        ->setObjectName("contractTopologyAction");
    menu.exec(contractsView_->viewport()->mapToGlobal(at));
  });
}

void BlotterWidget::showContractDetail() {
  const Contract* c = currentContract();
  if (!c) return;
  const ContractMark* held = c->buyer == contracts_->me() ? contracts_->heldOf(c->id) : nullptr;
  auto* d = new ContractDetailDialog(*c, held, now_, names_, this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  d->show();
}

const Contract* BlotterWidget::currentContract() const {
  const QModelIndex i = contractsView_->currentIndex();
  if (!i.isValid()) return nullptr;
  return contracts_->contractAt(contractsProxy_->mapToSource(i).row());
}

void BlotterWidget::setSettlementAvailable(bool settles) {
  settles_ = settles;
  updateSettlementHint();
}

void BlotterWidget::updateSettlementHint() {
  if (!settles_) {
    settlementHint_->setText(
        tr("This market does not settle contracts (the in-process engine has no escrow, delivery "
           "or remedies), so there are no settlement notices. Run the terminal on an exchange, "
           "the default, to see them."));
    settlementHint_->show();
  } else if (notes_->rowCount() == 0) {
    settlementHint_->setText(
        tr("No settlement steps yet: they appear here as your contracts start, deliver and settle."));
    settlementHint_->show();
  } else {
    settlementHint_->hide();
  }
}

QTableView* BlotterWidget::makeView(QAbstractItemModel* model, QSortFilterProxyModel** proxy) {
  *proxy = new QSortFilterProxyModel(this);
  (*proxy)->setSourceModel(model);
  (*proxy)->setSortRole(Qt::UserRole);
  auto* v = new QTableView(this);
  v->setModel(*proxy);
  v->setSortingEnabled(true);
  v->setSelectionBehavior(QAbstractItemView::SelectRows);
  v->setSelectionMode(QAbstractItemView::ExtendedSelection);
  v->setAlternatingRowColors(true);
  v->verticalHeader()->hide();
  v->verticalHeader()->setDefaultSectionSize(20);
  v->horizontalHeader()->setStretchLastSection(true);
  v->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  // Left-aligned titles stay in sight over a wide column (the held shape).
  v->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  v->horizontalHeader()->setDefaultSectionSize(96);
  v->horizontalHeader()->setResizeContentsPrecision(200);
  // Columns widen to what they show (never narrower than the trader made them), so cluster names
  // and the held shape are not cut; coalesced, as fills and marks arrive in bursts.
  auto* fit = new QTimer(v);
  fit->setSingleShot(true);
  fit->setInterval(150);
  connect(fit, &QTimer::timeout, v, [v] {
    QHeaderView* h = v->horizontalHeader();
    for (int c = 0; c + 1 < h->count(); ++c) {
      const int was = h->sectionSize(c);
      v->resizeColumnToContents(c);
      h->resizeSection(c, std::max(was, std::min(460, h->sectionSize(c))));
    }
  });
  connect(*proxy, &QAbstractItemModel::modelReset, fit, qOverload<>(&QTimer::start));
  connect(*proxy, &QAbstractItemModel::rowsInserted, fit, qOverload<>(&QTimer::start));
  connect(*proxy, &QAbstractItemModel::layoutChanged, fit, qOverload<>(&QTimer::start));
  return v;
}

const QAbstractItemModel& BlotterWidget::shownModel() const {
  switch (tabs_->currentIndex()) {
    case 1: return *fillsProxy_;
    case 2: return *contractsProxy_;
    case 3: return *notesProxy_;
    case 4: return *historyProxy_;
    default: return *ordersProxy_;
  }
}

void BlotterWidget::cancelSelected() {
  const auto rows = ordersView_->selectionModel()->selectedRows();
  if (rows.isEmpty()) {
    QMessageBox::information(this, tr("Cancel order"), tr("Select a working order to cancel first."));
    return;
  }
  for (const QModelIndex& i : rows) {
    if (const OrderView* o = orders_->orderAt(ordersProxy_->mapToSource(i).row())) emit cancelRequested(o->request.id);
  }
}

void BlotterWidget::amendSelected() {
  const QModelIndex i = ordersView_->currentIndex();
  if (!i.isValid()) return;
  if (const OrderView* o = orders_->orderAt(ordersProxy_->mapToSource(i).row())) emit amendRequested(o->request.id);
}

bool BlotterWidget::selectOrder(OrderId id) {
  for (int row = 0; row < orders_->rowCount(); ++row) {
    const OrderView* o = orders_->orderAt(row);
    if (!o || o->request.id != id) continue;
    tabs_->setCurrentIndex(0);
    const QModelIndex at = ordersProxy_->mapFromSource(orders_->index(row, 0));
    ordersView_->selectRow(at.row());
    ordersView_->scrollTo(at);
    return true;
  }
  return false;
}

void BlotterWidget::exportShown() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export %1").arg(tabs_->tabText(tabs_->currentIndex())),
      tabs_->tabText(tabs_->currentIndex()).toLower().replace(' ', '-') + ".csv", tr("CSV files (*.csv)"));
  if (path.isEmpty()) return;
  const QString error = exportCsv(shownModel(), path);
  if (!error.isEmpty())
    QMessageBox::critical(this, tr("Export failed"), tr("Could not write %1:\n%2").arg(path, error));
}

}  // namespace tessera::ui
