#include "core/engine/FinishedOrders.h"

#include <limits>
#include <stdexcept>

namespace tessera {

bool FinishedOrders::fitsCompact(const OrderRequest& r) {
  return r.cluster && !r.constraints && !r.duration && !r.expireAt && !r.sellBack && r.costFactors.empty() &&
         r.end >= r.start && r.end - r.start <= std::numeric_limits<std::uint32_t>::max();
}

FinishedOrders::Index FinishedOrders::add(const OrderRequest& r, OrderStatus status, std::int64_t filled) {
  if (status == OrderStatus::Working || records_.size() >= kMaxCount)
    throw std::logic_error("a working order is not finished, and at most kMaxCount orders are");
  Record rec;
  rec.id = r.id;
  rec.limit = r.limit;
  rec.start = r.start;
  rec.filled = filled;
  rec.account = r.account;
  rec.gpus = r.gpus;
  rec.side = r.side;
  rec.fill = r.fill;
  rec.tif = r.tif;
  rec.stp = r.stp;
  rec.status = status;
  rec.postOnly = r.postOnly;
  rec.compact = fitsCompact(r);
  if (rec.compact) {
    rec.cluster = *r.cluster;
    rec.hours = static_cast<std::uint32_t>(r.end - r.start);
    rec.termsOrWhole = terms_.intern(r.terms);
  } else {
    rec.termsOrWhole = static_cast<std::uint32_t>(whole_.size());
    whole_.push_back(r);
  }
  records_.push_back(rec);
  return static_cast<Index>(records_.size() - 1);
}

OrderView FinishedOrders::at(Index i) const {
  const Record& rec = records_[i];
  OrderView v;
  v.status = rec.status;
  v.filledGpuHours = rec.filled;
  if (!rec.compact) {
    v.request = whole_[rec.termsOrWhole];
    return v;
  }
  OrderRequest& r = v.request;
  r.id = rec.id;
  r.account = rec.account;
  r.side = rec.side;
  r.cluster = rec.cluster;
  r.gpus = rec.gpus;
  r.start = rec.start;
  r.end = rec.start + rec.hours;
  r.limit = rec.limit;
  r.fill = rec.fill;
  r.tif = rec.tif;
  r.postOnly = rec.postOnly;
  r.stp = rec.stp;
  r.terms = terms_.at(rec.termsOrWhole);
  return v;
}

}  // namespace tessera
