#include "core/engine/FinishedOrders.h"

#include <stdexcept>
#include <utility>

namespace tessera {

namespace {
constexpr std::int64_t kMaxCompactGpus = (std::int64_t{1} << 20) - 1;
static_assert(static_cast<int>(Side::Sell) < 2 && static_cast<int>(FillStyle::Divisible) < 2 &&
                  static_cast<int>(TimeInForce::FOK) < 4 && static_cast<int>(SelfTradePrevention::CancelResting) < 2 &&
                  static_cast<int>(OrderStatus::Cancelled) < 4,
              "the compact record's flags are too narrow");
}  // namespace

bool FinishedOrders::fitsCompact(const OrderRequest& r, std::int64_t filled) {
  return r.cluster && !r.constraints && !r.duration && !r.expireAt && !r.sellBack && r.costFactors.empty() &&
         !r.interruptible && !r.checkpointHours && r.end >= r.start && std::in_range<std::uint16_t>(r.end - r.start) &&
         std::in_range<std::int32_t>(r.start) && std::in_range<std::int32_t>(r.limit) &&
         std::in_range<std::uint32_t>(filled) && r.gpus >= 0 && r.gpus <= kMaxCompactGpus;
}

FinishedOrders::Index FinishedOrders::add(const OrderRequest& r, OrderStatus status, std::int64_t filled) {
  if (status == OrderStatus::Working || (freeRecords_.empty() && records_.size() >= kMaxCount))
    throw std::logic_error("a working order is not finished, and at most kMaxCount orders are");
  Record rec;
  rec.status = static_cast<std::uint32_t>(status);
  rec.compact = fitsCompact(r, filled);
  if (rec.compact) {
    rec.filled = static_cast<std::uint32_t>(filled);
    rec.start = static_cast<std::int32_t>(r.start);
    rec.limit = static_cast<std::int32_t>(r.limit);
    rec.account = r.account;
    rec.clusterOrWhole = *r.cluster;
    rec.terms = terms_.intern(r.terms);
    rec.gpus = static_cast<std::uint32_t>(r.gpus);
    rec.side = static_cast<std::uint32_t>(r.side);
    rec.fill = static_cast<std::uint32_t>(r.fill);
    rec.tif = static_cast<std::uint32_t>(r.tif);
    rec.stp = static_cast<std::uint32_t>(r.stp);
    rec.postOnly = r.postOnly;
    rec.hours = static_cast<std::uint16_t>(r.end - r.start);
  } else if (!freeWhole_.empty()) {
    rec.clusterOrWhole = freeWhole_.back();
    freeWhole_.pop_back();
    whole_[rec.clusterOrWhole] = Whole{r, filled};
  } else {
    rec.clusterOrWhole = static_cast<std::uint32_t>(whole_.size());
    whole_.push_back(Whole{r, filled});
  }
  if (!freeRecords_.empty()) {
    const Index i = freeRecords_.back();
    freeRecords_.pop_back();
    records_[i] = rec;
    return i;
  }
  records_.push_back(rec);
  return static_cast<Index>(records_.size() - 1);
}

void FinishedOrders::remove(Index i) {
  const Record& rec = records_[i];
  if (!rec.compact) {
    whole_[rec.clusterOrWhole] = Whole{};  // frees what the request holds (constraints, factors)
    freeWhole_.push_back(rec.clusterOrWhole);
  }
  records_[i] = Record{};
  freeRecords_.push_back(i);
}

OrderView FinishedOrders::at(Index i, OrderId id) const {
  const Record& rec = records_[i];
  OrderView v;
  v.status = static_cast<OrderStatus>(rec.status);
  if (!rec.compact) {
    const Whole& w = whole_[rec.clusterOrWhole];
    v.request = w.request;
    v.filledGpuHours = w.filled;
    return v;
  }
  v.filledGpuHours = rec.filled;
  OrderRequest& r = v.request;
  r.id = id;
  r.account = rec.account;
  r.side = static_cast<Side>(rec.side);
  r.cluster = rec.clusterOrWhole;
  r.gpus = static_cast<GpuCount>(rec.gpus);
  r.start = rec.start;
  r.end = r.start + rec.hours;
  r.limit = rec.limit;
  r.fill = static_cast<FillStyle>(rec.fill);
  r.tif = static_cast<TimeInForce>(rec.tif);
  r.postOnly = rec.postOnly;
  r.stp = static_cast<SelfTradePrevention>(rec.stp);
  r.terms = terms_.at(rec.terms);
  return v;
}

}  // namespace tessera
