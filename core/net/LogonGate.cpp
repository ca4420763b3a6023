#include "core/net/LogonGate.h"

#include "core/net/ApiKey.h"

#include <pthread.h>

namespace tessera::net {

bool logonKeyMatches(const std::vector<AccountConfig>& accounts, std::string_view account, std::string_view key) {
  for (const AccountConfig& a : accounts) {
    if (a.name == account) return verifyApiKey(a.keyHash, key);
  }
  return false;
}

LogonGate::LogonGate(const std::vector<AccountConfig>& accounts, ThrottlePolicy policy) : throttle_(policy) {
  for (const AccountConfig& a : accounts) {
    hashes_[a.name] = a.keyHash;
    if (decoy_.empty() && isArgon2idHash(a.keyHash)) decoy_ = a.keyHash;
  }
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "tx-logon");
    run();
  });
}

LogonGate::~LogonGate() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  ready_.notify_one();
  thread_.join();
}

void LogonGate::check(std::string account, std::string key, std::string address, Done done) {
  {
    std::lock_guard lock(mutex_);
    int& queued = queuedPerAddress_[address];
    if (jobs_.size() < kMaxQueued && queued < kMaxQueuedPerAddress) {
      ++queued;
      jobs_.push_back(Job{std::move(account), std::move(key), std::move(address), std::move(done)});
      ready_.notify_one();
      return;
    }
    if (queued == 0) queuedPerAddress_.erase(address);
  }
  done(LogonVerdict{LogonCheck::Throttled, kBusyRetry});
}

void LogonGate::run() {
  for (;;) {
    Job job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (stopping_) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      if (auto it = queuedPerAddress_.find(job.address); it != queuedPerAddress_.end() && --it->second <= 0) {
        queuedPerAddress_.erase(it);
      }
    }
    const LogonVerdict v = decide(job);
    job.done(v);
  }
}

// The throttle is consulted when a check is about to run, not when it is queued: a burst of
// parallel guesses from one address or at one account gets one check, the rest wait.
LogonVerdict LogonGate::decide(const Job& job) {
  auto it = hashes_.find(job.account);
  const bool known = it != hashes_.end();
  // Unknown names do not get throttle entries of their own (they would let anyone grow the
  // table); their address does.
  const std::string_view account = known ? std::string_view(job.account) : std::string_view();
  const auto now = LogonThrottle::Clock::now();
  if (const auto wait = throttle_.wait(account, job.address, now); wait.count() > 0) {
    return LogonVerdict{LogonCheck::Throttled, wait};
  }
  bool ok = false;
  if (known && isArgon2idHash(it->second)) {
    ok = verifyApiKey(it->second, job.key);
  } else if (!decoy_.empty()) {
    // As long as a wrong key for an account with a key: an unknown name or an account
    // without a key (house accounts) is not told apart by the time the answer takes.
    (void)verifyApiKey(decoy_, job.key);
  }
  if (ok) {
    throttle_.succeeded(account, job.address);
    return LogonVerdict{LogonCheck::Verified, {}};
  }
  throttle_.failed(account, job.address, LogonThrottle::Clock::now());
  return LogonVerdict{LogonCheck::Refused, {}};
}

}  // namespace tessera::net
