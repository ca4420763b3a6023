#include "core/domain/Order.h"

#include <algorithm>

namespace tessera {

bool ClusterConstraints::matches(const Cluster& c) const {
  if (c.interruptible() && !acceptsInterruptible) return false;
  if (!accelerators.empty() && std::find(accelerators.begin(), accelerators.end(), c.accelerator) == accelerators.end())
    return false;
  if (c.gpuMemoryGb < minGpuMemoryGb) return false;
  if (!regions.empty() && std::find(regions.begin(), regions.end(), c.region) == regions.end()) return false;
  if (minFabric && c.fabric < *minFabric) return false;
  if (maxCarbonGramsPerKwh && c.carbonGramsPerKwh > *maxCarbonGramsPerKwh) return false;
  return true;
}

std::string_view toString(Side s) { return s == Side::Buy ? "buy" : "sell"; }

std::string_view toString(FillStyle f) { return f == FillStyle::AllOrNone ? "all_or_none" : "divisible"; }

std::string_view toString(TimeInForce t) {
  switch (t) {
    case TimeInForce::GTC: return "GTC";
    case TimeInForce::GTD: return "GTD";
    case TimeInForce::IOC: return "IOC";
    case TimeInForce::FOK: return "FOK";
  }
  return "?";
}

std::string_view toString(SelfTradePrevention s) {
  return s == SelfTradePrevention::CancelIncoming ? "cancel_incoming" : "cancel_resting";
}

}  // namespace tessera
