#pragma once
// Everything a tessera-exchange needs to start: where to listen, where the journal lives, the
// limits it enforces, and the accounts and market it opens with (the accounts file).
#include "core/domain/Cluster.h"
#include "core/domain/Order.h"
#include "core/settlement/ContractSettlement.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace tessera::net {

struct AccountConfig {
  std::string name;
  std::string keyHash;  // Argon2id string of the API key (ApiKey.h); empty: cannot log on
  Money cash = 0;       // starting cash, micro-dollars
  bool house = false;   // house accounts (simulated market makers) are not cash-checked
};

// A provider's capacity, by cluster name so the file stays readable.
struct GrantConfig {
  std::string account;
  std::string cluster;
  GpuCount gpus = 0;
  Hour start = 0;
  Hour end = 0;
};

struct Limits {
  std::size_t maxMessageBytes = 64 * 1024;
  int maxOpenOrdersPerAccount = 10'000;
  double maxMessagesPerSecond = 200'000;   // per session, token bucket
  double burstMessages = 20'000;
  std::size_t maxPendingOutboundBytes = 16 * 1024 * 1024;  // beyond this a session is dropped
  int heartbeatSeconds = 5;    // the server sends a heartbeat after this much outbound silence
  int idleTimeoutSeconds = 30; // and drops a session that sent nothing for this long
  std::size_t mdReplayDepth = 100'000;  // market-data messages kept for re-requests after a gap
};

// A cluster outage reported by an in-process feeder (a simulated market) for `provider`, applied
// exactly like that provider's `outage` message (ExchangeCore).
struct FeederOutage {
  std::string provider;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount lostGpus = 0;
  DeliveryProblem problem = DeliveryProblem::MissingGpus;
};

// Hands feeder outages from the feeder's thread to the matching thread, which takes them before
// the next input it processes (ExchangeCore::inject and finishBatch), so an outage queued before
// an injected input is applied before it.
class FeederReports {
 public:
  void push(FeederOutage o) {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(o));
  }
  std::vector<FeederOutage> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(pending_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<FeederOutage> pending_;
};

// The most engine_prefault_mb may ask for (1 TB).
inline constexpr int kMaxEnginePrefaultMb = 1 << 20;

struct ExchangeConfig {
  std::string listenAddress = "127.0.0.1";
  std::uint16_t port = 7400;               // 0: an ephemeral port
  std::string dbPath = "tessera-exchange.db";  // ":memory:" for a journal that dies with the process
  bool syncFull = false;  // fsync every commit (survives power loss); default survives kill -9
  Limits limits;
  std::vector<AccountConfig> accounts;
  std::vector<Cluster> clusters;  // opened on the first start only (the journal remembers them)
  std::vector<GrantConfig> grants;
  std::optional<Hour> initialClock;  // first start only; default: the current UTC hour
  bool followWallClock = true;  // advance the exchange clock when a new UTC hour begins
  // Market-history file (core/store, docs/history-schema.md) to record every accepted input and
  // its market events to, for backtests; empty: no recording. The journal stays the durable
  // record: the history is written in batches and may miss the last second before a crash.
  std::string recordPath;
  // Exchange fee, ppm of every payment to a provider, paid into account "exchange"'s fees book.
  int feePpm = 0;
  // Memory the matching engine faults in, in huge pages, at start (makeMatchingEngine): a book
  // that fits never waits for the kernel mid-order, and reads it through fewer TLB misses. 0: the
  // engine's memory comes in ordinary pages as the book grows.
  int enginePrefaultMb = 0;
  // Set by EmbeddedExchange: outages from its in-process feeder.
  std::shared_ptr<FeederReports> feederReports;
};

struct ConfigError {
  std::string message;
};

// Reads the accounts file (see resources/exchange/accounts.json): accounts, clusters, grants.
std::variant<ExchangeConfig, ConfigError> loadAccountsFile(const std::string& path,
                                                           ExchangeConfig base);
// Reads a server config file (JSON: listen, port, db, accounts, limits) over `base`.
std::variant<ExchangeConfig, ConfigError> loadConfigFile(const std::string& path,
                                                         ExchangeConfig base);

}  // namespace tessera::net
