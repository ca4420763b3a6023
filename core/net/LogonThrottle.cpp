#include "core/net/LogonThrottle.h"

#include <algorithm>
#include <vector>

namespace tessera::net {

std::chrono::milliseconds LogonThrottle::left(const Table& t, std::string_view key,
                                              Clock::time_point now) const {
  if (key.empty()) return std::chrono::milliseconds(0);
  auto it = t.find(std::string(key));
  if (it == t.end() || it->second.until <= now) return std::chrono::milliseconds(0);
  // Rounded up, so that retrying after the time given is never too early.
  return std::chrono::ceil<std::chrono::milliseconds>(it->second.until - now);
}

std::chrono::milliseconds LogonThrottle::wait(std::string_view account, std::string_view address,
                                              Clock::time_point now) const {
  return std::max(left(accounts_, account, now), left(addresses_, address, now));
}

void LogonThrottle::fail(Table& t, std::string_view key, Clock::time_point now) {
  if (key.empty()) return;
  if (t.size() >= policy_.maxEntries) prune(t, now);
  Entry& e = t[std::string(key)];
  if (e.failures > 0 && now - e.last > policy_.forgetAfter) e.failures = 0;
  e.failures = std::min(e.failures + 1, 30);  // 2^30 half-seconds is far beyond maxDelay
  const auto delay = std::min<std::chrono::milliseconds>(policy_.firstDelay * (1LL << (e.failures - 1)),
                                                         policy_.maxDelay);
  e.until = now + delay;
  e.last = now;
}

void LogonThrottle::failed(std::string_view account, std::string_view address, Clock::time_point now) {
  fail(accounts_, account, now);
  fail(addresses_, address, now);
}

void LogonThrottle::succeeded(std::string_view account, std::string_view address) {
  accounts_.erase(std::string(account));
  addresses_.erase(std::string(address));
}

void LogonThrottle::prune(Table& t, Clock::time_point now) {
  std::erase_if(t, [&](const auto& kv) {
    return kv.second.until <= now && now - kv.second.last > policy_.forgetAfter;
  });
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
