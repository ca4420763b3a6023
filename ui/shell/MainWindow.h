#pragma once
// The terminal's main window: the order-book grid in the centre, docks around it (clusters,
// order ticket, account, blotter, trades tape, price chart, and the planner and backtest docks
// when they are built), status bar, shortcuts, themes, and the layout saved in QSettings.
#include "ui/session/TradingSession.h"
#include "ui/shell/Theme.h"

#include <QMainWindow>

#include <functional>
#include <map>

class QAction;
class QDockWidget;
class QLabel;
class QTableView;
class QTimer;

namespace tessera::ui {

class AccountPanel;
class BlotterWidget;
class ClusterListWidget;
class DepthLadder;
class OrderBookGridView;
class OnFillWatcher;
class OrderTicket;
class PriceChartWidget;
class PriceIndexWidget;
class ForwardsPanel;
class OptionChainPanel;
class PlannerBridge;
class TradesTapeModel;
struct GridSelection;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(TradingSession& session, QWidget* parent = nullptr);
  ~MainWindow() override;

  OrderBookGridView* grid() const { return grid_; }
  OrderTicket* ticket() const { return ticket_; }
  BlotterWidget* blotter() const { return blotter_; }
  ClusterListWidget* clusterList() const { return clusters_; }
  PriceChartWidget* priceChart() const { return chart_; }
  PriceIndexWidget* priceIndex() const { return index_; }
  AccountPanel* accountPanel() const { return account_; }
  DepthLadder* depthLadder() const { return ladder_; }
  QDockWidget* ladderDock() const { return ladderDock_; }
  QList<QDockWidget*> docks() const { return docks_; }
  // Every action with a shortcut, as the Help lists them.
  QList<QAction*> shortcutActions() const;
  void setTheme(Theme theme);
  Theme theme() const { return theme_; }
  // Hours of book the grid asks for, from the exchange clock on.
  static constexpr int kWatchedHours = 24 * 30;

 public slots:
  void openTicketFromGrid(const tessera::ui::GridSelection& selection);
  // The delivery-problem dialog for a contract the account sold; the report goes to the market.
  void openDeliveryReport(const tessera::Contract& contract);
  void refreshAccount();
  void showShortcuts();
  // Asks, then cancels every working order (menu, shortcut and the blotter's button).
  void confirmCancelAll();
  // The amend dialog for working order `id` (grid context menu, blotter).
  void openAmendDialog(tessera::OrderId id);
  // The market is the paper account journaled at `journalPath`: File > New paper account...
  // is offered (it asks, then emits newPaperAccountRequested).
  void setPaperAccount(const QString& journalPath);
  // The market is the embedded exchange, trading in calls (`calls`) or continuously: Settings >
  // "Embedded exchange trades in calls" is offered; choosing it remembers the mode
  // (setEmbeddedCallMode) and, if the user agrees, emits embeddedRestartRequested.
  void setEmbeddedMarketMode(bool calls);
  // The ticket offers "On fill run" for buys: commands kept in `statePath` (ui/session
  // OnFillWatcher), told `account` and `exchange()`. Shows why in the status bar if the file
  // cannot be used. Only for a market that is an exchange (ExchangeBackend's client order ids).
  void enableOnFill(const QString& statePath, const QString& account, std::function<QString()> exchange);
  OnFillWatcher* onFillWatcher() const { return onFill_; }

 signals:
  // The user confirmed starting over: whoever owns the session closes it, deletes the journal
  // and starts again.
  void newPaperAccountRequested();
  // The user changed the embedded exchange's market mode and wants it now: whoever owns the
  // session closes it and starts the embedded exchange again on the same paper account.
  void embeddedRestartRequested();

 protected:
  void closeEvent(QCloseEvent* e) override;

 private:
  void buildDocks();
  void buildMenus();
  void buildStatusBar();
  void connectSession();
  void watchSelected();
  void updateStatus();
  // The status bar's round trip: measured (ms), "measuring…" until the first answer.
  void showLatency();
  void showError(const QString& title, const QString& text);
  void restoreLayout();
  // The screen's free area (the window's screen, else the primary one).
  QRect availableArea() const;
  // First start: dock sizes for this screen.
  void sizeDocksForScreen();
  // On a screen under 1,600 pixels wide: side docks to the bottom edge, bottom docks as tabs.
  void arrangeForSmallScreen();
  // The window (with its frame) inside the screen's free area, moved and then shrunk.
  void fitWindowIntoScreen();
  void keepDockTabsReadable();
  void saveLayout();
  QDockWidget* addDock(const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area,
                       bool scrolls = false);
  QString clusterName(ClusterId id) const;
  QString watchedTitle() const;

  TradingSession& session_;
  OrderBookGridView* grid_ = nullptr;
  OrderTicket* ticket_ = nullptr;
  BlotterWidget* blotter_ = nullptr;
  ClusterListWidget* clusters_ = nullptr;
  PriceChartWidget* chart_ = nullptr;
  PriceIndexWidget* index_ = nullptr;
  ForwardsPanel* forwards_ = nullptr;
  OptionChainPanel* options_ = nullptr;  // the option chain dock
  void updateForwardsAvailability();
  bool indexDirty_ = false;
  AccountPanel* account_ = nullptr;
  DepthLadder* ladder_ = nullptr;
  QDockWidget* ladderDock_ = nullptr;
  TradesTapeModel* tape_ = nullptr;
  QTableView* tapeView_ = nullptr;
  QList<QDockWidget*> docks_;
  QDockWidget* ticketDock_ = nullptr;
  QMenu* viewMenu_ = nullptr;
  QAction* newPaperAccount_ = nullptr;
  QAction* embeddedCallMode_ = nullptr;
  QString paperAccountPath_;
  QList<QAction*> actions_;
  QLabel* connection_ = nullptr;
  QLabel* accountLabel_ = nullptr;
  QLabel* clock_ = nullptr;
  QLabel* latency_ = nullptr;
  QTimer* chartTimer_ = nullptr;
  PlannerBridge* planner_ = nullptr;
  bool chartDirty_ = false;
  Theme theme_ = Theme::Dark;
  QByteArray defaultState_;
  Hour watchedFrom_ = -1;
  // Orders sent and not yet answered, by the id they were sent with: how rejects describe them.
  std::map<OrderId, OrderRequest> pending_;
  // Keeps the ticket's on-fill command for the order it sent (an error dialog if it cannot).
  void attachOnFill(OrderId sentId, const QString& command);
  OnFillWatcher* onFill_ = nullptr;
  // Forward orders with a notional above this ask for confirmation.
  Money confirmForwardAbove_ = 10'000 * kMicrosPerDollar;
};

}  // namespace tessera::ui
