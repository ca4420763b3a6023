#pragma once
// Latency percentiles for the benchmarks.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace tessera::bench {

struct Percentiles {
  double p50 = 0, p99 = 0, p999 = 0, max = 0;
};

inline Percentiles percentiles(std::vector<std::int64_t> ns) {
  Percentiles p;
  if (ns.empty()) return p;
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    return static_cast<double>(ns[std::min(ns.size() - 1, static_cast<std::size_t>(q * ns.size()))]);
  };
  p.p50 = at(0.50);
  p.p99 = at(0.99);
  p.p999 = at(0.999);
  p.max = static_cast<double>(ns.back());
  return p;
}

inline void printPercentiles(const char* what, const Percentiles& p) {
  std::printf("  %-44s p50 %8.2f us  p99 %8.2f us  p99.9 %9.2f us  max %9.2f us\n", what, p.p50 / 1e3, p.p99 / 1e3,
              p.p999 / 1e3, p.max / 1e3);
}

}  // namespace tessera::bench
