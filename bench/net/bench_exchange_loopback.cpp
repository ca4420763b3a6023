// Sustained orders/s through the exchange server over loopback with 50 clients, journal on,
// and order-to-ack latency percentiles. See README.md.
#include "core/net/ExchangeServer.h"
#include "core/net/ApiKey.h"
#include "LoopbackLoad.h"

#include <utility>  // boost 1.74 asio uses std::exchange without including it
#include <boost/asio.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::bench;
namespace asio = boost::asio;

namespace {

constexpr Hour kNow = kLoadFirstHour;
constexpr Hour kHours = kLoadHours;

ExchangeConfig benchConfig(const LoadOptions& o, const std::string& db) {
  ExchangeConfig c;
  c.port = 0;
  c.dbPath = db;
  c.syncFull = o.syncFull;
  c.initialClock = kNow;
  c.followWallClock = false;
  c.limits.maxOpenOrdersPerAccount = 1'000'000;
  c.limits.maxMessagesPerSecond = 1e9;
  c.limits.burstMessages = 1e9;
  c.limits.idleTimeoutSeconds = 3600;  // the market-data subscriber only reads
  c.limits.maxSessions = 1 << 20;      // every client is on 127.0.0.1
  c.limits.maxSessionsPerAddress = 1 << 20;
  Cluster k;
  k.id = 1;
  k.name = "bench-h100";
  k.gpusPerNode = 8;
  k.nodeCount = 125'000;  // a million GPUs: the sellers never run out
  c.clusters = {k};
  for (int i = 0; i < o.clients + o.mdSubscribers; ++i) {
    AccountConfig a;
    a.name = "c" + std::to_string(i);
    a.keyHash = hashApiKey("k", KeyHashCost::minimal());  // a benchmark's key is no secret
    a.cash = 1'000'000'000LL * kMicrosPerDollar;
    c.accounts.push_back(a);
    if (i % 2 == 1 && i < o.clients)
      c.grants.push_back(GrantConfig{a.name, k.name, 1'000'000 / o.clients, kNow, kNow + kHours});
  }
  return c;
}

// Where the server's part of the latency goes, per request (a batch's figures count once for
// each request in it): waiting for the matching thread, applying, committing, sending.
void reportStages(const std::vector<BatchTiming>& batches) {
  struct Stage {
    const char* name;
    std::uint32_t BatchTiming::*field;
  };
  const Stage stages[] = {{"wait", &BatchTiming::waitMicros},
                          {"apply", &BatchTiming::applyMicros},
                          {"commit", &BatchTiming::commitMicros},
                          {"send", &BatchTiming::sendMicros}};
  std::uint64_t requests = 0;
  for (const BatchTiming& b : batches) requests += b.requests;
  if (requests == 0) return;
  std::printf("  server stages per request (%zu batches):", batches.size());
  for (const Stage& st : stages) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> v;  // (micros, requests)
    v.reserve(batches.size());
    for (const BatchTiming& b : batches) v.emplace_back(b.*st.field, b.requests);
    std::sort(v.begin(), v.end());
    auto at = [&](double p) {
      const auto want = static_cast<std::uint64_t>(p * static_cast<double>(requests));
      std::uint64_t seen = 0;
      for (const auto& [us, n] : v) {
        seen += n;
        if (seen > want) return us;
      }
      return v.back().first;
    };
    std::printf("  %s p50 %u p99 %u max %u us", st.name, at(0.50), at(0.99), v.back().first);
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  LoadOptions o;
  if (!parseLoadOptions(argc, argv, o,
                        "usage: bench_exchange_loopback [--clients N] [--window W] [--seconds S] [--db PATH] "
                        "[--rates R1,R2] [--md-subscribers N] [--sync normal|full]"))
    return 2;
  const std::string db =
      o.db.empty() ? (std::filesystem::temp_directory_path() / "tessera-bench-journal.db").string() : o.db;
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);

  ExchangeServer server(benchConfig(o, db));
  server.start();
  std::printf(
      "exchange on 127.0.0.1:%u, journal %s (WAL, synchronous=NORMAL), %d clients, window %d, %d market-data "
      "subscriber(s)\n",
      server.port(), db.c_str(), o.clients, o.window, o.mdSubscribers);
  printLoadAverage();
  asio::io_context io;
  LoopbackLoad load(io, server.port(), o);
  runLoadPhases(load, o,
                ServerProbe{[&] { return server.stats().batches; }, [&] { server.takeBatchTimings(); },
                            [&] { reportStages(server.takeBatchTimings()); }});
  server.stop();
  std::error_code ec;
  std::printf("journal size: %.1f MB (+ WAL %.1f MB)\n", std::filesystem::file_size(db, ec) / 1e6,
              std::filesystem::file_size(db + "-wal", ec) / 1e6);
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
  return 0;
}
