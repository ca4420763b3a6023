#include "InputKindReport.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

namespace tessera::bench {
namespace {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

void printByKind(const Load& load, std::size_t first, const PerInput& p) {
  double totalUs = 0;
  for (double l : p.latencyUs) totalUs += l;
  std::printf("  %-24s %8s %9s %9s %9s %7s %12s %12s\n", "by input kind", "count", "mean us", "p50 us", "p99 us",
              "time", "events/in", "contracts/in");
  auto row = [&](const std::string& name, const std::function<bool(InputKind)>& in) {
    std::vector<double> latency;
    double sumUs = 0, events = 0, contracts = 0;
    for (std::size_t i = 0; i < p.latencyUs.size(); ++i) {
      if (!in(load.kinds[first + i])) continue;
      latency.push_back(p.latencyUs[i]);
      sumUs += p.latencyUs[i];
      events += p.events[i];
      contracts += p.contracts[i];
    }
    if (latency.empty()) return;
    const auto n = static_cast<double>(latency.size());
    std::printf("  %-24s %8zu %9.2f %9.2f %9.2f %6.1f%% %12.2f %12.2f\n", name.c_str(), latency.size(), sumUs / n,
                quantile(latency, 0.50), quantile(latency, 0.99), 100 * sumUs / totalUs, events / n, contracts / n);
  };
  for (int k = 0; k < kInputKinds; ++k) {
    const auto kind = static_cast<InputKind>(k);
    row(toString(kind), [kind](InputKind x) { return x == kind; });
  }
  row("crossing, both", [](InputKind x) { return x == InputKind::Crossing || x == InputKind::CrossingAllOrNone; });
  row("all", [](InputKind) { return true; });
}

}  // namespace tessera::bench
