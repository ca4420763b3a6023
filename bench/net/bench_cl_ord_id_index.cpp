// Growth stalls of the accounts' client-order-id tables: 50 accounts take ids round-robin, as
// the loopback benchmark's clients do, and every batch of 100 claims (one matching batch at
// 100k orders/s and 1 ms) is timed. A std::unordered_map rehashes all of an account's ids when it
// doubles, and all 50 double within a few batches of each other; ClOrdIdIndex spreads the work.
//   bench_cl_ord_id_index [--ids N]   (default 4,000,000 in all)
#include "core/net/ClOrdIdIndex.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

using namespace tessera;
using namespace tessera::net;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kAccounts = 50;
constexpr int kBatch = 100;

struct PlainMap {
  std::unordered_map<std::string, OrderId> map;
  void claim(const std::string& k, OrderId id) { map.try_emplace(k, id); }
};
struct Incremental {
  ClOrdIdIndex index;
  void claim(const std::string& k, OrderId id) { index.claim(k, id); }
};

template <typename Table>
void run(const char* name, std::size_t ids) {
  std::vector<Table> accounts(kAccounts);
  std::vector<double> batchMicros;
  batchMicros.reserve(ids / kBatch + 1);
  std::string key;
  const auto start = Clock::now();
  for (std::size_t i = 0; i < ids; i += kBatch) {
    const auto t0 = Clock::now();
    for (std::size_t j = i; j < std::min(ids, i + kBatch); ++j) {
      key = "o-" + std::to_string(j / kAccounts);  // each client numbers its own orders
      accounts[j % kAccounts].claim(key, static_cast<OrderId>(j + 1));
    }
    batchMicros.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  std::vector<double> sorted = batchMicros;
  std::sort(sorted.begin(), sorted.end());
  auto at = [&](double q) { return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(q * sorted.size()))]; };
  const auto over = std::count_if(sorted.begin(), sorted.end(), [](double us) { return us > 1000; });
  std::printf(
      "%-22s %9.0f ns/claim  batch of %d: p50 %7.1f us  p99 %7.1f us  p99.9 %8.1f us  max %9.1f us  batches > 1 ms: "
      "%ld\n",
      name, 1e9 * total / static_cast<double>(ids), kBatch, at(0.5), at(0.99), at(0.999), sorted.back(),
      static_cast<long>(over));
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t ids = 4'000'000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--ids") == 0 && i + 1 < argc)
      ids = std::stoull(argv[++i]);
    else {
      std::fprintf(stderr, "usage: bench_cl_ord_id_index [--ids N]\n");
      return 2;
    }
  }
  std::printf("%zu client order ids over %d accounts, claimed in batches of %d\n", ids, kAccounts, kBatch);
  run<PlainMap>("std::unordered_map", ids);
  run<Incremental>("ClOrdIdIndex", ids);
  return 0;
}
