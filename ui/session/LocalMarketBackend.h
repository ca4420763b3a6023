#pragma once
// The embedded exchange: the matching engine in this process, on the backend's worker thread,
// with a MarketFeed (the simulated market) trading against it and the terminal's own account.
#include "ui/session/MarketBackend.h"
#include "ui/session/MarketFeed.h"

#include "core/domain/AccountDirectory.h"
#include "core/settlement/PriceIndex.h"

#include <QElapsedTimer>

#include <map>
#include <memory>

class QTimer;

namespace tessera::ui {

struct LocalMarketOptions {
  int tickMs = 50;  // how often the feed is stepped
  int feedStepsPerTick = 1;
  int publishMs = 100;         // how often book snapshots are sent to the GUI at most
  std::size_t maxLevels = 64;  // levels per hour and side in snapshots
  Money startingCash = 10'000'000LL * kMicrosPerDollar;
};

class LocalMarketBackend : public MarketBackend {
  Q_OBJECT
 public:
  LocalMarketBackend(MarketFeedFactory feed, QString accountName, LocalMarketOptions options = {});
  ~LocalMarketBackend() override;
  bool runOnBook(std::function<void(const tessera::Matcher&)> job) override;
  // The engine alone has no settlement; the index is computed here from the trades seen,
  // by the exchange's method (core/settlement PriceIndex).
  IndexSource indexSource() const override { return IndexSource::ComputedLocally; }

 public slots:
  void start() override;
  void stop() override;
  void submit(tessera::OrderRequest order) override;
  void cancel(tessera::OrderId order) override;
  void amend(tessera::OrderId order, std::optional<tessera::Price> limit,
             std::optional<tessera::GpuCount> gpus) override;
  void watch(std::vector<tessera::ClusterId> clusters, tessera::Hour firstHour, int hours) override;
  // Applies inputs as if they came from the feed; for tests and replays.
  void inject(std::vector<tessera::InputEvent> inputs);
  // Sends everything now instead of at the next publish tick.
  void publishNow();

 private:
  void tick();
  void apply(const InputEvent& in);
  void handle(const Event& e);
  void publish(bool force);
  std::vector<ClusterQuote> quoteClusters() const;
  Price markPrice(ClusterId cluster, Hour h, Price fallback) const;
  void publishIndex(Hour asOf);

  MarketFeedFactory makeFeed_;
  std::unique_ptr<MarketFeed> feed_;
  std::unique_ptr<Matcher> matcher_;
  AccountDirectory accounts_;
  QString accountName_;
  AccountId me_ = 0;
  LocalMarketOptions options_;
  QTimer* timer_ = nullptr;
  QElapsedTimer sincePublish_;
  QElapsedTimer sinceQuotes_;

  std::vector<ClusterId> watched_;
  Hour watchFirst_ = 0;
  int watchHours_ = 0;

  std::vector<Event> events_;
  std::vector<TradePrint> pendingTrades_;
  std::vector<Fill> pendingFills_;
  std::vector<FinishedOrder> pendingFinished_;
  // Our order `id` stopped working: to the order history, as the engine keeps it.
  void finish(OrderId id, FinishedState state, QString why);
  PriceIndex index_;
  std::vector<IndexPoint> pendingIndex_;
  Hour indexedUntil_ = -1;  // last hour whose index value was published
  std::map<ClusterId, Price> lastTrade_;
  Money cash_ = 0;
  bool bookDirty_ = true;
  std::int64_t dirtySinceNs_ = 0;
  std::shared_ptr<BookSnapshot> readySnapshot_;  // built while the GUI still paints the last one
  bool clustersDirty_ = false;
  bool ordersDirty_ = true;
  bool contractsDirty_ = true;
  Hour publishedNow_ = -1;
};

}  // namespace tessera::ui
