#pragma once
// Checks logon keys off the matching thread. ExchangeServer hands each logon to the gate; the
// gate's own thread applies the throttle (LogonThrottle.h), runs the Argon2id check (ApiKey.h,
// milliseconds each) and hands back the verdict, which the server then forwards to
// ExchangeCore as the logon's `check`. ExchangeCore only logs on a Verified logon and never
// hashes anything itself, so a stream of logons costs the matching thread nothing.
#include "core/net/ClientMessage.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/LogonThrottle.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace tessera::net {

struct LogonVerdict {
  LogonCheck check = LogonCheck::Refused;
  std::chrono::milliseconds retryAfter{0};  // Throttled: when to try again
};

// The key check alone, on the caller's thread: true if `account` is configured with a key hash
// that `key` matches. For code that drives ExchangeCore without a server (tests, fuzzers).
[[nodiscard]] bool logonKeyMatches(const std::vector<AccountConfig>& accounts, std::string_view account,
                                   std::string_view key);

class LogonGate {
 public:
  using Done = std::function<void(LogonVerdict)>;
  // Checks waiting beyond this are refused as Throttled at once (a flood of logons must not
  // queue unbounded work or memory).
  static constexpr std::size_t kMaxQueued = 64;
  // One remote address's share of that queue, so that one address cannot keep everyone
  // else's logons out.
  static constexpr int kMaxQueuedPerAddress = 16;
  static constexpr std::chrono::milliseconds kBusyRetry{1000};

  explicit LogonGate(const std::vector<AccountConfig>& accounts, ThrottlePolicy policy = {});
  ~LogonGate();  // finishes the check under way, drops the rest (their `done` never runs)
  LogonGate(const LogonGate&) = delete;
  LogonGate& operator=(const LogonGate&) = delete;

  // Any thread. `done` runs on the gate's thread, or at once on the caller's if the queue is
  // full.
  void check(std::string account, std::string key, std::string address, Done done);

 private:
  struct Job {
    std::string account, key, address;
    Done done;
  };
  void run();
  LogonVerdict decide(const Job& job);

  std::unordered_map<std::string, std::string> hashes_;  // account -> stored key hash
  std::string decoy_;       // a stored hash checked for unknown accounts, so they take as long
  LogonThrottle throttle_;  // gate thread only
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  std::unordered_map<std::string, int> queuedPerAddress_;  // under mutex_
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tessera::net
