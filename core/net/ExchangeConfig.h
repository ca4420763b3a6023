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
  bool house = false;   // house accounts (simulated market makers) are funded from outside
  // What the account's bids may commit beyond its cash, micro-dollars (`credit_limit`): a house
  // market maker with no cash trades on this line, and no further.
  Money creditLimit = 0;
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
  double maxMessagesPerSecond = 200'000;  // per session, token bucket
  double burstMessages = 20'000;
  std::size_t maxPendingOutboundBytes = 16 * 1024 * 1024;  // beyond this a session is dropped
  // Backpressure: once a session's replies waiting to be sent (queued, plus those being built in
  // the current batch) pass this, its further requests wait (unread) until the queue has
  // drained to half of it. So N requests for large replies cost one budget, not N replies.
  std::size_t outboundBudgetBytes = 4 * 1024 * 1024;
  int heartbeatSeconds = 5;             // the server sends a heartbeat after this much outbound silence
  int idleTimeoutSeconds = 30;          // and drops a session that sent nothing for this long (or, while
                                        // its requests wait for its replies to drain, that read nothing)
  std::size_t mdReplayDepth = 100'000;  // market-data messages kept for re-requests after a gap
  // Book cells are published for the hours before now + this (90 days): an order further out
  // trades as usual, and its cells are published as they come within it.
  Hour mdHorizonHours = 90 * 24;
  // Connections.
  int maxSessions = 1024;          // open sessions at once; more are refused
  int maxSessionsPerAddress = 64;  // open sessions from one remote address
  int logonTimeoutSeconds = 10;    // a session not logged on by then is closed (heartbeats or
                                   // other requests do not extend it)
  int lineTimeoutSeconds = 10;     // a line begun must be completed within this
  int acceptBackoffMs = 100;       // pause before accepting again when out of descriptors
  int shutdownDrainSeconds = 5;    // at stop, how long replies may take to leave before the
                                   // sessions are closed regardless
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

// A reclaim of interruptible capacity by a feeder's `provider`: `gpus` of what it sold on the
// interruptible cluster `cluster`, for hours [start, end). It names no contract: the exchange
// spreads it over the provider's contracts there (core/settlement/ReclaimRule) and applies each
// part exactly like that provider's `reclaim` message (notice, refund, journal, recording).
struct FeederReclaim {
  std::string provider;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
};

// Hands feeder outages and reclaims from the feeder's thread to the matching thread, which
// takes them before the next input it processes (ExchangeCore::inject and finishBatch), so a
// report queued before an injected input is applied before it (outages before reclaims).
class FeederReports {
 public:
  void push(FeederOutage o) {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(o));
  }
  void pushReclaim(FeederReclaim r) {
    std::lock_guard lock(mutex_);
    reclaims_.push_back(std::move(r));
  }
  std::vector<FeederOutage> take() {
    std::lock_guard lock(mutex_);
    return std::exchange(pending_, {});
  }
  std::vector<FeederReclaim> takeReclaims() {
    std::lock_guard lock(mutex_);
    return std::exchange(reclaims_, {});
  }

 private:
  std::mutex mutex_;
  std::vector<FeederOutage> pending_;
  std::vector<FeederReclaim> reclaims_;
};

// The call-auction mode (docs/matching.md, "Call mode at the exchange"): which clusters trade in
// periodic calls instead of continuously, and when their calls are. Continuous is the default:
// with no cluster named and `allClusters` false every cluster trades continuously.
struct CallModeConfig {
  bool allClusters = false;           // every cluster (and constraint orders) trades in calls
  std::vector<std::string> clusters;  // these clusters, by name, trade in calls
  int periodSeconds = 0;              // a call every this many seconds of wall time (0: none)
  bool atEachHour = false;            // a call at every step of the exchange clock
  int nodeLimit = 100'000;            // the solver's node limit per round
  double seconds = 5.0;               // the whole call's time limit
  bool any() const { return allClusters || !clusters.empty(); }
};

// The most engine_prefault_mb may ask for (1 TB).
inline constexpr int kMaxEnginePrefaultMb = 1 << 20;

struct ExchangeConfig {
  std::string listenAddress = "127.0.0.1";
  std::uint16_t port = 7400;                   // 0: an ephemeral port
  std::string dbPath = "tessera-exchange.db";  // ":memory:" for a journal that dies with the process
  // The journal's durability (docs/protocol.md, "Durability"): true fsyncs the WAL at every
  // group commit, so an acknowledged request survives power loss; false (synchronous=NORMAL)
  // survives the process being killed but may lose the last commits to a power cut.
  bool syncFull = true;
  // Finished orders leave memory for the journal's archive (docs/protocol.md "Finished
  // orders"), so memory follows the working orders; false keeps them (for comparisons).
  bool retireFinishedOrders = true;
  // Settled contracts leave memory for the journal's archive (docs/protocol.md "Settled
  // contracts"), so memory follows the open contracts; false keeps them (for comparisons).
  bool retireSettledContracts = true;
  Limits limits;
  std::vector<AccountConfig> accounts;
  std::vector<Cluster> clusters;  // opened on the first start only (the journal remembers them)
  std::vector<GrantConfig> grants;
  std::optional<Hour> initialClock;  // first start only; default: the current UTC hour
  bool followWallClock = true;       // advance the exchange clock when a new UTC hour begins
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
  // TLS on the client port: PEM certificate (chain) and private key. Both empty: plaintext,
  // which the server allows only on a loopback address.
  std::string tlsCertFile;
  std::string tlsKeyFile;
  // The log (core/net/ExchangeLog.h); tessera-exchange sets it up from these.
  std::string logFile;  // empty: stderr only
  std::string logLevel = "info";
  // Snapshots of the whole state in "<db>.snapshots" (docs/protocol.md, "Snapshots"): one is
  // taken once this many journal entries, or this many seconds with new entries, have passed
  // since the last (0: never by that measure), and one at a clean stop. Start-up loads the
  // newest usable snapshot and replays only the later entries. With `snapshots` false they are
  // neither written nor read; with `snapshotsAtStart` false start-up ignores them (a full
  // replay) but they are still written.
  bool snapshots = true;
  bool snapshotsAtStart = true;
  std::int64_t snapshotEveryEntries = 100'000;
  std::int64_t snapshotEverySeconds = 600;
  CallModeConfig callMode;
  // Set by EmbeddedExchange: outages from its in-process feeder.
  std::shared_ptr<FeederReports> feederReports;
};

struct ConfigError {
  std::string message;
};

// What is wrong with `limits` for a person (a timeout of 0, a budget over the cap...), or "".
std::string checkLimits(const Limits& limits);

// Reads the accounts file (see resources/exchange/accounts.json): accounts, clusters, grants.
std::variant<ExchangeConfig, ConfigError> loadAccountsFile(const std::string& path, ExchangeConfig base);
// Reads a server config file (JSON: listen, port, db, accounts, limits) over `base`.
std::variant<ExchangeConfig, ConfigError> loadConfigFile(const std::string& path, ExchangeConfig base);

}  // namespace tessera::net
