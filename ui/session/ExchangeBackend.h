#pragma once
// A remote exchange (tessera-exchange) through core/net's ExchangeClient. The client's io
// thread hands every callback to this object's worker thread with a queued call; from there it
// is the same stream of signals LocalMarketBackend sends.
#include "ui/session/MarketBackend.h"

#include "core/net/ExchangeClient.h"

#include <QElapsedTimer>

#include <map>
#include <set>
#include <memory>

class QTimer;

namespace tessera::ui {

struct ExchangeEndpoint {
  std::string host;
  std::uint16_t port = 0;
  std::string account;
  std::string key;
  bool tls = false;  // verify the exchange's certificate against caFile (or the system's roots)
  std::string caFile;
};

class ExchangeBackend : public MarketBackend {
  Q_OBJECT
 public:
  explicit ExchangeBackend(ExchangeEndpoint endpoint, int publishMs = 100);
  ~ExchangeBackend() override;
  // Runs `job` on a read-only view of the client's copy of the book.
  bool runOnBook(std::function<void(const tessera::Matcher&)> job) override;
  bool settlesContracts() const override { return true; }
  IndexSource indexSource() const override { return IndexSource::Exchange; }
  bool tradesForwards() const override { return true; }
  bool measuresRoundTrip() const override { return true; }
  static constexpr int kPingMs = 2000;

  // The remote exchange does not tell a client its account id: contracts and orders are
  // marked as this pseudo id when they are ours.
  static constexpr AccountId kMe = 1;
  // The client order id an order the session numbered `id` is sent with.
  static std::string clOrdIdFor(OrderId id) { return "t" + std::to_string(id); }

 protected:
  const ExchangeEndpoint& endpoint() const { return endpoint_; }
  void setPort(std::uint16_t port) { endpoint_.port = port; }

 public slots:
  void start() override;
  void stop() override;
  void submit(tessera::OrderRequest order) override;
  void cancel(tessera::OrderId order) override;
  void amend(tessera::OrderId order, std::optional<tessera::Price> limit,
             std::optional<tessera::GpuCount> gpus) override;
  void watch(std::vector<tessera::ClusterId> clusters, tessera::Hour firstHour, int hours) override;
  void reportDelivery(tessera::DeliveryReport report) override;
  void submitForward(tessera::net::ForwardNewOrder order) override;
  void cancelForward(quint64 orderId) override;
  void watchForward(tessera::Accelerator accelerator, tessera::Hour weekStart) override;
  void submitOption(tessera::net::OptionNewOrder order) override;
  void watchOptionChain(tessera::Accelerator accelerator) override;

 private:
  // The class whose option chain is on screen, and whether a chain request is under way (market
  // data of option books asks for one at a time, so a burst of quotes costs one chain).
  std::atomic<int> optionClass_{-1};
  std::atomic<bool> chainAsked_{false};
  void onConnection(net::ConnectionState s, const std::string& detail);
  void onOrder(const net::OrderUpdate& u);
  void onTrade(const net::Trade& t);
  void onPositions(std::vector<Contract> contracts);
  // After the positions reply: the fills of contracts this terminal has not heard of (made
  // before it connected), and the final state of their orders asked for.
  void restoreFills(const std::vector<net::ContractStatus>& status);
  void onOrderStatus(const net::OrderStatusReply& r);
  void onOrderHistory(const std::vector<net::OrderStatusReply>& orders);
  void finish(OrderId exchangeId, const OrderRequest& request, FinishedState state, const std::string& code,
              std::optional<Hour> at);
  void publish();
  Price markPrice(const net::BookMirror& book, ClusterId cluster, Hour h, Price fallback) const;

  ExchangeEndpoint endpoint_;
  int publishMs_;
  std::unique_ptr<net::ExchangeClient> client_;
  QTimer* timer_ = nullptr;
  QTimer* pingTimer_ = nullptr;
  std::vector<ClusterId> watched_;
  Hour watchFirst_ = 0;
  int watchHours_ = 0;
  bool bookDirty_ = true;
  bool accountDirty_ = true;
  std::int64_t dirtySinceNs_ = 0;
  std::vector<TradePrint> pendingTrades_;
  std::vector<Fill> pendingFills_;
  std::vector<TradeId> pendingCallTrades_;  // of pendingFills_ and restored fills: a call's
  std::map<ClusterId, Price> lastTrade_;
  std::map<std::string, OrderRequest> sent_;      // by client order id
  std::map<OrderId, OrderRequest> byExchangeId_;  // our orders the exchange numbered
  std::map<OrderId, OrderId> sessionIdOf_;        // exchange id -> the session's id
  std::set<TradeId> ourTrades_;
  CallAuctionView callView_;                  // the call mode as last heard
  std::map<OrderId, std::int64_t> filledOf_;  // GPU-hours filled of each of our orders
  std::set<OrderId> finished_;                // in the order history already, or asked about
  std::vector<FinishedOrder> pendingFinished_;
  std::vector<Contract> contracts_;
  std::map<ContractId, Money> escrowOf_;  // what each contract's buyer still has in escrow
  std::vector<OrderView> working_;
  net::Balance balance_;
  Hour now_ = 0;
  bool clustersSent_ = false;
  QElapsedTimer sinceQuotes_;
};

}  // namespace tessera::ui
