#pragma once
// What the exchange benchmarks that drive ExchangeCore directly share: a one-cluster market
// configuration (the provider's GPUs granted over a span of hours, no wall clock), the journal
// they open, and the process's resident set.
#include "core/net/ExchangeCore.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <time.h>
#include <unistd.h>

namespace tessera::net::bench {

inline constexpr Hour kBenchStart = 700'000;

// A market of one 125,000-node H100 cluster named `cluster` whose provider holds 1,000,000 GPUs
// for `grantHours` from kBenchStart; journal at `db` without fsync (the benchmarks measure the
// exchange, not the disk), orders per account limited only by `maxOpenOrders`.
inline ExchangeConfig benchConfig(const std::string& db, const std::string& cluster, Hour grantHours,
                                  int maxOpenOrders) {
  ExchangeConfig c;
  c.port = 0;
  c.dbPath = db;
  c.syncFull = false;
  c.initialClock = kBenchStart;
  c.followWallClock = false;
  c.limits.maxOpenOrdersPerAccount = maxOpenOrders;
  Cluster k;
  k.id = 1;
  k.name = cluster;
  k.provider = "provider";
  k.nodeCount = 125'000;
  c.clusters.push_back(k);
  c.grants.push_back(GrantConfig{"provider", k.name, 1'000'000, kBenchStart, kBenchStart + grantHours});
  return c;
}

inline std::unique_ptr<Journal> openBenchJournal(const std::string& db) {
  auto opened = Journal::open(db, false);
  if (auto* e = std::get_if<std::string>(&opened)) {
    std::cerr << *e << "\n";
    std::exit(1);
  }
  return std::move(std::get<std::unique_ptr<Journal>>(opened));
}

inline long residentBytes() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

// CPU time of the calling thread: on a shared machine the wall time also counts the time other
// processes held the cores; this is what the work itself costs.
inline double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace tessera::net::bench
