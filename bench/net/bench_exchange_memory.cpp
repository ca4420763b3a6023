// Memory of a long-running exchange: a steady flow of trades (and bids placed and cancelled)
// through ExchangeCore with a file journal, the clock moving so that contracts deliver and
// settle. Prints the resident set after every interval and what each million orders added.
// A bounded exchange shows a flat line once warmed up. With --seconds it runs that long instead
// (orders unlimited) and prints the resident set every --every seconds: RSS over time under a
// steady load. At the end it takes a snapshot twice, in this thread and by a forked child
// (ChildSnapshot, as the server does; timing the matching thread's pause each way, and checking
// the bytes agree), stores it, goes on for --tail journal entries (default 100,000, the
// server's default snapshot interval: the longest tail a restart replays), and starts a second
// exchange from the snapshot and that tail on the same journal (timing the restart), checking
// that the state digests agree: the worst restart time after that many orders. Run by hand,
// never by CTest.
//
//   bench_exchange_memory [--orders 3000000] [--interval 250000] [--tail 100000] [--db PATH]
//   bench_exchange_memory --seconds 600 [--every 30] [--tail 100000] [--db PATH]
#include "BenchExchange.h"
#include "core/net/ChildSnapshot.h"
#include "core/net/ExchangeCore.h"
#include "core/net/SnapshotStore.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <unistd.h>

using namespace tessera;
using namespace tessera::net;

namespace {

constexpr Hour kStart = bench::kBenchStart;
using bench::residentBytes;
using bench::threadCpuMs;

}  // namespace

int main(int argc, char** argv) {
  long orders = 3'000'000, interval = 250'000, seconds = 0, every = 30, tail = 100'000;
  std::string db = (std::filesystem::temp_directory_path() / "tessera-bench-memory.db").string();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "usage: bench_exchange_memory [--orders N] [--interval N] [--seconds S] [--every S] [--tail N] "
                   "[--db PATH]\n";
      return 2;
    }
    if (a == "--orders")
      orders = std::atol(argv[++i]);
    else if (a == "--interval")
      interval = std::atol(argv[++i]);
    else if (a == "--db")
      db = argv[++i];
    else if (a == "--seconds")
      seconds = std::atol(argv[++i]);
    else if (a == "--every")
      every = std::atol(argv[++i]);
    else if (a == "--tail")
      tail = std::atol(argv[++i]);
    else {
      std::cerr << "unknown option " << a << "\n";
      return 2;
    }
  }
  for (const char* suffix : {"", "-wal", "-shm", ".snapshots", ".snapshots-wal", ".snapshots-shm"})
    std::filesystem::remove(db + suffix);
  const auto opened = bench::openBenchJournal(db);
  Journal& journal = *opened;
  const ExchangeConfig config = bench::benchConfig(db, "memory-h100", 40'000, 10'000'000);
  ExchangeCore core(config, journal);
  Outbox out;
  Hour now = kStart;
  long placed = 0;
  long lastRss = residentBytes();
  std::printf("%10s %12s %14s %10s\n", "orders", "RSS MB", "B/order (int)", "journal MB");
  // Each round: the provider lists 8 GPUs x 4 h one hour ahead, a buyer takes it (two orders and
  // a contract), and a bid is placed and cancelled (one order). Every 300 orders the clock moves
  // an hour: contracts deliver hour by hour and settle 4 hours after their trade.
  if (seconds > 0) {
    orders = std::numeric_limits<long>::max();
    interval = std::numeric_limits<long>::max();
    std::printf("%8s %12s %10s\n", "seconds", "orders", "RSS MB");
  }
  const auto t0 = std::chrono::steady_clock::now();
  long nextPrint = every;
  auto placeRound = [&](long round) {
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
  };
  long round = 0;
  for (; placed < orders; ++round) {
    placeRound(round);
    if (placed % 3000 == 0) {
      core.finishBatch(out);
      journal.commit();
      out.clear();
      if (seconds > 0) {
        const auto elapsed =
            std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - t0).count();
        if (elapsed >= nextPrint) {
          std::printf("%8ld %12ld %10.1f\n", static_cast<long>(elapsed), placed,
                      static_cast<double>(residentBytes()) / 1e6);
          std::fflush(stdout);
          nextPrint += every;
        }
        if (elapsed >= seconds) {
          ++round;  // the next round's ids are new
          break;
        }
      }
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
  core.finishBatch(out);
  journal.commit();
  using Clock = std::chrono::steady_clock;
  auto t1 = Clock::now();
  const std::string bytes = core.snapshot();
  const double pauseMs = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  t1 = Clock::now();
  const std::string header = core.snapshotHeader();
  auto child = ChildSnapshot::start([&] { return core.snapshot(header, bytes.size()); });
  const double forkPauseMs = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  if (!child) {
    std::cerr << "cannot fork\n";
    return 1;
  }
  const ChildSnapshot::Result fromChild = child->collect();
  const double childMs = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  if (!fromChild.ok() || fromChild.bytes != bytes) {
    std::cerr << "the child's snapshot differs: " << fromChild.error << "\n";
    return 1;
  }
  auto openedStore = SnapshotStore::open(db + ".snapshots");
  if (auto* e = std::get_if<std::string>(&openedStore)) {
    std::cerr << *e << "\n";
    return 1;
  }
  auto& store = *std::get<std::unique_ptr<SnapshotStore>>(openedStore);
  const std::uint64_t snapshotSeq = journal.lastSeq();
  store.write(snapshotSeq, ExchangeCore::configFingerprint(config), bytes);
  std::printf(
      "after %ld orders: snapshot %.1f MB; pause of the matching thread: %.1f ms serializing here, "
      "%.2f ms by a forked child (which took %.0f ms, the same bytes)\n",
      placed, static_cast<double>(bytes.size()) / 1e6, pauseMs, forkPauseMs, childMs);
  // The tail a restart replays: up to the snapshot interval's worth of entries.
  for (; journal.lastSeq() < snapshotSeq + static_cast<std::uint64_t>(tail); ++round) {
    placeRound(round);
    if (round % 100 == 0) {
      core.finishBatch(out);
      journal.commit();
      out.clear();
    }
  }
  core.finishBatch(out);
  journal.commit();
  const std::uint64_t live = core.stateDigest();
  auto again = bench::openBenchJournal(db);
  t1 = Clock::now();
  const double cpu0 = threadCpuMs();
  auto restarted = ExchangeCore::start(config, *again, &store);
  const double restartMs = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
  const double restartCpuMs = threadCpuMs() - cpu0;
  const bool same = restarted->stateDigest() == live;
  std::printf("restart from it: %.0f ms wall, %.0f ms CPU (%s, %llu later entries replayed); state digest %s\n",
              restartMs, restartCpuMs, restarted->startedFromSnapshot() ? "snapshot loaded" : "NO SNAPSHOT USED",
              static_cast<unsigned long long>(restarted->replayedEntries()), same ? "the same" : "DIFFERENT");
  return same ? 0 : 1;
}
