#include "ui/shell/MainWindow.h"

#include "ui/account/AccountPanel.h"
#include "ui/ladder/DepthLadder.h"
#include "ui/blotter/BlotterWidget.h"
#include "ui/blotter/ReportDeliveryDialog.h"
#include "ui/blotter/CsvExport.h"
#include "ui/grid/OrderBookGridView.h"
#include "ui/market/ClusterListWidget.h"
#include "ui/market/PlotStyle.h"
#include "ui/market/PriceChartWidget.h"
#include "ui/market/PriceIndexWidget.h"
#include "ui/forwards/ForwardsPanel.h"
#include "ui/options/OptionChainPanel.h"
#include "core/settlement/ContractSettlement.h"
#include "ui/market/TradesTapeModel.h"
#include "ui/shell/DisplayFormat.h"
#include "ui/ticket/AmendDialog.h"
#include "ui/ticket/OrderMessages.h"
#include "ui/ticket/OrderTicket.h"
#include "ui/session/ExchangeBackend.h"
#include "ui/session/OnFillWatcher.h"

#include "ui/backtest/BacktestDock.h"
#include "ui/planner/PlannerFormat.h"
#include "ui/planner/PlannerPanel.h"
#include "ui/shell/PlannerBridge.h"
#include "ui/shell/TerminalOptions.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTabBar>
#include <QTableWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

namespace tessera::ui {

MainWindow::MainWindow(TradingSession& session, QWidget* parent) : QMainWindow(parent), session_(session) {
  setObjectName("mainWindow");
  // Qt appends the application's display name ("Tessera"): "GPU compute trading terminal — Tessera".
  setWindowTitle(tr("GPU compute trading terminal"));
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);

  auto* centre = new QWidget(this);
  auto* cl = new QVBoxLayout(centre);
  cl->setContentsMargins(2, 2, 2, 2);
  auto* bar = new QHBoxLayout;
  grid_ = new OrderBookGridView(centre);
  grid_->setObjectName("orderBookGrid");
  auto zoomButton = [&](const QString& text, double hours) {
    auto* b = new QToolButton(centre);
    b->setText(text);
    connect(b, &QToolButton::clicked, this, [this, hours] {
      grid_->setVisibleHours(std::max<Hour>(session_.now(), static_cast<Hour>(grid_->visibleFirstHour())), hours);
    });
    bar->addWidget(b);
  };
  bar->addWidget(new QLabel(tr("Show:"), centre));
  zoomButton(tr("2 days"), 48);
  zoomButton(tr("Week"), 24 * 7);
  zoomButton(tr("Month"), 24 * 30);
  auto* nowButton = new QToolButton(centre);
  nowButton->setText(tr("Now"));
  connect(nowButton, &QToolButton::clicked, this,
          [this] { grid_->setVisibleHours(session_.now(), grid_->visibleHourCount()); });
  bar->addWidget(nowButton);
  bar->addStretch();
  cl->addLayout(bar);
  cl->addWidget(grid_, 1);
  setCentralWidget(centre);

  buildDocks();
  buildMenus();
  buildStatusBar();
  statusBar()->showMessage(tr("Drag a rectangle on the grid for an order ticket. Wheel: zoom, Shift+wheel: pan. "
                              "Outlined: my orders, filled: my contracts. F1: shortcuts."),
                           20000);
  connectSession();
  defaultState_ = saveState();
  restoreLayout();
  keepDockTabsReadable();
  for (QDockWidget* d : docks_) {
    connect(d, &QDockWidget::dockLocationChanged, this,
            [this] { QTimer::singleShot(0, this, [this] { keepDockTabsReadable(); }); });
  }
}

void MainWindow::keepDockTabsReadable() {
  // Docks tabbed together ("Price chart", "Price index", ...) scroll their tabs rather than
  // eliding the titles to "Price ..." where they can no longer be told apart.
  for (QTabBar* bar : findChildren<QTabBar*>(Qt::FindDirectChildrenOnly)) {
    bar->setElideMode(Qt::ElideNone);
    bar->setUsesScrollButtons(true);
  }
}

MainWindow::~MainWindow() = default;

QString MainWindow::clusterName(ClusterId id) const {
  if (const Cluster* c = session_.cluster(id)) return QString::fromStdString(c->name);
  return tr("cluster %1").arg(id);
}

QString MainWindow::watchedTitle() const {
  const auto ids = session_.watchedClusters();
  if (ids.empty()) return tr("no cluster selected");
  if (ids.size() == 1) {
    if (const Cluster* c = session_.cluster(ids.front())) {
      return tr("%1  -  %2 x %3, %4, %5, %6")
          .arg(QString::fromStdString(c->name))
          .arg(c->totalGpus())
          .arg(toQString(toString(c->accelerator)))
          .arg(QString::fromStdString(c->region))
          .arg(toQString(toString(c->fabric)))
          .arg(QString::fromStdString(c->provider));
    }
    return clusterName(ids.front());
  }
  QStringList names;
  for (ClusterId id : ids) names << clusterName(id);
  return tr("Group of %1 clusters: %2").arg(ids.size()).arg(names.join(", "));
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area,
                                 bool scrolls) {
  auto* d = new QDockWidget(title, this);
  d->setObjectName(name);
  if (scrolls) {
    // Forms and chart panels scroll rather than forcing their full size on the window.
    auto* area = new QScrollArea(d);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setWidget(w);
    d->setWidget(area);
  } else {
    d->setWidget(w);
  }
  addDockWidget(area, d);
  docks_.push_back(d);
  return d;
}

void MainWindow::buildDocks() {
  auto names = [this](ClusterId id) { return clusterName(id); };
  clusters_ = new ClusterListWidget(this);
  auto* clusterDock = addDock(tr("Clusters"), "clustersDock", clusters_, Qt::LeftDockWidgetArea);

  ticket_ = new OrderTicket(this);
  ticketDock_ = addDock(tr("Order ticket"), "ticketDock", ticket_, Qt::RightDockWidgetArea, true);
  account_ = new AccountPanel(this);
  auto* accountDock = addDock(tr("Account"), "accountDock", account_, Qt::LeftDockWidgetArea);
  splitDockWidget(clusterDock, accountDock, Qt::Vertical);

  blotter_ = new BlotterWidget(names, this);
  auto* blotterDock = addDock(tr("Blotter"), "blotterDock", blotter_, Qt::BottomDockWidgetArea);

  tape_ = new TradesTapeModel(names, this);
  tapeView_ = new QTableView(this);
  tapeView_->setObjectName("tradesTape");
  tapeView_->setModel(tape_);
  tapeView_->verticalHeader()->hide();
  tapeView_->verticalHeader()->setDefaultSectionSize(20);
  tapeView_->horizontalHeader()->setStretchLastSection(true);
  tapeView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  // Fixed widths: measuring a 2000-row tape on every print would cost more than drawing it.
  for (auto [col, w] : {std::pair{0, 48}, {1, 64}, {2, 44}, {3, 44}, {4, 118}, {5, 170}})
    tapeView_->setColumnWidth(col, w);
  auto* tapeDock = addDock(tr("Trades tape"), "tapeDock", tapeView_, Qt::RightDockWidgetArea);
  splitDockWidget(ticketDock_, tapeDock, Qt::Vertical);
  ladder_ = new DepthLadder(this);
  ladderDock_ = addDock(tr("Depth ladder"), "ladderDock", ladder_, Qt::RightDockWidgetArea);
  tabifyDockWidget(tapeDock, ladderDock_);
  ladderDock_->raise();

  chart_ = new PriceChartWidget(this);
  auto* chartDock = addDock(tr("Price chart"), "chartDock", chart_, Qt::BottomDockWidgetArea);
  splitDockWidget(blotterDock, chartDock, Qt::Horizontal);
  index_ = new PriceIndexWidget(this);
  index_->setSource(session_.indexSource());
  auto* indexDock = addDock(tr("Price index"), "indexDock", index_, Qt::BottomDockWidgetArea);
  tabifyDockWidget(chartDock, indexDock);
  forwards_ = new ForwardsPanel(this);
  auto* forwardsDock = addDock(tr("Forwards"), "forwardsDock", forwards_, Qt::BottomDockWidgetArea, true);
  tabifyDockWidget(chartDock, forwardsDock);
  options_ = new OptionChainPanel(this);
  auto* optionsDock = addDock(tr("Option chain"), "optionsDock", options_, Qt::BottomDockWidgetArea, true);
  tabifyDockWidget(chartDock, optionsDock);
  chartDock->raise();
  blotter_->setSettlementAvailable(session_.settlesContracts());

  // The planner (topology map, effective-cost chart, bandwidth sensitivity, region map) ranks
  // the offers the live book makes for each workload.
  auto* plannerPanel = new planner::PlannerPanel(this);
  plannerPanel->setObjectName("plannerPanel");
  planner_ = new PlannerBridge(session_, plannerPanel, this);
  const QStringList problems = planner_->loadWorkloads();
  if (!problems.isEmpty()) statusBar()->showMessage(problems.join("; "), 15000);
  // No scroll area: the panel fits itself to the dock (splitter, folding question), so its
  // table, chart and buttons are never scrolled out of sight.
  auto* plannerDock =
      addDock(tr("Planner: effective cost, topology"), "plannerDock", plannerPanel, Qt::BottomDockWidgetArea, false);
  tabifyDockWidget(chartDock, plannerDock);
  chartDock->raise();
  // "Buy this placement": the ticket gets the plan's all-or-none bid and effective-cost factors.
  connect(
      plannerPanel, &planner::PlannerPanel::buyPlacementRequested, this,
      [this](const cost::PlannedPlacement& p, const QString& workload) {
        OrderTicket::PlanPrefill plan;
        plan.cluster = p.cluster.id;
        plan.window = GridSelection{p.start, p.end, p.gpus, Side::Buy};
        plan.limit = p.limit;
        plan.costFactors = {p.costFactor};
        plan.effectiveCostNote =
            tr("Plan for %1: effective cost %2 for the completed work (%3 per GPU-hour of compute) "
               "against an average ask of %4 per GPU-hour; the bid carries the plan's cost factor (x%5).")
                .arg(workload, planner::moneyText(p.cost.terms.total()),
                     formatPrice(static_cast<Price>(std::llround(p.cost.effectivePricePerGpuHour * kMicrosPerDollar))),
                     formatPrice(static_cast<Price>(std::llround(p.offer.pricePerGpuHour * kMicrosPerDollar))))
                .arg(static_cast<double>(p.costFactor.ppm) / 1e6, 0, 'f', 3);
        ticket_->prefillPlan(plan);
        ticketDock_->show();
        ticketDock_->raise();
      });
  // Right-click a cluster in the cluster list: its topology in the planner dock.
  clusters_->view()->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(clusters_->view(), &QWidget::customContextMenuRequested, this,
          [this, plannerPanel, plannerDock](const QPoint& pos) {
            const QModelIndex index = clusters_->view()->indexAt(pos);
            if (!index.isValid()) return;
            const auto id = static_cast<ClusterId>(index.data(ClusterListModel::ClusterIdRole).toUInt());
            const Cluster* c = session_.cluster(id);
            if (!c) return;
            QMenu menu(this);
            menu.addAction(tr("Topology of %1").arg(QString::fromStdString(c->name)), this,
                           [plannerPanel, plannerDock, c = *c] {
                             plannerDock->show();
                             plannerDock->raise();
                             plannerPanel->showClusterTopology(c);
                           });
            menu.exec(clusters_->view()->viewport()->mapToGlobal(pos));
          });
  // Right-click the grid's title: the topology of the watched cluster (each of a group's).
  connect(grid_, &OrderBookGridView::titleMenuRequested, this, [this, plannerPanel, plannerDock](QPoint at) {
    auto* menu = new QMenu(this);
    menu->setObjectName("gridTitleMenu");
    menu->setAttribute(Qt::WA_DeleteOnClose);
    for (ClusterId id : session_.watchedClusters())
      if (const Cluster* c = session_.cluster(id))
        menu->addAction(tr("Topology of %1").arg(QString::fromStdString(c->name)), this,
                        [plannerPanel, plannerDock, c = *c] {
                          plannerDock->show();
                          plannerDock->raise();
                          plannerPanel->showClusterTopology(c);
                        });
    if (menu->isEmpty())
      delete menu;
    else
      menu->popup(at);
  });
  // A contract's "Topology" in the blotter: its cluster with the contract's GPUs highlighted.
  connect(blotter_, &BlotterWidget::topologyRequested, this, [this, plannerPanel, plannerDock](const Contract& k) {
    const Cluster* c = session_.cluster(k.cluster);
    if (!c) return;
    plannerDock->show();
    plannerDock->raise();
    plannerPanel->showContractTopology(
        *c, k.gpus,
        tr("contract #%1: %2 GPUs, %3 – %4 (drawn on whole nodes from node 0; the exchange does not name nodes)")
            .arg(k.id)
            .arg(k.gpus)
            .arg(formatHour(k.start), formatHour(k.end)));
  });
  auto* backtestDock = addDock(tr("Backtest"), "backtestDock", new BacktestDock(this), Qt::BottomDockWidgetArea, true);
  tabifyDockWidget(chartDock, backtestDock);
  chartDock->raise();

  chartTimer_ = new QTimer(this);
  chartTimer_->setInterval(500);
  connect(chartTimer_, &QTimer::timeout, this, [this] {
    if (indexDirty_) {
      indexDirty_ = false;
      index_->setHistory(session_.index());
      for (const auto& [accelerator, value] : session_.nextDayIndex())
        forwards_->setIndex(accelerator, value.first, value.second);
    }
    if (!chartDirty_) return;
    chartDirty_ = false;
    chart_->setTrades(session_.trades());
  });
  chartTimer_->start();
  // The grid gets the middle; the bottom row (blotter, chart) runs under it, and on a large
  // screen under the clusters and account too, so the blotter's tables get the width (a
  // laptop's 768 pixels of height stay with the side docks).
  const QScreen* screen = QGuiApplication::primaryScreen();
  const bool wide = screen && screen->availableGeometry().width() >= 1600;
  setCorner(Qt::BottomLeftCorner, wide ? Qt::BottomDockWidgetArea : Qt::LeftDockWidgetArea);
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  resizeDocks({clusterDock, ticketDock_}, {400, 360}, Qt::Horizontal);
  resizeDocks({blotterDock}, {270}, Qt::Vertical);
  resizeDocks({blotterDock, chartDock}, {600, 400}, Qt::Horizontal);
  resizeDocks({ticketDock_, tapeDock}, {420, 380}, Qt::Vertical);
}

void MainWindow::buildMenus() {
  auto add = [this](QMenu* m, const QString& text, const QKeySequence& key, auto slot) {
    auto* a = m->addAction(text);
    if (!key.isEmpty()) {
      a->setShortcut(key);
      a->setShortcutContext(Qt::ApplicationShortcut);
      actions_.push_back(a);
    }
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  QMenu* file = menuBar()->addMenu(tr("&File"));
  add(file, tr("&Export blotter table as CSV..."), QKeySequence(tr("Ctrl+E")), [this] { blotter_->exportShown(); });
  file->addSeparator();
  newPaperAccount_ = add(file, tr("&New paper account..."), QKeySequence(), [this] {
    const AccountSummary& a = session_.account();
    const QString text =
        tr("Start a new paper account with $1,000,000?\n\nEverything in the current one is lost for good: its cash "
           "(%1), %2 working orders, %3 contracts, forward positions and settlement history. The journal\n%4\nis "
           "deleted "
           "and the terminal restarts.")
            .arg(formatMoney(a.balance))
            .arg(session_.workingOrders().size())
            .arg(session_.contracts().size())
            .arg(paperAccountPath_);
    if (QMessageBox::warning(this, tr("New paper account"), text, QMessageBox::Discard | QMessageBox::Cancel,
                             QMessageBox::Cancel) == QMessageBox::Discard)
      emit newPaperAccountRequested();
  });
  newPaperAccount_->setVisible(false);
  file->addSeparator();
  add(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

  QMenu* order = menuBar()->addMenu(tr("&Order"));
  add(order, tr("New &buy ticket"), QKeySequence(Qt::Key_F2), [this] {
    ticket_->setKind(TicketKind::AllOrNoneBuy);
    ticket_->renewDeliveredWindow();
    ticket_->offerLimitOnce();
    ticketDock_->show();
    ticketDock_->raise();
    ticket_->setFocus();
  });
  add(order, tr("New &sell ticket"), QKeySequence(Qt::Key_F3), [this] {
    ticket_->setKind(TicketKind::DivisibleSell);
    ticket_->renewDeliveredWindow();
    ticket_->offerLimitOnce();
    ticketDock_->show();
    ticketDock_->raise();
    ticket_->setFocus();
  });
  add(order, tr("Sell &back a held contract"), QKeySequence(Qt::Key_F4), [this] {
    ticket_->setKind(TicketKind::SellBack);
    ticketDock_->show();
    ticketDock_->raise();
  });
  add(order, tr("Su&bmit ticket"), QKeySequence(tr("Ctrl+Return")), [this] { ticket_->submit(); });
  add(order, tr("&Cancel selected order"), QKeySequence(tr("Ctrl+K")), [this] { blotter_->cancelSelected(); });
  add(order, tr("Cancel &all my orders"), QKeySequence(tr("Ctrl+Shift+K")), [this] { confirmCancelAll(); });

  viewMenu_ = menuBar()->addMenu(tr("&View"));
  add(viewMenu_, tr("Show &2 days"), QKeySequence(tr("Ctrl+1")),
      [this] { grid_->setVisibleHours(static_cast<Hour>(grid_->visibleFirstHour()), 48); });
  add(viewMenu_, tr("Show a &week"), QKeySequence(tr("Ctrl+2")),
      [this] { grid_->setVisibleHours(static_cast<Hour>(grid_->visibleFirstHour()), 24 * 7); });
  add(viewMenu_, tr("Show a &month"), QKeySequence(tr("Ctrl+3")),
      [this] { grid_->setVisibleHours(static_cast<Hour>(grid_->visibleFirstHour()), 24 * 30); });
  add(viewMenu_, tr("Zoom &in"), QKeySequence::ZoomIn,
      [this] { grid_->zoomBy(0.8, grid_->visibleFirstHour() + grid_->visibleHourCount() / 2); });
  add(viewMenu_, tr("Zoom &out"), QKeySequence::ZoomOut,
      [this] { grid_->zoomBy(1.25, grid_->visibleFirstHour() + grid_->visibleHourCount() / 2); });
  add(viewMenu_, tr("Go to &now"), QKeySequence(Qt::Key_Home),
      [this] { grid_->setVisibleHours(session_.now(), grid_->visibleHourCount()); });
  add(viewMenu_, tr("&Find cluster"), QKeySequence::Find, [this] { clusters_->focusSearch(); });
  add(viewMenu_, tr("Focus the &grid"), QKeySequence(tr("Ctrl+G")), [this] { grid_->setFocus(); });
  add(viewMenu_, tr("Toggle dark/light &theme"), QKeySequence(tr("Ctrl+T")),
      [this] { setTheme(theme_ == Theme::Dark ? Theme::Light : Theme::Dark); });
  add(viewMenu_, tr("&Reset layout"), QKeySequence(), [this] { restoreState(defaultState_); });
  viewMenu_->addSeparator();
  for (QDockWidget* d : docks_) viewMenu_->addAction(d->toggleViewAction());

  QMenu* settings = menuBar()->addMenu(tr("&Settings"));
  add(settings, tr("&Confirmation threshold..."), QKeySequence(), [this] {
    bool ok = false;
    const int v = QInputDialog::getInt(
        this, tr("Confirmation threshold"), tr("Ask for confirmation of orders larger than (GPU-hours):"),
        static_cast<int>(std::min<std::int64_t>(ticket_->confirmAboveGpuHours(), 2'000'000'000)), 0, 2'000'000'000, 100,
        &ok);
    if (!ok) return;
    ticket_->setConfirmAboveGpuHours(v);
    QSettings().setValue("ticket/confirmAboveGpuHours", v);
  });
  embeddedCallMode_ = settings->addAction(tr("Embedded exchange trades in &calls"));
  embeddedCallMode_->setObjectName("embeddedCallModeAction");
  embeddedCallMode_->setCheckable(true);
  embeddedCallMode_->setToolTip(
      tr("Every cluster of the embedded exchange clears in a call every 30 seconds instead of trading "
         "continuously; the grid shows the next call's indicative prices and a countdown"));
  embeddedCallMode_->setVisible(false);
  connect(embeddedCallMode_, &QAction::triggered, this, [this](bool calls) {
    setEmbeddedCallMode(calls);
    const QString mode = calls ? tr("in calls") : tr("continuously");
    const auto answer = QMessageBox::question(
        this, tr("Market mode"),
        tr("The embedded exchange will trade %1.\n\nRestart it now? Your paper account (cash, contracts, orders) "
           "is kept; working orders of the other mode are cancelled (their cash released).")
            .arg(mode),
        QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
    if (answer == QMessageBox::Yes)
      emit embeddedRestartRequested();
    else
      statusBar()->showMessage(tr("The embedded exchange trades %1 from the next start").arg(mode), 8000);
  });

  QMenu* helpMenu = menuBar()->addMenu(tr("&Help"));
  add(helpMenu, tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_F1), [this] { showShortcuts(); });
  add(helpMenu, tr("&About Tessera"), QKeySequence(), [this] {
    QMessageBox::about(this, tr("About Tessera"),
                       tr("<b>Tessera %1</b><br>A trading terminal for GPU compute: time x GPU-count order book, "
                          "all-or-none and divisible orders, flexible windows and cluster constraints.")
                           .arg(QApplication::applicationVersion()));
  });
}

QList<QAction*> MainWindow::shortcutActions() const { return actions_; }

void MainWindow::showShortcuts() {
  QDialog d(this);
  d.setWindowTitle(tr("Keyboard shortcuts"));
  auto* l = new QVBoxLayout(&d);
  auto* table = new QTableWidget(0, 2, &d);
  table->setHorizontalHeaderLabels({tr("Action"), tr("Shortcut")});
  auto row = [table](const QString& what, const QString& key) {
    const int r = table->rowCount();
    table->insertRow(r);
    table->setItem(r, 0, new QTableWidgetItem(what));
    table->setItem(r, 1, new QTableWidgetItem(key));
  };
  for (QAction* a : actions_) row(a->text().remove('&'), a->shortcut().toString(QKeySequence::NativeText));
  row(tr("Submit the order ticket (in the ticket)"), tr("Enter"));
  row(tr("Cancel the order ticket (in the ticket)"), tr("Esc"));
  row(tr("Cancel the selected working order (in the blotter)"), tr("Del"));
  row(tr("Amend the selected working order (in the blotter)"), tr("Shift+F2"));
  row(tr("Drag single GPUs instead of whole nodes"), tr("Shift+drag"));
  row(tr("Amend or cancel an own order on the grid"), tr("Right-click its outline"));
  row(tr("Zoom / pan the grid (grid focused)"), tr("+ / -, Left / Right, wheel, Shift+wheel"));
  row(tr("Open a ticket for a rectangle"), tr("Left-drag on the grid"));
  row(tr("Order at a price (bid side: buy, ask side: sell)"), tr("Click a level in the Depth ladder"));
  row(tr("A contract's held shape after sales"), tr("Double-click it in the blotter"));
  table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 8);  // every row on a 768-pixel screen
  table->resizeColumnsToContents();
  table->horizontalHeader()->setStretchLastSection(true);
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  l->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &d);
  connect(buttons, &QDialogButtonBox::rejected, &d, &QDialog::reject);
  l->addWidget(buttons);
  // Wide enough for both columns, tall enough for every row, within the screen.
  QSize want(table->horizontalHeader()->length() + table->verticalScrollBar()->sizeHint().width() + 48,
             table->verticalHeader()->length() + table->horizontalHeader()->height() + 110);
  if (const QScreen* screen = this->screen()) want = want.boundedTo(screen->availableGeometry().size() - QSize(40, 60));
  d.resize(want);
  d.exec();
}

void MainWindow::buildStatusBar() {
  connection_ = new QLabel(this);
  accountLabel_ = new QLabel(this);
  clock_ = new QLabel(this);
  latency_ = new QLabel(this);
  latency_->setObjectName("latencyLabel");
  showLatency();
  statusBar()->addPermanentWidget(connection_);
  statusBar()->addPermanentWidget(accountLabel_);
  statusBar()->addPermanentWidget(clock_);
  statusBar()->addPermanentWidget(latency_);
  updateStatus();
}

void MainWindow::showLatency() {
  auto ms = [](double v) { return QString::number(v, 'f', v < 10 ? 2 : 0); };
  QString order =
      session_.lastLatencyMs() > 0
          ? tr("Your last order: %1 ms from sending to the exchange's answer.").arg(ms(session_.lastLatencyMs()))
          : tr("No order answered yet.");
  if (!session_.measuresRoundTrip()) {
    latency_->setText(session_.lastLatencyMs() > 0 ? tr("order round trip %1 ms").arg(ms(session_.lastLatencyMs()))
                                                   : tr("in-process market: no network"));
    latency_->setToolTip(tr("The engine runs inside the terminal: there is no connection to measure. %1").arg(order));
    return;
  }
  const auto rtt = session_.roundTripMs();
  latency_->setText(rtt ? tr("round trip %1 ms").arg(ms(*rtt)) : tr("round trip measuring\u2026"));
  latency_->setToolTip(tr("Round trip to the exchange and back, measured every few seconds. %1").arg(order));
}

void MainWindow::updateStatus() {
  static const char* states[] = {"connecting", "connected", "disconnected"};
  const int s = static_cast<int>(session_.connection());
  const QString colour = s == 1 ? "#3b3" : (s == 0 ? "#db3" : "#e44");
  connection_->setText(QStringLiteral("<span style='color:%1'>&#9679;</span> %2: %3")
                           .arg(colour, tr(states[s]), session_.connectionDetail().toHtmlEscaped()));
  accountLabel_->setText(tr("account %1").arg(session_.account().name.isEmpty() ? tr("-") : session_.account().name));
  clock_->setText(tr("exchange time %1 UTC").arg(session_.now() ? formatHour(session_.now()) : tr("-")));
}

void MainWindow::watchSelected() {
  auto ids = clusters_->selected();
  if (ids.empty()) return;
  watchedFrom_ = session_.now();
  session_.watch(ids, watchedFrom_, kWatchedHours);
  // A drag steps by whole nodes of the (first) cluster shown.
  if (const Cluster* c = session_.cluster(ids.front())) grid_->setGpuStep(c->gpusPerNode);
  grid_->setTitle(watchedTitle());
  grid_->setCallAuction(session_.callAuction(), ids.front());
  chart_->setClusters(ids, ids.size() == 1 ? clusterName(ids.front()) : tr("group of %1 clusters").arg(ids.size()));
  chartDirty_ = true;
}

void MainWindow::updateForwardsAvailability() {
  if (!session_.tradesForwards())
    forwards_->setAvailable(false, tr("This market has no forwards: the in-process engine trades capacity only. "
                                      "Run the terminal on an exchange (the default) to trade index forwards."));
  else if (session_.connection() != ConnectionState::Connected)
    forwards_->setAvailable(false, tr("Not connected to the exchange."));
  else
    forwards_->setAvailable(true, {});
  // Options trade where forwards do, on the same exchange.
  if (!session_.tradesForwards())
    options_->setAvailable(false, tr("This market has no options: the in-process engine trades capacity only. "
                                     "Run the terminal on an exchange (the default) to trade index options."));
  else if (session_.connection() != ConnectionState::Connected)
    options_->setAvailable(false, tr("Not connected to the exchange."));
  else {
    options_->setAvailable(true, {});
    session_.watchOptionChain(options_->selectedAccelerator());
  }
}

void MainWindow::connectSession() {
  connect(forwards_, &ForwardsPanel::submitRequested, this, [this](const net::ForwardNewOrder& o) {
    const QString what = tr("%1 %2 GPU-hours of the %3 index, week of %4, at %5/GPU-h (notional %6)")
                             .arg(o.side == Side::Buy ? tr("Buy (long)") : tr("Sell (short)"))
                             .arg(formatCount(o.gpuHours))
                             .arg(toQString(toString(o.accelerator)), formatDay(o.weekStart), formatPrice(o.price),
                                  formatMoney(o.price * o.gpuHours));
    if (o.price * o.gpuHours > confirmForwardAbove_ &&
        QMessageBox::question(this, tr("Confirm forward order"), tr("Send this forward order?\n\n%1").arg(what)) !=
            QMessageBox::Yes)
      return;
    session_.submitForward(o);
    statusBar()->showMessage(tr("Forward order sent: %1").arg(what), 6000);
  });
  connect(forwards_, &ForwardsPanel::cancelRequested, this, [this](std::uint64_t id) { session_.cancelForward(id); });
  connect(forwards_, &ForwardsPanel::bookWanted, this,
          [this](Accelerator a, Hour week) { session_.watchForward(a, week); });
  connect(&session_, &TradingSession::forwardBookChanged, this,
          [this](const net::ForwardBookView& b) { forwards_->setBook(b); });
  connect(&session_, &TradingSession::forwardOrdersChanged, this,
          [this] { forwards_->setWorkingOrders(session_.forwardOrders()); });
  connect(&session_, &TradingSession::forwardPositionsChanged, this,
          [this] { forwards_->setPositions(session_.forwardPositions()); });
  connect(&session_, &TradingSession::forwardNoted, this, [this](const QString& text) {
    forwards_->addNotice(QStringLiteral("%1  %2").arg(formatHour(session_.now()), text));
    statusBar()->showMessage(text, 6000);
  });
  connect(options_, &OptionChainPanel::chainWanted, this, [this](Accelerator a) { session_.watchOptionChain(a); });
  // A click on the chain fills the order ticket's option mode; the ticket sends the order.
  connect(options_, &OptionChainPanel::seriesPicked, this,
          [this](const indexoptions::OptionSeries& s, Side side, std::optional<Price> premium) {
            ticket_->prefillOption(s, side, premium);
            ticketDock_->show();
            ticketDock_->raise();
          });
  connect(ticket_, &OrderTicket::optionSubmitRequested, this, [this](const net::OptionNewOrder& o) {
    session_.submitOption(o);
    statusBar()->showMessage(tr("Option order sent: %1 %2 GPU-h of %3 at %4/GPU-h")
                                 .arg(o.side == Side::Buy ? tr("buy") : tr("write"))
                                 .arg(QLocale().toString(static_cast<qlonglong>(o.gpuHours)))
                                 .arg(QString::fromStdString(indexoptions::seriesName(o.series)))
                                 .arg(formatPrice(o.premium)),
                             6000);
  });
  // The exchange follows one class's chain: the chain dock shows the class the ticket prices.
  connect(ticket_, &OrderTicket::optionChainWanted, this, [this](Accelerator a) { options_->showAccelerator(a); });
  connect(&session_, &TradingSession::optionChainChanged, this, [this](const net::OptionChainView& c) {
    options_->setChain(c);
    ticket_->setOptionChain(c);
  });
  connect(&session_, &TradingSession::optionNoted, this, [this](const QString& text) {
    options_->addNotice(QStringLiteral("%1  %2").arg(formatHour(session_.now()), text));
    statusBar()->showMessage(text, 6000);
  });
  updateForwardsAvailability();
  connect(&session_, &TradingSession::connectionChanged, this, [this] {
    updateForwardsAvailability();
    updateStatus();
    if (session_.connection() == ConnectionState::Disconnected)
      statusBar()->showMessage(tr("Disconnected: %1").arg(session_.connectionDetail()), 10000);
  });
  connect(&session_, &TradingSession::clustersChanged, this, [this] {
    clusters_->setClusters(session_.clusters());
    ticket_->setClusters(session_.clusters());
    if (clusters_->selected().empty() && !session_.clusters().empty()) {
      QSettings s;
      std::vector<ClusterId> want;
      for (const QVariant& v : s.value("grid/clusters").toList()) want.push_back(v.toUInt());
      clusters_->select(want);
      if (clusters_->selected().empty()) clusters_->select({session_.clusters().front().id});
    }
  });
  connect(clusters_, &ClusterListWidget::selectionChanged, this,
          [this](const std::vector<ClusterId>&) { watchSelected(); });
  connect(&session_, &TradingSession::clusterQuotesChanged, this,
          [this] { clusters_->setQuotes(session_.clusterQuotes()); });
  connect(&session_, &TradingSession::bookChanged, this, [this] {
    grid_->setSnapshot(session_.book());
    ticket_->setBook(session_.book());
    const auto ids = session_.watchedClusters();
    QStringList names;
    for (ClusterId id : ids) names << clusterName(id);
    ladder_->setBook(session_.book(), names.join(QStringLiteral(" + ")));
  });
  connect(grid_, &OrderBookGridView::hoursUnderCursor, ladder_, &DepthLadder::followHours);
  // The ladder shows the depth a ticket would meet: its hours, on its cluster (the grid follows
  // a cluster chosen on the ticket, as the ladder shows the grid's book). The hour under the
  // cursor takes over again when the cursor rests on the grid.
  connect(ticket_, &OrderTicket::windowChanged, this, [this](ClusterId cluster, Hour start, Hour end) {
    const auto watched = session_.watchedClusters();
    if (cluster && session_.cluster(cluster) && !(watched.size() == 1 && watched.front() == cluster))
      clusters_->select({cluster});
    ladder_->showTicketHours(start, end);
  });
  connect(ladder_, &DepthLadder::levelClicked, this,
          [this](Side side, Price price, GpuCount gpus, Hour first, Hour end) {
            const auto ids = session_.watchedClusters();
            if (ids.empty()) return;
            ticket_->prefillAtPrice(ids.front(), side, first, end, gpus, price);
            ticketDock_->show();
            ticketDock_->raise();
          });
  connect(&session_, &TradingSession::tradesPrinted, this, [this](const std::vector<TradePrint>& t) {
    tape_->addTrades(t);
    grid_->flashTrades(t);
    chartDirty_ = true;
  });
  connect(&session_, &TradingSession::clockChanged, this, [this](Hour now) {
    grid_->setNow(now);
    blotter_->setNow(now);
    ticket_->setNow(now);
    index_->setNow(now);
    forwards_->setNow(now);
    updateStatus();
    // Keep the grid's hours starting at the exchange clock as it moves on.
    if (now != watchedFrom_) watchSelected();
  });
  connect(&session_, &TradingSession::callAuctionChanged, this, [this] {
    const auto ids = session_.watchedClusters();
    grid_->setCallAuction(session_.callAuction(), ids.empty() ? 0 : ids.front());
    ticket_->setCallAuction(session_.callAuction());
  });
  connect(&session_, &TradingSession::workingOrdersChanged, this, [this] {
    blotter_->workingOrders().setOrders(session_.workingOrders());
    grid_->setOwnOrders(session_.workingOrders());
    ladder_->setOwnOrders(session_.workingOrders());
  });
  connect(&session_, &TradingSession::ordersFinished, this,
          [this](const std::vector<FinishedOrder>& f) { blotter_->orderHistory().add(f); });
  connect(&session_, &TradingSession::callTradesNoted, this,
          [this](const std::vector<TradeId>& t) { blotter_->fills().markCallTrades(t); });
  connect(&session_, &TradingSession::fillsAdded, this, [this](const std::vector<Fill>& f) {
    blotter_->fills().addFills(f);
    for (const Fill& x : f) {
      statusBar()->showMessage(tr("Filled: %1 %2 GPUs on %3, %4 to %5 at %6")
                                   .arg(x.side == Side::Buy ? tr("bought") : tr("sold"))
                                   .arg(x.gpus)
                                   .arg(clusterName(x.cluster))
                                   .arg(formatHour(x.start))
                                   .arg(formatHour(x.end))
                                   .arg(formatPrice(x.price)),
                               8000);
    }
  });
  connect(&session_, &TradingSession::contractsChanged, this, [this] {
    blotter_->contracts().setContracts(session_.contracts(), session_.marks(), session_.account().id);
    grid_->setOwnContracts(session_.contracts(), session_.account().id, session_.marks());
    ticket_->setContracts(session_.contracts(), session_.account().id, session_.marks());
  });
  connect(&session_, &TradingSession::accountChanged, this, [this] {
    refreshAccount();
    updateStatus();
  });
  // Forwards are in the account's total: their margin and P&L at the index.
  connect(&session_, &TradingSession::forwardPositionsChanged, this, &MainWindow::refreshAccount);
  connect(&session_, &TradingSession::indexChanged, this, &MainWindow::refreshAccount);
  connect(&session_, &TradingSession::contractStatusChanged, this, [this] {
    blotter_->contracts().setSettlement(session_.contractStatus(), session_.shortfallContracts(),
                                        session_.settlesContracts());
  });
  connect(&session_, &TradingSession::settlementNoted, this, [this](const std::vector<SettlementNote>& notes) {
    blotter_->settlementNotes().addNotes(notes);
    if (!notes.empty())
      statusBar()->showMessage(tr("Contract #%1: %2").arg(notes.back().contract).arg(notes.back().what), 8000);
  });
  connect(&session_, &TradingSession::indexChanged, this, [this] { indexDirty_ = true; });
  connect(blotter_, &BlotterWidget::reportDeliveryRequested, this, &MainWindow::openDeliveryReport);
  // One id for an order wherever the trader sees it: the market's own number (the blotter's).
  const auto names = [this](ClusterId id) { return clusterName(id); };
  connect(&session_, &TradingSession::orderAccepted, this, [this, names](OrderId id) {
    const OrderId shown = session_.shownId(id);
    const auto it = pending_.find(id);
    statusBar()->showMessage(it != pending_.end()
                                 ? tr("Order #%1 accepted: %2").arg(shown).arg(describeOrder(it->second, names))
                                 : tr("Order #%1 accepted").arg(shown),
                             8000);
    if (it != pending_.end()) pending_.erase(it);
    ticket_->noteAccepted(id, shown);
  });
  connect(&session_, &TradingSession::orderCancelled, this, [this](OrderId id, const QString& why) {
    statusBar()->showMessage(tr("Order #%1 cancelled: %2").arg(session_.shownId(id)).arg(describeCancel(why)), 6000);
  });
  connect(&session_, &TradingSession::orderRejected, this, [this, names](OrderId id, const QString& why) {
    const QString plain = describeReject(why);
    const auto it = pending_.find(id);
    const QString what = it != pending_.end() ? describeOrder(it->second, names) : QString();
    if (it != pending_.end()) pending_.erase(it);
    ticket_->noteRejected(id, plain);
    showError(tr("Order not accepted"), what.isEmpty()
                                            ? tr("The exchange did not accept the order.\n\n%1").arg(plain)
                                            : tr("The exchange did not accept the order:\n%1\n\n%2").arg(what, plain));
  });
  connect(&session_, &TradingSession::errorOccurred, this, [this](const QString& m) { showError(tr("Error"), m); });
  connect(&session_, &TradingSession::latencyMeasured, this, [this] { showLatency(); });
  connect(&session_, &TradingSession::roundTripMeasured, this, [this] { showLatency(); });

  connect(grid_, &OrderBookGridView::selectionMade, this, &MainWindow::openTicketFromGrid);
  ticket_->setOrderIdSource([this] { return session_.newOrderId(); });
  ticket_->setBookReader([this](std::function<void(const Matcher&)> job) { session_.runOnBook(std::move(job)); });
  connect(ticket_, &OrderTicket::submitRequested, this, [this, names](const OrderRequest& o) {
    const OrderId id = session_.submit(o);
    pending_[id] = o;
    statusBar()->showMessage(tr("Order sent, waiting for the exchange: %1").arg(describeOrder(o, names)), 8000);
    attachOnFill(id, ticket_->onFillCommand());
  });
  connect(ticket_, &OrderTicket::cancelled, this, [this] {
    statusBar()->showMessage(tr("Ticket cancelled"), 3000);
    grid_->setFocus();
  });
  connect(blotter_, &BlotterWidget::cancelRequested, this, [this](OrderId id) { session_.cancel(id); });
  connect(blotter_, &BlotterWidget::cancelAllRequested, this, &MainWindow::confirmCancelAll);
  connect(blotter_, &BlotterWidget::amendRequested, this, &MainWindow::openAmendDialog);
  connect(grid_, &OrderBookGridView::ownOrderClicked, this, [this](OrderId id) {
    blotter_->selectOrder(id);
    statusBar()->showMessage(
        tr("Order #%1 selected in the blotter (right-click it on the grid to amend or cancel)").arg(id), 5000);
  });
  connect(grid_, &OrderBookGridView::amendOrderRequested, this, &MainWindow::openAmendDialog);
  connect(grid_, &OrderBookGridView::cancelOrderRequested, this, [this](OrderId id) { session_.cancel(id); });
  connect(blotter_, &BlotterWidget::sellBackRequested, this, [this](ContractId id) {
    ticket_->sellBack(id);
    ticketDock_->show();
    ticketDock_->raise();
  });
}

void MainWindow::confirmCancelAll() {
  const std::size_t n = session_.workingOrders().size();
  if (n == 0) {
    statusBar()->showMessage(tr("No working orders to cancel"), 4000);
    return;
  }
  if (QMessageBox::question(this, tr("Cancel all"), tr("Cancel all %1 working orders?").arg(n)) == QMessageBox::Yes)
    session_.cancelAllWorking();
}

void MainWindow::openAmendDialog(OrderId id) {
  const OrderView* o = nullptr;
  for (const OrderView& x : session_.workingOrders())
    if (x.request.id == id) o = &x;
  if (!o) {
    statusBar()->showMessage(tr("Order #%1 is no longer working").arg(id), 5000);
    return;
  }
  GpuCount most = 1'000'000;
  if (o->request.cluster)
    if (const Cluster* c = session_.cluster(*o->request.cluster)) most = c->totalGpus();
  auto* d = new AmendDialog(o->request, id, most,
                            describeOrder(o->request, [this](ClusterId c) { return clusterName(c); }), this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  connect(d, &QDialog::accepted, this, [this, d, id] {
    session_.amend(id, d->newLimit(), d->newGpus());
    statusBar()->showMessage(tr("Amendment of order #%1 sent").arg(id), 5000);
  });
  d->open();
}

void MainWindow::openTicketFromGrid(const GridSelection& selection) {
  const auto ids = session_.watchedClusters();
  if (ids.empty()) return;
  ticket_->prefill(ids.front(), selection);
  ticketDock_->show();
  ticketDock_->raise();
  if (ids.size() > 1)
    statusBar()->showMessage(
        tr("The grid shows a group: the ticket is for %1; pick another in the ticket.").arg(clusterName(ids.front())),
        8000);
}

void MainWindow::refreshAccount() {
  std::size_t held = 0;
  for (const Contract& c : session_.contracts()) held += c.buyer == session_.account().id ? 1 : 0;
  const auto f = session_.forwardTotals();
  account_->setAccount(session_.account(), ForwardFigures{f.margin, f.pnl}, held, session_.workingOrders().size());
}

void MainWindow::openDeliveryReport(const Contract& contract) {
  auto* d = new ReportDeliveryDialog(contract, session_.now(), this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  connect(d, &QDialog::accepted, this, [this, d] {
    const auto r = d->report();
    if (const auto* report = std::get_if<DeliveryReport>(&r)) {
      session_.reportDelivery(*report);
      statusBar()->showMessage(tr("Delivery problem on contract #%1 reported").arg(report->contract), 6000);
    }
  });
  // Window-modal and non-blocking, like the error dialogs: the market keeps updating.
  d->open();
}

void MainWindow::setPaperAccount(const QString& journalPath) {
  paperAccountPath_ = journalPath;
  newPaperAccount_->setVisible(!journalPath.isEmpty());
}

void MainWindow::setEmbeddedMarketMode(bool calls) {
  embeddedCallMode_->setChecked(calls);
  embeddedCallMode_->setVisible(true);
}

void MainWindow::enableOnFill(const QString& statePath, const QString& account, std::function<QString()> exchange) {
  delete onFill_;
  onFill_ = new OnFillWatcher(session_, statePath, account, std::move(exchange), this);
  if (!onFill_->error().isEmpty()) {
    statusBar()->showMessage(tr("On-fill commands are off: %1").arg(onFill_->error()), 15000);
    ticket_->setOnFillAvailable(false);
    return;
  }
  ticket_->setOnFillAvailable(true);
  connect(onFill_, &OnFillWatcher::commandStarted, this, [this](ContractId contract, const QString& command) {
    qInfo("on-fill: contract %llu: running `%s`", static_cast<unsigned long long>(contract), qPrintable(command));
    statusBar()->showMessage(tr("Contract #%1 filled: running its on-fill command `%2`").arg(contract).arg(command),
                             8000);
  });
  connect(onFill_, &OnFillWatcher::commandExited, this, [this](ContractId contract, int status) {
    qInfo("on-fill: contract %llu: exit status %d", static_cast<unsigned long long>(contract), status);
    const QString what = status < 0 ? tr("could not be started") : tr("exited with status %1").arg(status);
    statusBar()->showMessage(tr("Contract #%1: the on-fill command %2").arg(contract).arg(what), 15000);
  });
}

void MainWindow::attachOnFill(OrderId sentId, const QString& command) {
  if (command.isEmpty()) return;
  QString why;
  if (onFill_ && onFill_->watch(sentId, QString::fromStdString(ExchangeBackend::clOrdIdFor(sentId)), command, &why))
    return;
  showError(tr("On-fill command not kept"), tr("The order was sent, but its on-fill command will not run: %1")
                                                .arg(onFill_ ? why : tr("this market has none")));
}

void MainWindow::showError(const QString& title, const QString& text) {
  statusBar()->showMessage(QString(text).replace('\n', ' '), 10000);
  // Window-modal and non-blocking: the market keeps updating behind the dialog.
  auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();
}

void MainWindow::setTheme(Theme theme) {
  theme_ = theme;
  if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) applyTheme(*app, theme);
  chart_->setDark(theme == Theme::Dark);
  index_->setDark(theme == Theme::Dark);
  if (auto* planner = findChild<planner::PlannerPanel*>("plannerPanel"))
    planner->setPlotStyle([dark = theme == Theme::Dark](QCustomPlot* plot) { stylePlot(plot, dark); });
  QSettings().setValue("ui/theme", theme == Theme::Dark ? "dark" : "light");
  update();
}

QRect MainWindow::availableArea() const {
  const QScreen* screen = this->screen() ? this->screen() : QGuiApplication::primaryScreen();
  return screen ? screen->availableGeometry() : QRect();
}

void MainWindow::restoreLayout() {
  QSettings s;
  if (!restoreGeometry(s.value("window/geometry").toByteArray())) {
    // First start: the screen's free area up to 1920 x 1200 (a 1920 x 1080 screen gives the
    // blotter and the grid its width), at least what fits a laptop's 1366 x 768.
    QSize size(1600, 1000);
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
      size = screen->availableGeometry().size().boundedTo(QSize(1920, 1200));
      move(screen->availableGeometry().topLeft());
    }
    resize(size);
  } else {
    // A layout saved on a larger screen (1920 x 1080 on a 1366 x 768 laptop): the window is
    // brought within this screen's free area, now and once shown (when its frame is known); the
    // docks then share the smaller window as the main window's layout divides it.
    fitWindowIntoScreen();
  }
  if (!restoreState(s.value("window/state").toByteArray())) {
    // First start: size the docks once the window has its real size, then keep the window,
    // its frame included, on the screen.
    QTimer::singleShot(0, this, [this] {
      sizeDocksForScreen();
      fitWindowIntoScreen();
    });
  } else {
    QTimer::singleShot(0, this, [this] {
      arrangeForSmallScreen();
      fitWindowIntoScreen();
    });
  }
  ticket_->setConfirmAboveGpuHours(s.value("ticket/confirmAboveGpuHours", 100000).toLongLong());
  setTheme(s.value("ui/theme", "dark").toString() == "light" ? Theme::Light : Theme::Dark);
}

void MainWindow::fitWindowIntoScreen() {
  const QRect area = availableArea();
  if (!area.isValid() || area.contains(frameGeometry())) return;
  if (isMaximized() || isFullScreen()) return;  // the window system fits these itself
  // The frame (title bar, borders) comes on top of the geometry and must fit as well.
  const QMargins frame(geometry().left() - frameGeometry().left(), geometry().top() - frameGeometry().top(),
                       frameGeometry().right() - geometry().right(), frameGeometry().bottom() - geometry().bottom());
  const QRect room = area.marginsRemoved(frame);
  QRect g = geometry();
  g.setSize(g.size().boundedTo(room.size()));
  g.moveTopLeft(QPoint(std::clamp(g.left(), room.left(), room.right() - g.width() + 1),
                       std::clamp(g.top(), room.top(), room.bottom() - g.height() + 1)));
  setGeometry(g);
}

void MainWindow::arrangeForSmallScreen() {
  const QScreen* screen = QGuiApplication::primaryScreen();
  auto* blotter = findChild<QDockWidget*>("blotterDock");
  if (!screen || screen->availableGeometry().width() >= 1600 || !blotter) return;
  // A small screen: the side docks keep the height down to the bottom edge (a layout saved on a
  // large screen brings its corners with it), and the bottom docks share the blotter's place as
  // tabs; side by side they would push the window past the screen's edge or squeeze the ticket.
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  for (QDockWidget* d : docks_)
    if (d != blotter && !d->isFloating() && dockWidgetArea(d) == Qt::BottomDockWidgetArea) tabifyDockWidget(blotter, d);
  blotter->raise();
  resize(size().boundedTo(screen->availableGeometry().size()));
}

void MainWindow::sizeDocksForScreen() {
  QDockWidget* byName[4] = {};
  const char* names[] = {"clustersDock", "ticketDock", "blotterDock", "chartDock"};
  for (int i = 0; i < 4; ++i) byName[i] = findChild<QDockWidget*>(names[i]);
  if (!byName[0] || !byName[1]) return;
  // The ticket gets its full width and height (with room for a reason under two fields),
  // so that on a small screen it is not cut off or scrolled; the clusters give way first.
  arrangeForSmallScreen();
  const int ticketWidth = std::max(width() * 24 / 100, ticket_->sizeHint().width() + 24);
  const int clustersWidth = std::min(width() * 26 / 100, std::max(220, width() - ticketWidth - 620));
  resizeDocks({byName[0], byName[1]}, {clustersWidth, ticketWidth}, Qt::Horizontal);
  if (auto* tape = findChild<QDockWidget*>("tapeDock")) {
    // The whole ticket, Submit included, where the screen allows (its word-wrapped terms and
    // quote make its size hint too short to go by); the tape takes the rest.
    const int ticketHeight = std::max(std::min(ticket_->sizeHint().height() + 40, height() - 120), height() * 68 / 100);
    resizeDocks({byName[1], tape}, {ticketHeight, std::max(80, height() - ticketHeight)}, Qt::Vertical);
  }
  resizeDocks({byName[2]}, {height() * 30 / 100}, Qt::Vertical);
  // The account panel takes what its figures need; the cluster list above it the rest.
  if (auto* account = findChild<QDockWidget*>("accountDock");
      account && !tabifiedDockWidgets(byName[0]).contains(account))
    resizeDocks({byName[0], account}, {height(), account->sizeHint().height()}, Qt::Vertical);
  // The blotter's tables need the width more than the chart does; once the window has the
  // size the window system gave it (the extra width would otherwise go to the chart).
  QTimer::singleShot(300, this, [this, blotter = byName[2], chart = byName[3]] {
    if (blotter && chart) resizeDocks({blotter, chart}, {width() * 62 / 100, width() * 22 / 100}, Qt::Horizontal);
  });
}

void MainWindow::saveLayout() {
  QSettings s;
  s.setValue("window/geometry", saveGeometry());
  s.setValue("window/state", saveState());
  QVariantList ids;
  for (ClusterId id : clusters_->selected()) ids << id;
  s.setValue("grid/clusters", ids);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  saveLayout();
  e->accept();
}

}  // namespace tessera::ui
