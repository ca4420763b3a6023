#pragma once
// tessera-exchange's server: Boost.Asio sessions on one io thread feeding one matching thread.
// The matching thread takes whatever requests have queued up, runs them through ExchangeCore,
// commits the batch's journal entries in one transaction and only then sends the replies
// (group commit), so nothing is acknowledged before it is durable. It writes to the sockets
// itself when they take the bytes at once; the io thread writes whatever they do not.
#include "core/engine/Events.h"
#include "core/net/ExchangeConfig.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::net {

struct ServerStats {
  std::uint64_t messages = 0;        // requests processed by the matching thread
  std::uint64_t batches = 0;         // journal commits
  std::uint64_t sessions = 0;        // sessions accepted so far
  std::uint64_t dropped = 0;         // sessions dropped for being slow readers
  std::uint64_t refused = 0;         // connections refused (max_sessions, max_sessions_per_address)
  std::uint64_t acceptFailures = 0;  // accepts that failed for want of descriptors (then a pause)
  std::uint64_t timedOut = 0;        // sessions closed by the logon, line or idle timeout
  std::uint64_t paused = 0;          // times a session's requests were held back (outbound budget)
  // The most bytes of replies one session had waiting (outstanding + being built) when it was
  // paused: about outbound_budget_bytes plus one request's replies.
  std::uint64_t peakOutboundBytes = 0;
  std::uint64_t openSessions = 0;  // sessions open now (io thread's count)
  // Snapshots (ExchangeConfig::snapshots): written since start, and the time the matching thread
  // spent taking them (it takes each between two batches; another thread writes it).
  std::uint64_t snapshots = 0;
  std::uint64_t lastSnapshotPauseMicros = 0;
  std::uint64_t maxSnapshotPauseMicros = 0;
  std::uint64_t startSnapshotSeq = 0;  // the journal entry of the snapshot it started from (0: none)
  std::uint64_t sessionObjects = 0;    // session objects alive (closed ones are freed promptly)
};

// One batch of the matching thread, for finding where latency comes from (bench/net prints
// these). Kept for at most about a million batches between two takeBatchTimings().
struct BatchTiming {
  std::uint32_t requests = 0;      // client requests in the batch
  std::uint32_t waitMicros = 0;    // from reading the batch's oldest request to picking it up
  std::uint32_t applyMicros = 0;   // through ExchangeCore, journal appends included
  std::uint32_t commitMicros = 0;  // the journal commit
  std::uint32_t sendMicros = 0;    // handing the replies to the sockets
};

class ExchangeServer {
 public:
  explicit ExchangeServer(ExchangeConfig config);
  ~ExchangeServer();  // stops
  ExchangeServer(const ExchangeServer&) = delete;
  ExchangeServer& operator=(const ExchangeServer&) = delete;

  // Opens and replays the journal, binds, starts the threads. Throws std::runtime_error with a
  // message for a person if the journal is unusable (JournalUnreadable) or the address cannot
  // be bound.
  void start();
  // Stops accepting and reading; lets the matching thread apply and commit what it was handed
  // and send every reply; then closes the sessions (those that do not take their replies after
  // limits.shutdownDrainSeconds) and the journal. A request is thus either answered or not
  // applied.
  void stop();
  // Blocks until SIGINT or SIGTERM arrives, then stops. For main().
  void runUntilSignalled();

  std::uint16_t port() const;
  // Journal entries the state was restored from at start: a snapshot's and those replayed
  // after it (0: a new journal).
  std::uint64_t replayedEntries() const;
  // Of replayedEntries(): those the snapshot it started from holds (0: none); the rest were
  // replayed from the journal.
  std::uint64_t snapshotEntries() const;
  // The exchange clock once the journal was replayed (or the market opened), before any input.
  Hour clockAtStart() const;
  ServerStats stats() const;
  std::vector<BatchTiming> takeBatchTimings();
  void inject(const InputEvent& event, std::string account);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::net
