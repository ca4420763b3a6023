#pragma once
// Slows down key guessing: every failed logon doubles the wait before the next attempt for
// that account and for that remote address (0.5 s, 1 s, ... up to 30 s), and a success clears
// both. An attempt made too early is refused with the time left (`auth_throttled`), never
// delayed: nobody else waits. Not thread-safe (LogonGate holds it under its lock).
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tessera::net {

struct ThrottlePolicy {
  std::chrono::milliseconds firstDelay{500};
  std::chrono::milliseconds maxDelay{30'000};
  // Failures older than this are forgotten (and their entries dropped when the table is large).
  std::chrono::minutes forgetAfter{15};
  std::size_t maxEntries = 100'000;  // per table; beyond it, forgotten entries are pruned
};

class LogonThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LogonThrottle(ThrottlePolicy policy = {}) : policy_(policy) {}

  // How long an attempt for `account` from `address` must still wait; zero: check it now.
  // An empty account is one that does not exist (only the address counts then).
  [[nodiscard]] std::chrono::milliseconds wait(std::string_view account, std::string_view address,
                                               Clock::time_point now) const;
  void failed(std::string_view account, std::string_view address, Clock::time_point now);
  void succeeded(std::string_view account, std::string_view address);

 private:
  struct Entry {
    int failures = 0;
    Clock::time_point until;  // no attempt before this
    Clock::time_point last;   // the last failure
  };
  using Table = std::unordered_map<std::string, Entry>;

  std::chrono::milliseconds left(const Table& t, std::string_view key, Clock::time_point now) const;
  void fail(Table& t, std::string_view key, Clock::time_point now);
  void prune(Table& t, Clock::time_point now);

  ThrottlePolicy policy_;
  Table accounts_;
  Table addresses_;
};

}  // namespace tessera::net
