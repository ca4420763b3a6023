#pragma once
// Records what an exchange sees and says into a MarketHistoryStore, in batches: used by the
// exchange server, the terminal's local market and `tessera-backtest generate`.
#include "core/domain/AccountDirectory.h"
#include "core/store/MarketHistoryStore.h"

#include <vector>

namespace tessera::store {

// The stored form of one engine event: search keys as columns plus its EventJson form.
RecordedEvent toRecordedEvent(const Event& e, std::int64_t inputSeq, std::int64_t timeMicros,
                              const AccountDirectory& accounts);

class HistoryRecorder {
 public:
  // Buffers up to `batchSize` inputs before writing them (and their events) in one transaction.
  HistoryRecorder(MarketHistoryStore& store, const AccountDirectory& accounts, std::size_t batchSize = 4096);
  ~HistoryRecorder();  // flushes; an error at that point is lost, so call flush() first

  // Records one input and the events the engine produced for it. Returns the input's seq.
  std::int64_t record(std::int64_t timeMicros, const InputEvent& in, const std::vector<Event>& out);
  // Inputs only (the market data can be recomputed by replaying them).
  std::int64_t recordInput(std::int64_t timeMicros, const InputEvent& in);
  // A provider's outage, after the last input recorded (its afterInput is set here).
  void recordOutage(RecordedOutage outage);
  // A provider's reclaim of interruptible capacity, the same way.
  void recordReclaim(RecordedReclaim reclaim);
  std::optional<StoreError> flush();

  std::int64_t recordedInputs() const { return recorded_; }

 private:
  MarketHistoryStore& store_;
  const AccountDirectory& accounts_;
  std::size_t batchSize_;
  std::int64_t nextSeq_;
  std::int64_t recorded_ = 0;
  std::vector<RecordedInput> inputs_;
  std::vector<RecordedEvent> events_;
  std::vector<RecordedOutage> outages_;
  std::vector<RecordedReclaim> reclaims_;
  std::optional<StoreError> failed_;
};

}  // namespace tessera::store
