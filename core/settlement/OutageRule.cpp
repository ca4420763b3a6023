#include "core/settlement/OutageRule.h"

#include <algorithm>
#include <map>

namespace tessera {

std::vector<OutageShare> spreadOutage(const std::vector<Contract>& contracts, GpuCount lostGpus, Hour from, Hour end,
                                      const std::function<GpuCount(Hour)>& unsold, bool listUnharmed) {
  // The work is bounded by the contracts' hours inside [from, end).
  Hour first = end;
  Hour last = from;
  for (const Contract& k : contracts) {
    first = std::min(first, std::max(k.start, from));
    last = std::max(last, std::min(k.end, end));
  }
  std::map<ContractId, std::vector<GpuCount>> missing;  // per hour of [first, last); -1: not in the contract
  const Hour hours = last - first;
  for (Hour h = first; h < last; ++h) {
    std::vector<std::pair<std::size_t, GpuCount>> shares;  // (index into contracts, weight)
    std::int64_t total = 0;
    for (std::size_t i = 0; i < contracts.size(); ++i) {
      if (contracts[i].start <= h && h < contracts[i].end) {
        shares.emplace_back(i, contracts[i].gpus);
        total += contracts[i].gpus;
      }
    }
    if (shares.empty()) continue;
    const GpuCount idle = unsold(h);
    total += idle;
    const std::int64_t lost = std::min<std::int64_t>(lostGpus, total);
    std::vector<std::int64_t> got(shares.size());
    std::vector<std::pair<std::int64_t, std::size_t>> remainders;  // (-remainder, order)
    std::int64_t given = 0;
    for (std::size_t j = 0; j < shares.size(); ++j) {
      got[j] = lost * shares[j].second / total;
      given += got[j];
      remainders.emplace_back(-(lost * shares[j].second % total), j);
    }
    given += lost * idle / total;
    remainders.emplace_back(-(lost * idle % total), shares.size());  // the holding ranks last
    std::stable_sort(remainders.begin(), remainders.end());
    for (std::size_t r = 0; given < lost && r < remainders.size(); ++r, ++given) {
      if (remainders[r].second < shares.size()) ++got[remainders[r].second];
    }
    for (std::size_t j = 0; j < shares.size(); ++j) {
      auto& v = missing[contracts[shares[j].first].id];
      if (v.empty()) v.assign(static_cast<std::size_t>(hours), -1);
      v[static_cast<std::size_t>(h - first)] = static_cast<GpuCount>(got[j]);
    }
  }
  // Runs of equal loss, contract by contract.
  std::vector<OutageShare> out;
  for (const Contract& k : contracts) {
    auto it = missing.find(k.id);
    if (it == missing.end()) continue;
    const std::vector<GpuCount>& v = it->second;
    for (std::size_t i = 0; i < v.size();) {
      std::size_t j = i;
      while (j < v.size() && v[j] == v[i]) ++j;
      if (v[i] > 0 || (v[i] == 0 && listUnharmed))
        out.push_back({k.id, first + static_cast<Hour>(i), first + static_cast<Hour>(j), v[i]});
      i = j;
    }
  }
  return out;
}

}  // namespace tessera
