// Restart time of the exchange with and without a snapshot, and the pause a snapshot costs the
// matching thread. Builds a journal of N orders through ExchangeCore (about 90% of them still
// open at the end: asks and bids that do not cross, plus a crossing bid in every 20 that makes
// a contract), then measures: taking a snapshot (the pause), writing it (off the matching
// thread in the server), starting by a full replay, and starting from the snapshot with no
// later entries; and checks that both starts give the same state digest. Run by hand, never by
// CTest.
//
//   bench_exchange_restart [--orders 1000000] [--db PATH]
#include "core/net/ExchangeCore.h"
#include "core/net/SnapshotStore.h"
#include "BenchExchange.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <time.h>
#include <unistd.h>

using namespace tessera;
using namespace tessera::net;

namespace {

constexpr Hour kStart = bench::kBenchStart;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

}  // namespace

int main(int argc, char** argv) {
  long orders = 1'000'000;
  std::string db = (std::filesystem::temp_directory_path() / "tessera-bench-restart.db").string();
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) {
      std::cerr << "usage: bench_exchange_restart [--orders N] [--db PATH]\n";
      return 2;
    }
    if (a == "--orders")
      orders = std::atol(argv[++i]);
    else if (a == "--db")
      db = argv[++i];
    else {
      std::cerr << "unknown option " << a << "\n";
      return 2;
    }
  }
  for (const std::string& f :
       {db, db + "-wal", db + "-shm", db + ".snapshots", db + ".snapshots-wal", db + ".snapshots-shm"})
    std::filesystem::remove(f);
  const ExchangeConfig cfg = bench::benchConfig(db, "restart-h100", 4'000, 100'000'000);
  std::uint64_t liveDigest = 0;
  {
    auto journal = bench::openBenchJournal(db);
    ExchangeCore core(cfg, *journal);
    Outbox out;
    const auto t0 = Clock::now();
    for (long i = 0; i < orders; ++i) {
      const Hour h = kStart + 1 + i % 2000;
      OrderRequest o;
      o.id = static_cast<OrderId>(i + 1);
      o.cluster = 1;
      o.gpus = 1;
      o.start = h;
      o.end = h + 4;
      std::string who;
      if (i % 2 == 0) {
        o.side = Side::Sell;
        o.limit = 2 * kMicrosPerDollar + (i % 100) * 1000;
        who = "provider";
      } else if (i % 20 == 1) {
        o.side = Side::Buy;
        o.limit = 3 * kMicrosPerDollar;  // takes the ask just placed
        who = "alice";
      } else {
        o.side = Side::Buy;
        o.limit = kMicrosPerDollar - (i % 100) * 1000;
        who = i % 4 == 1 ? "bob" : "carol";
      }
      core.inject(o, who, out);
      if (i % 1000 == 999) {
        core.finishBatch(out);
        journal->commit();
        out.clear();
      }
    }
    core.finishBatch(out);
    journal->commit();
    const double genMs = msSince(t0);
    std::size_t open = 0;
    for (const char* a : {"provider", "alice", "bob", "carol"})
      if (auto id = core.accounts().find(a)) open += core.engine().workingOrders(*id).size();
    std::printf("%ld orders placed in %.1f s (%.2f us each); %zu open at the end; journal %.1f MB; RSS %.0f MB\n",
                orders, genMs / 1000, genMs * 1000 / static_cast<double>(orders), open,
                static_cast<double>(std::filesystem::file_size(db)) / 1e6,
                static_cast<double>(bench::residentBytes()) / 1e6);

    auto t1 = Clock::now();
    double c1 = bench::threadCpuMs();
    const std::string bytes = core.snapshot();
    const double pauseMs = msSince(t1);
    std::printf("snapshot taken (the matching thread's pause): %.0f ms (%.0f ms CPU), %.1f MB\n", pauseMs,
                bench::threadCpuMs() - c1, static_cast<double>(bytes.size()) / 1e6);
    auto opened = SnapshotStore::open(db + ".snapshots");
    auto& store = *std::get<std::unique_ptr<SnapshotStore>>(opened);
    t1 = Clock::now();
    c1 = bench::threadCpuMs();
    store.write(journal->lastSeq(), ExchangeCore::configFingerprint(cfg), bytes);
    std::printf("snapshot written (the writer thread's work): %.0f ms (%.0f ms CPU)\n", msSince(t1),
                bench::threadCpuMs() - c1);
    liveDigest = core.stateDigest();
  }
  std::uint64_t fullDigest = 0, snapDigest = 0;
  {
    auto journal = bench::openBenchJournal(db);
    const auto t0 = Clock::now();
    const double c0 = bench::threadCpuMs();
    ExchangeCore core(cfg, *journal);
    const double ms = msSince(t0);
    std::printf("restart by full replay: %.0f ms (%.0f ms CPU; %llu entries, %.2f us each)\n", ms,
                bench::threadCpuMs() - c0, static_cast<unsigned long long>(core.replayedEntries()),
                ms * 1000 / static_cast<double>(std::max<std::uint64_t>(1, core.replayedEntries())));
    fullDigest = core.stateDigest();
  }
  {
    auto journal = bench::openBenchJournal(db);
    auto opened = SnapshotStore::open(db + ".snapshots");
    auto& store = *std::get<std::unique_ptr<SnapshotStore>>(opened);
    const auto t0 = Clock::now();
    const double c0 = bench::threadCpuMs();
    auto core = ExchangeCore::start(cfg, *journal, &store);
    const double ms = msSince(t0);
    std::printf("restart from the snapshot: %.0f ms (%.0f ms CPU; %s, %llu later entries)\n", ms,
                bench::threadCpuMs() - c0, core->startedFromSnapshot() ? "snapshot loaded" : "NO SNAPSHOT USED",
                static_cast<unsigned long long>(core->replayedEntries()));
    snapDigest = core->stateDigest();
  }
  std::printf("state digests: live %016llx, full replay %016llx, snapshot %016llx: %s\n",
              static_cast<unsigned long long>(liveDigest), static_cast<unsigned long long>(fullDigest),
              static_cast<unsigned long long>(snapDigest), fullDigest == snapDigest ? "same" : "DIFFERENT");
  return fullDigest == snapDigest ? 0 : 1;
}
