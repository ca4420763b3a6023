// Memory of a long-running exchange: a steady flow of trades (and bids placed and cancelled)
// through ExchangeCore with a file journal, the clock moving so that contracts deliver and
// settle. Prints the resident set after every interval and what each million orders added.
// A bounded exchange shows a flat line once warmed up. Run by hand, never by CTest.
//
//   bench_exchange_memory [--orders 3000000] [--interval 250000] [--db PATH]
#include "core/net/ExchangeCore.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>

using namespace tessera;
using namespace tessera::net;

namespace {

long residentBytes() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * ::sysconf(_SC_PAGESIZE);
}

constexpr Hour kStart = 700'000;

ExchangeConfig config(const std::string& db) {
  ExchangeConfig c;
  c.port = 0;
  c.dbPath = db;
  c.syncFull = false;  // measures memory, not the disk
  c.initialClock = kStart;
  c.followWallClock = false;
  c.limits.maxOpenOrdersPerAccount = 10'000'000;
  Cluster k;
  k.id = 1;
  k.name = "memory-h100";
  k.provider = "provider";
  k.nodeCount = 125'000;
  c.clusters.push_back(k);
  c.grants.push_back(GrantConfig{"provider", k.name, 1'000'000, kStart, kStart + 40'000});
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  long orders = 3'000'000, interval = 250'000;
  std::string db = (std::filesystem::temp_directory_path() / "tessera-bench-memory.db").string();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "usage: bench_exchange_memory [--orders N] [--interval N] [--db PATH]\n";
      return 2;
    }
    if (a == "--orders") orders = std::atol(argv[++i]);
    else if (a == "--interval") interval = std::atol(argv[++i]);
    else if (a == "--db") db = argv[++i];
    else {
      std::cerr << "unknown option " << a << "\n";
      return 2;
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  auto opened = Journal::open(db, false);
  if (auto* e = std::get_if<std::string>(&opened)) {
    std::cerr << *e << "\n";
    return 1;
  }
  Journal& journal = *std::get<std::unique_ptr<Journal>>(opened);
  ExchangeCore core(config(db), journal);
  Outbox out;
  Hour now = kStart;
  long placed = 0;
  long lastRss = residentBytes();
  std::printf("%10s %12s %14s %10s\n", "orders", "RSS MB", "B/order (int)", "journal MB");
  // Each round: the provider lists 8 GPUs x 4 h one hour ahead, a buyer takes it (two orders and
  // a contract), and a bid is placed and cancelled (one order). Every 300 orders the clock moves
  // an hour: contracts deliver hour by hour and settle 4 hours after their trade.
  for (long round = 0; placed < orders; ++round) {
    const Hour start = now + 1;
    const Price price = 2 * kMicrosPerDollar + (round % 50) * 1000;
    OrderRequest sell;
    sell.id = static_cast<OrderId>(3 * round + 1);
    sell.side = Side::Sell;
    sell.cluster = 1;
    sell.gpus = 8;
    sell.start = start;
    sell.end = start + 4;
    sell.limit = price;
    core.inject(sell, "provider", out);
    OrderRequest buy = sell;
    buy.id = static_cast<OrderId>(3 * round + 2);
    buy.side = Side::Buy;
    core.inject(buy, round % 2 ? "alice" : "bob", out);
    OrderRequest bid = buy;
    bid.id = static_cast<OrderId>(3 * round + 3);
    bid.limit = price / 2;
    core.inject(bid, "carol", out);
    core.inject(CancelRequest{bid.id, 0}, "carol", out);
    placed += 3;
    if (placed % 300 == 0) core.inject(ClockAdvance{++now}, "", out);
    if (placed % 3000 == 0) {
      core.finishBatch(out);
      journal.commit();
      out.clear();
    }
    if (placed % interval < 3) {
      const long rss = residentBytes();
      const double perOrder = static_cast<double>(rss - lastRss) / static_cast<double>(interval);
      std::printf("%10ld %12.1f %14.1f %10.1f\n", placed, static_cast<double>(rss) / 1e6, perOrder,
                  static_cast<double>(std::filesystem::file_size(db)) / 1e6);
      std::fflush(stdout);
      lastRss = rss;
    }
  }
  return 0;
}
