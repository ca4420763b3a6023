#include "core/store/HistoryRecorder.h"

#include "core/engine/EventJson.h"

#include <nlohmann/json.hpp>

namespace tessera::store {
namespace {

struct Keys {
  RecordedEvent& r;
  void operator()(const ClusterAdded& e) { r.cluster = e.cluster; }
  void operator()(const CapacityAdded& e) {
    r.cluster = e.grant.cluster;
    r.account = e.grant.account;
    r.gpus = e.grant.gpus;
    r.start = e.grant.start;
    r.end = e.grant.end;
  }
  void operator()(const OrderAccepted& e) {
    r.order = static_cast<std::int64_t>(e.order);
    r.account = e.account;
  }
  void operator()(const OrderRejected& e) {
    r.order = static_cast<std::int64_t>(e.order);
    r.account = e.account;
  }
  void operator()(const Fill& e) {
    r.order = static_cast<std::int64_t>(e.order);
    r.account = e.account;
    r.cluster = e.cluster;
    r.price = e.price;
    r.gpus = e.gpus;
    r.start = e.start;
    r.end = e.end;
  }
  void operator()(const ContractCreated& e) {
    r.order = static_cast<std::int64_t>(e.contract.buyOrder);
    r.account = e.contract.buyer;
    r.cluster = e.contract.cluster;
    r.price = e.contract.price;
    r.gpus = e.contract.gpus;
    r.start = e.contract.start;
    r.end = e.contract.end;
  }
  void operator()(const OrderCancelled& e) {
    r.order = static_cast<std::int64_t>(e.order);
    r.account = e.account;
  }
  void operator()(const OrderAmended& e) {
    r.order = static_cast<std::int64_t>(e.order);
    r.account = e.account;
    r.price = e.limit;
    r.gpus = e.gpus;
  }
  void operator()(const ClockAdvanced& e) { r.start = e.now; }
};

}  // namespace

RecordedEvent toRecordedEvent(const Event& e, std::int64_t inputSeq, std::int64_t timeMicros,
                              const AccountDirectory& accounts) {
  RecordedEvent r;
  r.inputSeq = inputSeq;
  r.timeMicros = timeMicros;
  std::visit(Keys{r}, e);
  nlohmann::json j = toJson(e, accounts);
  if (auto t = j.find("event"); t != j.end() && t->is_string()) r.type = t->get<std::string>();
  r.json = j.dump();
  return r;
}

HistoryRecorder::HistoryRecorder(MarketHistoryStore& store, const AccountDirectory& accounts, std::size_t batchSize)
    : store_(store), accounts_(accounts), batchSize_(std::max<std::size_t>(1, batchSize)) {
  auto s = store_.summary();
  nextSeq_ = std::holds_alternative<HistorySummary>(s) ? std::get<HistorySummary>(s).lastInputSeq + 1 : 1;
  inputs_.reserve(batchSize_);
}

HistoryRecorder::~HistoryRecorder() { flush(); }

std::int64_t HistoryRecorder::recordInput(std::int64_t timeMicros, const InputEvent& in) {
  const std::int64_t seq = nextSeq_++;
  inputs_.push_back({seq, timeMicros, in});
  ++recorded_;
  if (inputs_.size() >= batchSize_) flush();
  return seq;
}

std::int64_t HistoryRecorder::record(std::int64_t timeMicros, const InputEvent& in, const std::vector<Event>& out) {
  const std::int64_t seq = nextSeq_;
  for (const Event& e : out) events_.push_back(toRecordedEvent(e, seq, timeMicros, accounts_));
  return recordInput(timeMicros, in);
}

void HistoryRecorder::recordOutage(RecordedOutage outage) {
  outage.afterInput = nextSeq_ - 1;
  outages_.push_back(outage);
}

void HistoryRecorder::recordReclaim(RecordedReclaim reclaim) {
  reclaim.afterInput = nextSeq_ - 1;
  reclaims_.push_back(reclaim);
}

std::optional<StoreError> HistoryRecorder::flush() {
  if (failed_) return failed_;
  if (!inputs_.empty()) {
    if (auto e = store_.appendInputs(inputs_)) {
      failed_ = e;  // keep the rows: nothing recorded is silently dropped
      return e;
    }
    inputs_.clear();
  }
  if (!events_.empty()) {
    if (auto e = store_.appendEvents(events_)) {
      failed_ = e;
      return e;
    }
    events_.clear();
  }
  if (!outages_.empty()) {
    if (auto e = store_.appendOutages(outages_)) {
      failed_ = e;
      return e;
    }
    outages_.clear();
  }
  if (!reclaims_.empty()) {
    if (auto e = store_.appendReclaims(reclaims_)) {
      failed_ = e;
      return e;
    }
    reclaims_.clear();
  }
  return store_.saveAccounts(accounts_);
}

}  // namespace tessera::store
