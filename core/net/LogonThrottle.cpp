#include "core/net/LogonThrottle.h"

#include <algorithm>

namespace tessera::net {

std::string LogonThrottle::pairKey(std::string_view account, std::string_view address) {
  std::string key;
  key.reserve(account.size() + 1 + address.size());
  key.append(account).push_back('\n');  // neither an account name nor an address holds one
  key.append(address);
  return key;
}

std::chrono::milliseconds LogonThrottle::left(const Table& t, std::string_view key, Clock::time_point now) const {
  if (key.empty()) return std::chrono::milliseconds(0);
  auto it = t.find(std::string(key));
  if (it == t.end() || it->second.until <= now) return std::chrono::milliseconds(0);
  // Rounded up, so that retrying after the time given is never too early.
  return std::chrono::ceil<std::chrono::milliseconds>(it->second.until - now);
}

bool LogonThrottle::knownAddress(std::string_view account, std::string_view address) const {
  auto it = known_.find(std::string(account));
  return it != known_.end() && std::find(it->second.begin(), it->second.end(), address) != it->second.end();
}

std::chrono::milliseconds LogonThrottle::wait(std::string_view account, std::string_view address,
                                              Clock::time_point now) const {
  auto w = left(addresses_, address, now);
  if (account.empty()) return w;
  w = std::max(w, left(pairs_, pairKey(account, address), now));
  if (!knownAddress(account, address)) w = std::max(w, left(accounts_, account, now));
  return w;
}

void LogonThrottle::fail(Table& t, std::string_view key, Clock::time_point now, int free) {
  if (key.empty()) return;
  if (t.size() >= policy_.maxEntries) prune(t, now);
  Entry& e = t[std::string(key)];
  if (e.failures > 0 && now - e.last > policy_.forgetAfter) e.failures = 0;
  e.failures = std::min(e.failures + 1, free + 30);  // 2^30 half-seconds is far beyond maxDelay
  e.last = now;
  const int counted = e.failures - free;
  if (counted <= 0) return;
  e.until = now + std::min<std::chrono::milliseconds>(policy_.firstDelay * (1LL << (counted - 1)), policy_.maxDelay);
}

void LogonThrottle::failed(std::string_view account, std::string_view address, Clock::time_point now) {
  fail(addresses_, address, now);
  if (account.empty()) return;
  fail(pairs_, pairKey(account, address), now);
  fail(accounts_, account, now, policy_.accountFreeFailures);
}

void LogonThrottle::succeeded(std::string_view account, std::string_view address) {
  addresses_.erase(std::string(address));
  if (account.empty()) return;
  pairs_.erase(pairKey(account, address));
  // The account-wide count stays: a guesser elsewhere is not reset by the owner's logon.
  std::vector<std::string>& known = known_[std::string(account)];
  std::erase(known, address);
  if (known.size() >= policy_.knownAddressesPerAccount) known.erase(known.begin());
  known.emplace_back(address);
}

void LogonThrottle::prune(Table& t, Clock::time_point now) {
  std::erase_if(t,
                [&](const auto& kv) { return kv.second.until <= now && now - kv.second.last > policy_.forgetAfter; });
  // A table still full is under a spread-out attack: the oldest half goes, so memory stays
  // bounded (those addresses start over at the first delay).
  if (t.size() >= policy_.maxEntries) {
    std::vector<Clock::time_point> lasts;
    lasts.reserve(t.size());
    for (const auto& kv : t) lasts.push_back(kv.second.last);
    auto mid = lasts.begin() + static_cast<std::ptrdiff_t>(lasts.size() / 2);
    std::nth_element(lasts.begin(), mid, lasts.end());
    const auto cutoff = *mid;
    std::erase_if(t, [&](const auto& kv) { return kv.second.last <= cutoff; });
  }
}

}  // namespace tessera::net
