#include "core/engine/TermsTable.h"

#include <functional>

namespace tessera {

std::size_t TermsTable::Hash::operator()(const OfferTerms& t) const {
  std::size_t h = 0;
  auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  mix(t.guaranteesDeviceCount | t.guaranteesLocation << 1 | t.guaranteesFabric << 2);
  mix(t.estimatedTflopsPerGpu ? static_cast<std::size_t>(*t.estimatedTflopsPerGpu) + 1 : 0);
  mix(static_cast<std::size_t>(t.billing));
  mix(static_cast<std::size_t>(t.uptimePromisePpm));
  mix(std::hash<Price>{}(t.creditPerUndeliveredGpuHour));
  mix(static_cast<std::size_t>(t.remedy));
  mix(static_cast<std::size_t>(t.replacementWithinHours));
  return h;
}

std::uint32_t TermsTable::intern(const OfferTerms& t) {
  if (last_ < terms_.size() && terms_[last_] == t) return last_;
  auto [it, added] = index_.try_emplace(t, static_cast<std::uint32_t>(terms_.size()));
  if (added) terms_.push_back(t);
  return last_ = it->second;
}

}  // namespace tessera
