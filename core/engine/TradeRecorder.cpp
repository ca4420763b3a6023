#include "core/engine/TradeRecorder.h"

namespace tessera {

void TradeRecorder::begin(ClusterId cluster, OrderRef self, Side side, OrderId aggressor) {
  cluster_ = cluster;
  self_ = self;
  side_ = side;
  aggressor_ = aggressor;
  runs_.clear();
  lastRunOf_.clear();
}

void TradeRecorder::add(OrderRef other, Hour hour, GpuCount gpus, Price price) {
  for (auto& [order, index] : lastRunOf_) {
    if (order != other.order) continue;
    Run& r = runs_[index];
    if (r.end == hour && r.gpus == gpus && r.price == price) {
      r.end = hour + 1;
      return;
    }
    runs_.push_back(Run{other, hour, hour + 1, gpus, price});
    index = runs_.size() - 1;
    return;
  }
  runs_.push_back(Run{other, hour, hour + 1, gpus, price});
  lastRunOf_.emplace_back(other.order, runs_.size() - 1);
}

}  // namespace tessera
