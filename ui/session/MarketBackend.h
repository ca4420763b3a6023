#pragma once
// What the trading session needs from a market: an in-process engine driven by a simulated
// market (LocalMarketBackend), or a connection to a remote exchange. A backend lives on its
// own worker thread; the session calls its slots and hears its signals through queued
// connections only, so nothing here may block the GUI.
#include "ui/session/SessionTypes.h"

#include "core/net/ForwardDesk.h"
#include "core/net/ForwardViews.h"
#include "core/net/OptionViews.h"
#include "core/net/ReclaimRate.h"

#include <QObject>

#include <atomic>
#include <functional>

namespace tessera::ui {

class MarketBackend : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;
  ~MarketBackend() override = default;
  // Runs `job` on the backend's thread against its engine, for heavy reads (the planner's
  // candidates). A backend without an engine of its own (a remote exchange) returns false.
  // Not a slot: call it from a lambda queued to the backend's thread.
  virtual bool runOnBook(std::function<void(const tessera::Matcher&)> job) {
    (void)job;
    return false;
  }
  // Flow control of book snapshots, callable from any thread: a backend sends the next
  // snapshot only after the GUI has taken the previous one, so a slow screen sees the latest
  // book instead of a growing queue of old ones.
  void bookSnapshotTaken() { bookInFlight_.store(false, std::memory_order_release); }
  // Whether this market settles contracts (escrow, delivery, remedies) and so sends
  // settlement notices and contract status; fixed for the backend's life, any thread.
  virtual bool settlesContracts() const { return false; }
  // Where the price index it sends comes from; fixed for the backend's life, any thread.
  virtual IndexSource indexSource() const { return IndexSource::None; }
  // Whether this market trades the cash-settled index forwards; fixed, any thread.
  virtual bool tradesForwards() const { return false; }
  // Whether the market is across a connection whose round trip it measures (roundTripMeasured).
  virtual bool measuresRoundTrip() const { return false; }

 protected:
  // True if a snapshot may be sent now (and marks one in flight).
  bool beginBookSnapshot() { return !bookInFlight_.exchange(true, std::memory_order_acq_rel); }

 private:
  std::atomic<bool> bookInFlight_{false};

 public:
 public slots:
  virtual void start() = 0;
  virtual void stop() = 0;
  // `order.account` is filled in by the backend with the terminal's own account.
  virtual void submit(tessera::OrderRequest order) = 0;
  virtual void cancel(tessera::OrderId order) = 0;
  // Amend a working order's limit and/or GPUs (`order` as the working orders name it).
  virtual void amend(tessera::OrderId order, std::optional<tessera::Price> limit,
                     std::optional<tessera::GpuCount> gpus) = 0;
  // Which clusters and delivery hours the book snapshots cover.
  virtual void watch(std::vector<tessera::ClusterId> clusters, tessera::Hour firstHour, int hours) = 0;
  // Provider side: for hours [start, end) only `usableGpus` of a contract we sold worked. A
  // market that does not settle contracts answers with errorOccurred.
  // Index forwards (a market that trades them: tradesForwards()).
  virtual void submitForward(tessera::net::ForwardNewOrder order) {
    (void)order;
    emit errorOccurred(
        tr("This market has no forward market (the in-process engine trades only capacity; "
           "run the terminal on an exchange)."));
  }
  virtual void cancelForward(quint64 orderId) { (void)orderId; }
  // Which forward book the session shows: its updates are asked for and then arrive by themselves.
  virtual void watchForward(tessera::Accelerator accelerator, tessera::Hour weekStart) {
    (void)accelerator;
    (void)weekStart;
  }
  // Index options (a market that trades forwards trades them too): send, and which class's chain
  // to follow (it arrives, and again after each change of an option book).
  virtual void submitOption(tessera::net::OptionNewOrder order) {
    (void)order;
    emit errorOccurred(
        tr("This market has no options (the in-process engine trades only capacity; "
           "run the terminal on an exchange)."));
  }
  virtual void watchOptionChain(tessera::Accelerator accelerator) { (void)accelerator; }
  virtual void reportDelivery(tessera::DeliveryReport report) {
    (void)report;
    emit errorOccurred(
        tr("This market does not settle contracts, so it takes no delivery reports "
           "(the in-process engine has no settlement; run the terminal on an exchange)."));
  }

 signals:
  void connectionChanged(tessera::ui::ConnectionState state, QString detail);
  void clustersChanged(std::vector<tessera::Cluster> clusters);
  void clusterQuotesChanged(std::vector<tessera::ui::ClusterQuote> quotes);
  void bookChanged(tessera::ui::BookSnapshotPtr book);
  void tradesPrinted(std::vector<tessera::ui::TradePrint> trades);
  void clockChanged(tessera::Hour now);
  // The terminal's own account.
  void orderAccepted(tessera::OrderId order);
  // The market numbers orders itself (an exchange): `sent` is now known to it as `numbered`,
  // the id its working orders, fills and cancels use. Sent before orderAccepted.
  void orderNumbered(tessera::OrderId sent, tessera::OrderId numbered);
  void orderRejected(tessera::OrderId order, QString reason);
  void orderCancelled(tessera::OrderId order, QString reason);
  void workingOrdersChanged(std::vector<tessera::OrderView> orders);
  // Fills of the account: as they happen, and (a market that can say) those made before this
  // terminal connected, once, after logon.
  void ownFills(std::vector<tessera::Fill> fills);
  // Trades of the account's fills that a call made (nobody took liquidity in them); sent before
  // the fills themselves.
  void callTradesNoted(std::vector<tessera::TradeId> trades);
  // Orders of the account that stopped working (filled, cancelled, expired, rejected), and those
  // that had stopped before this terminal connected as far as the market can name them.
  void ordersFinished(std::vector<tessera::ui::FinishedOrder> orders);
  void contractsChanged(std::vector<tessera::Contract> contracts, std::vector<tessera::ui::ContractMark> marks);
  void accountChanged(tessera::ui::AccountSummary account);
  // Settlement (only from a backend that settlesContracts()): steps as they happen, and the
  // status of every contract of the account with each contracts update.
  void settlementNoted(std::vector<tessera::ui::SettlementNote> notes);
  void contractStatusChanged(std::vector<tessera::ui::ContractSettlementStatus> status);
  // Price index values, oldest first: the history once, then each published value.
  void indexPublished(std::vector<tessera::IndexPoint> samples);
  // The call mode's schedule, the next call's indicative clearing and the last call (a market
  // with call-mode clusters only).
  void callAuctionChanged(tessera::ui::CallAuctionView view);
  void forwardBookChanged(tessera::net::ForwardBookView book);
  void forwardOrdersChanged(std::vector<tessera::net::ForwardWorkingOrder> orders);
  void forwardPositionsChanged(std::vector<tessera::net::ForwardPositionView> positions);
  void forwardNoted(QString text);
  void optionChainChanged(tessera::net::OptionChainView chain);
  void optionNoted(QString text);
  // The reclaim rates the exchange observes on its interruptible clusters (md_reclaim_rates).
  void reclaimRatesChanged(std::vector<tessera::net::ReclaimRate> rates);
  // The round trip to the market and back, measured every few seconds (measuresRoundTrip()).
  void roundTripMeasured(double ms);
  // A problem the user must hear about that is not about one order.
  void errorOccurred(QString message);
};

}  // namespace tessera::ui

Q_DECLARE_METATYPE(tessera::net::ForwardBookView)
Q_DECLARE_METATYPE(tessera::net::OptionChainView)
Q_DECLARE_METATYPE(std::vector<tessera::net::ReclaimRate>)
Q_DECLARE_METATYPE(std::vector<tessera::net::ForwardWorkingOrder>)
Q_DECLARE_METATYPE(std::vector<tessera::net::ForwardPositionView>)
