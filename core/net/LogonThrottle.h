#pragma once
// Slows down key guessing without letting a guesser lock the owner out. Three counts of failed
// logons, each doubling the wait before the next attempt (0.5 s, 1 s, ... up to 30 s):
//  - per account and address: one address guessing one account;
//  - per address: one address guessing many accounts;
//  - per account, from anywhere, but only beyond `accountFreeFailures` failures and never for
//    an address that has logged on to the account before: many addresses guessing one account,
//    while the owner's own addresses keep working.
// A success clears the first two for its address. An attempt made too early is refused with
// the time left (`auth_throttled`), never delayed: nobody else waits. Not thread-safe
// (LogonGate holds it under its lock).
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::net {

struct ThrottlePolicy {
  std::chrono::milliseconds firstDelay{500};
  std::chrono::milliseconds maxDelay{30'000};
  // Failures older than this are forgotten (and their entries dropped when the table is large).
  std::chrono::minutes forgetAfter{15};
  std::size_t maxEntries = 100'000;  // per table; beyond it, forgotten entries are pruned
  // Failures at one account from all addresses together before the account-wide wait starts.
  int accountFreeFailures = 8;
  // Addresses remembered per account as having logged on (the oldest is forgotten first).
  std::size_t knownAddressesPerAccount = 16;
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
  // `free`: failures that cost no wait yet.
  void fail(Table& t, std::string_view key, Clock::time_point now, int free = 0);
  void prune(Table& t, Clock::time_point now);
  bool knownAddress(std::string_view account, std::string_view address) const;
  static std::string pairKey(std::string_view account, std::string_view address);

  ThrottlePolicy policy_;
  Table pairs_;
  Table addresses_;
  Table accounts_;
  // account -> addresses that logged on to it, oldest first. Only configured accounts get
  // here (the gate passes an empty name for unknown ones), so the map is bounded by the
  // accounts file and each list by knownAddressesPerAccount.
  std::unordered_map<std::string, std::vector<std::string>> known_;
};

}  // namespace tessera::net
