#pragma once
// tessera-exchange's server: Boost.Asio sessions on one io thread feeding one matching thread.
// The matching thread takes whatever requests have queued up, runs them through ExchangeCore,
// commits the batch's journal entries in one transaction and only then hands the replies back
// to the io thread (group commit), so nothing is acknowledged before it is durable.
#include "core/engine/Events.h"
#include "core/net/ExchangeConfig.h"

#include <cstdint>
#include <memory>
#include <string>

namespace tessera::net {

struct ServerStats {
  std::uint64_t messages = 0;   // requests processed by the matching thread
  std::uint64_t batches = 0;    // journal commits
  std::uint64_t sessions = 0;   // sessions accepted so far
  std::uint64_t dropped = 0;    // sessions dropped for being slow, too chatty or oversized
};

class ExchangeServer {
 public:
  explicit ExchangeServer(ExchangeConfig config);
  ~ExchangeServer();  // stops
  ExchangeServer(const ExchangeServer&) = delete;
  ExchangeServer& operator=(const ExchangeServer&) = delete;

  // Opens and replays the journal, binds, starts the threads. Throws std::runtime_error with a
  // message for a person if the journal is unusable or the address cannot be bound.
  void start();
  // Stops accepting, closes sessions, commits what was processed, closes the journal.
  void stop();
  // Blocks until SIGINT or SIGTERM arrives, then stops. For main().
  void runUntilSignalled();

  std::uint16_t port() const;
  std::uint64_t replayedEntries() const;
  ServerStats stats() const;
  void inject(const InputEvent& event, std::string account);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tessera::net
