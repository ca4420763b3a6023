#pragma once
// The exchange's public market data, on the matching thread: book cells (the top levels of each
// (cluster, hour, side) within the market-data horizon), trades, the clock, new clusters and
// the hourly price index, each line numbered by one sequence; the last Limits::mdReplayDepth
// lines kept for a subscriber's resume after a gap; the snapshot a new subscriber starts from.
//
// Cells are published by difference: an input marks the cells it may have changed (touch), and
// publishCells compares each marked cell's depth with what was last published and sends only a
// changed one. So what a subscriber holds equals the engine's book as long as every input
// touches every cell whose depth it changes (test_market_data_feed).
#include "core/engine/Matcher.h"
#include "core/net/BookMirror.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/Outbox.h"
#include "core/net/ServerMessage.h"
#include "core/settlement/PriceIndex.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessera {
class SnapshotWriter;
class SnapshotReader;
}  // namespace tessera

namespace tessera::net {

class MarketDataFeed {
 public:
  MarketDataFeed(const Matcher& engine, const Limits& limits);

  std::uint64_t seq() const { return seq_; }

  // Marks the cells of order `o` in hours [from, to) that lie within the horizon (divisible
  // orders on one cluster only: other orders are not shown in cells).
  void touch(const OrderRequest& o, Hour from, Hour to);
  // After a replay: marks nothing before the clock.
  void dropPastTouches();
  // Publishes every marked cell whose depth changed (out null: only records it), then clears
  // the marks.
  void publishCells(Outbox* out);

  // A buy-side fill: its print feeds the price index.
  void recordPrint(const Fill& buySide);
  // The md_trade line of a buy-side fill; `call` nonzero: of that call, with no aggressor.
  void publishTrade(const Fill& buySide, Outbox* out, std::uint64_t call = 0);
  // The clock reached `now`: cells before it are cleared, hours that came within the horizon
  // are marked, and the md_clock line goes out.
  void clockAdvanced(Hour now, Outbox* out);
  // The index values of the hours that ended before `now` (only the last one is published).
  void publishIndex(Hour now, Outbox* out);
  void clusterAdded(const Cluster& c, Outbox* out);
  // Lines another desk wrote as JSON objects without a sequence number (forward books).
  void publishUnnumbered(const std::vector<std::string>& bodies, Outbox* out);

  // The answer to `subscribe`: an md_resume with the missed lines when `fromSeq` is still
  // kept (within kMaxResumeBytes), else an md_snapshot of the cells, the index and
  // `forwardBooks()`.
  void answerSubscribe(std::string& o, std::optional<std::uint64_t> fromSeq, std::uint64_t epoch,
                       const std::function<std::string()>& forwardBooks) const;
  // The index_history reply's points.
  void appendIndexHistory(std::string& o) const;

  const std::deque<IndexPublication>& indexHistory() const { return indexHistory_; }
  const std::map<std::pair<Accelerator, Tenor>, IndexPublication>& indexNow() const { return indexNow_; }
  // The latest next-day index price of each accelerator (forwards are marked against it).
  std::map<Accelerator, Price> nextDayPrices() const;
  std::optional<Hour> indexAsOf() const { return indexAsOf_; }
  Hour publishedThrough() const { return publishedThrough_; }
  const std::map<CellKey, std::vector<BookLevel>>& published() const { return published_; }

  // The snapshot form (docs/protocol.md, "Snapshots"): the index, then the published cells.
  // The sequence number and kept lines are not in it: they start over with each process.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  void publish(Outbox* out, std::string line);

  const Matcher& engine_;
  const Limits& limits_;
  std::uint64_t seq_ = 0;
  std::deque<std::pair<std::uint64_t, std::string>> recent_;  // for re-requests after a gap

  std::map<CellKey, std::vector<BookLevel>> published_;
  std::set<CellKey> touched_;
  // Cells are published for hours before now + Limits::mdHorizonHours; this is where the
  // horizon stood at the last clock step.
  Hour publishedThrough_ = 0;
  // publishCells' scratch, kept between calls so the hot path does not allocate.
  std::vector<CellKey> touchedCells_;
  std::vector<std::vector<BookLevel>> touchedDepth_;
  std::vector<std::vector<BookLevel>> scratchDepth_;
  std::vector<std::size_t> scratchRun_;

  // Price index: fed one print per trade, published hourly; 30 days of hourly values kept.
  PriceIndex index_;
  std::set<Accelerator> indexedAccelerators_;
  std::optional<Hour> indexAsOf_;
  std::map<std::pair<Accelerator, Tenor>, IndexPublication> indexNow_;
  std::deque<IndexPublication> indexHistory_;
};

}  // namespace tessera::net
