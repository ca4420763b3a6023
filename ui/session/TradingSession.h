#pragma once
// The one facade between the terminal's widgets and a market. It lives on the GUI thread,
// owns a MarketBackend running on a worker thread, talks to it through queued connections
// only, and keeps the latest state the widgets read.
#include "ui/session/MarketBackend.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QThread>

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <tuple>

namespace tessera::ui {

class TradingSession : public QObject {
  Q_OBJECT
 public:
  explicit TradingSession(std::unique_ptr<MarketBackend> backend, QObject* parent = nullptr);
  ~TradingSession() override;

  void start();
  // Sends the order; an order with id 0 gets a fresh id. Returns the id it was sent with (its
  // client order id: the same id sent twice is one order, the exchange refuses the second).
  OrderId submit(OrderRequest order);
  OrderId newOrderId() { return nextOrderId_++; }
  // The id a person sees for an order: the market's own number once it has one (what the
  // blotter lists and cancels go by), else the id it was sent with.
  OrderId shownId(OrderId id) const { return numbered_.value(id, id); }
  void cancel(OrderId order);
  void amend(OrderId order, std::optional<Price> limit, std::optional<GpuCount> gpus);
  void cancelAllWorking();
  void watch(std::vector<ClusterId> clusters, Hour firstHour, int hours);
  // Runs `job` against the backend's engine on its thread (see MarketBackend::runOnBook).
  void runOnBook(std::function<void(const Matcher&)> job);
  // Provider side: a delivery problem on a contract we sold (see MarketBackend::reportDelivery).
  void reportDelivery(const DeliveryReport& report);
  // Index forwards (see MarketBackend): send, cancel, and which book to follow.
  bool tradesForwards() const { return forwards_; }
  void submitForward(net::ForwardNewOrder order);
  void cancelForward(std::uint64_t orderId);
  void watchForward(Accelerator accelerator, Hour weekStart);
  // Index options: send, and which class's chain to follow (optionChainChanged brings it).
  void submitOption(net::OptionNewOrder order);
  void watchOptionChain(Accelerator accelerator);
  const std::map<std::pair<Accelerator, Hour>, net::ForwardBookView>& forwardBooks() const { return forwardBooks_; }
  const std::vector<net::ForwardWorkingOrder>& forwardOrders() const { return forwardOrders_; }
  const std::vector<net::ForwardPositionView>& forwardPositions() const { return forwardPositions_; }
  // The reclaim rate the exchange observes on each interruptible cluster (md_reclaim_rates).
  const std::map<ClusterId, net::ReclaimRate>& reclaimRates() const { return reclaimRates_; }
  // The latest next-day index per accelerator class (for marking forwards), and whether stale.
  std::map<Accelerator, std::pair<Price, bool>> nextDayIndex() const;
  // Open forward positions: the margin they hold and their P&L at the next-day index (at their
  // last mark while the index of their class is unknown), as the Forwards dock marks them.
  struct ForwardTotals {
    Money margin = 0;
    Money pnl = 0;
  };
  ForwardTotals forwardTotals() const;

  ConnectionState connection() const { return connection_; }
  const QString& connectionDetail() const { return connectionDetail_; }
  const std::vector<Cluster>& clusters() const { return clusters_; }
  const Cluster* cluster(ClusterId id) const;
  const std::vector<ClusterQuote>& clusterQuotes() const { return quotes_; }
  BookSnapshotPtr book() const { return book_; }
  const std::vector<OrderView>& workingOrders() const { return working_; }
  const std::vector<Fill>& fills() const { return fills_; }
  // Orders that stopped working, oldest first (see MarketBackend::ordersFinished).
  const std::vector<FinishedOrder>& finishedOrders() const { return finished_; }
  const std::vector<Contract>& contracts() const { return contracts_; }
  const std::vector<ContractMark>& marks() const { return marks_; }
  const std::deque<TradePrint>& trades() const { return trades_; }
  const AccountSummary& account() const { return account_; }
  Hour now() const { return now_; }
  // Round trip of the last order: submit to accept/reject, in milliseconds.
  double lastLatencyMs() const { return lastLatencyMs_; }
  // The last measured round trip to the market and back (a ping), if measured yet.
  std::optional<double> roundTripMs() const { return roundTripMs_; }
  bool measuresRoundTrip() const { return measuresRoundTrip_; }
  std::vector<ClusterId> watchedClusters() const { return watched_; }
  // Settlement: whether the market settles contracts at all, every notice so far (oldest
  // first, at most kSettlementHistory), and the latest status of each of our contracts.
  bool settlesContracts() const { return settles_; }
  const std::deque<SettlementNote>& settlementNotes() const { return notes_; }
  const std::map<ContractId, ContractSettlementStatus>& contractStatus() const { return status_; }
  const ContractSettlementStatus* statusOf(ContractId id) const;
  // Contracts that were ever failed or partly delivered: the mark stays after they settle.
  const std::set<ContractId>& shortfallContracts() const { return shortfall_; }
  // The price index: where it comes from, and the values received (one per class, tenor and
  // hour: a history sent again after a reconnect replaces, never doubles), for kIndexDays.
  IndexSource indexSource() const { return indexSource_; }
  const IndexHistory& index() const { return index_; }
  // The call mode (empty schedule: every cluster trades continuously).
  const CallAuctionView& callAuction() const { return callAuction_; }

  static constexpr std::size_t kTradeHistory = 20000;
  static constexpr std::size_t kSettlementHistory = 20000;
  static constexpr Hour kIndexDays = 60;

 signals:
  void connectionChanged();
  void clustersChanged();
  void clusterQuotesChanged();
  void bookChanged();
  void tradesPrinted(const std::vector<tessera::ui::TradePrint>& trades);
  void clockChanged(tessera::Hour now);
  void orderAccepted(tessera::OrderId order);
  void orderRejected(tessera::OrderId order, const QString& reason);
  void orderCancelled(tessera::OrderId order, const QString& reason);
  void workingOrdersChanged();
  void fillsAdded(const std::vector<tessera::Fill>& fills);
  void callTradesNoted(const std::vector<tessera::TradeId>& trades);
  void ordersFinished(const std::vector<tessera::ui::FinishedOrder>& orders);
  void contractsChanged();
  void accountChanged();
  void latencyMeasured(double ms);
  void roundTripMeasured(double ms);
  void errorOccurred(const QString& message);
  void settlementNoted(const std::vector<tessera::ui::SettlementNote>& notes);
  void contractStatusChanged();
  void indexChanged();
  void callAuctionChanged();
  void forwardBookChanged(const tessera::net::ForwardBookView& book);
  void forwardOrdersChanged();
  void forwardPositionsChanged();
  void forwardNoted(const QString& text);
  void optionChainChanged(const tessera::net::OptionChainView& chain);
  void optionNoted(const QString& text);
  void reclaimRatesChanged();

 private:
  void connectBackend();
  void noteReply(OrderId order);

  QThread thread_;
  MarketBackend* backend_ = nullptr;  // owned, deleted on the worker thread when it finishes
  OrderId nextOrderId_ = 0;
  QHash<OrderId, qint64> sentAtNs_;
  QHash<OrderId, OrderId> numbered_;
  QElapsedTimer clock_;

  ConnectionState connection_ = ConnectionState::Connecting;
  QString connectionDetail_;
  std::vector<Cluster> clusters_;
  std::vector<ClusterQuote> quotes_;
  BookSnapshotPtr book_;
  std::vector<OrderView> working_;
  std::vector<Fill> fills_;
  std::vector<FinishedOrder> finished_;
  std::vector<Contract> contracts_;
  std::vector<ContractMark> marks_;
  std::deque<TradePrint> trades_;
  AccountSummary account_;
  Hour now_ = 0;
  double lastLatencyMs_ = 0;
  std::optional<double> roundTripMs_;
  bool measuresRoundTrip_ = false;
  std::vector<ClusterId> watched_;
  bool settles_ = false;
  std::deque<SettlementNote> notes_;
  std::map<ContractId, ContractSettlementStatus> status_;
  std::set<ContractId> shortfall_;
  IndexSource indexSource_ = IndexSource::None;
  IndexHistory index_;
  CallAuctionView callAuction_;
  bool forwards_ = false;
  std::map<std::pair<Accelerator, Hour>, net::ForwardBookView> forwardBooks_;
  std::map<ClusterId, net::ReclaimRate> reclaimRates_;
  std::vector<net::ForwardWorkingOrder> forwardOrders_;
  std::vector<net::ForwardPositionView> forwardPositions_;
};

}  // namespace tessera::ui
