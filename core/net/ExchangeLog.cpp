#include "core/net/ExchangeLog.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <array>
#include <chrono>
#include <mutex>

namespace tessera::net {
namespace {

constexpr const char* kPattern = "%Y-%m-%d %H:%M:%S.%e %l %v";

std::mutex& loggerMutex() {
  static std::mutex m;
  return m;
}

std::shared_ptr<spdlog::logger> makeDefault() {
  auto l = std::make_shared<spdlog::logger>("tessera-exchange", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  l->set_pattern(kPattern);
  l->set_level(spdlog::level::warn);
  return l;
}

std::shared_ptr<spdlog::logger>& loggerSlot() {
  static std::shared_ptr<spdlog::logger> l = makeDefault();
  return l;
}

std::shared_ptr<spdlog::logger> current() {
  std::lock_guard lock(loggerMutex());
  return loggerSlot();
}

struct Limiter {
  std::mutex mutex;
  std::chrono::steady_clock::time_point last{};
  bool any = false;
  long long suppressed = 0;
};

std::array<Limiter, static_cast<std::size_t>(LogKind::Count)>& limiters() {
  static std::array<Limiter, static_cast<std::size_t>(LogKind::Count)> l;
  return l;
}

// A client's text as it may go into a line: control characters (a newline would forge a line)
// become '?', and it is cut at 64 bytes.
std::string printable(std::string_view s) {
  std::string out(s.substr(0, 64));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (s.size() > 64) out += "...";
  return out;
}

}  // namespace

bool isLogLevel(std::string_view level) {
  for (const char* n : {"trace", "debug", "info", "warn", "error", "critical", "off"}) {
    if (level == n) return true;
  }
  return false;
}

std::string setupExchangeLog(const LogOptions& o) {
  if (!isLogLevel(o.level)) {
    return "unknown log level '" + o.level + "' (trace, debug, info, warn, error, critical, off)";
  }
  std::vector<spdlog::sink_ptr> sinks{std::make_shared<spdlog::sinks::stderr_sink_mt>()};
  if (!o.file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(o.file, o.maxFileBytes, o.maxFiles));
    } catch (const spdlog::spdlog_ex& e) {
      return "cannot open log file '" + o.file + "': " + e.what();
    }
  }
  auto l = std::make_shared<spdlog::logger>("tessera-exchange", sinks.begin(), sinks.end());
  l->set_pattern(kPattern);
  l->set_level(spdlog::level::from_str(o.level));
  // Lines are few (the floods are rate-limited), so each goes out at once: a crash loses none.
  l->flush_on(spdlog::level::trace);
  setExchangeLogger(std::move(l));
  return {};
}

std::shared_ptr<spdlog::logger> exchangeLog() { return current(); }

void setExchangeLogger(std::shared_ptr<spdlog::logger> logger) {
  std::lock_guard lock(loggerMutex());
  loggerSlot() = logger ? std::move(logger) : makeDefault();
}

std::string logLeftOut(long long n) {
  return n > 0 ? " (" + std::to_string(n) + " more like it left out before this one)" : "";
}

void resetLogLimits() {
  for (Limiter& l : limiters()) {
    std::lock_guard lock(l.mutex);
    l.any = false;
    l.suppressed = 0;
  }
}

long long logAdmit(LogKind kind) {
  Limiter& l = limiters()[static_cast<std::size_t>(kind)];
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard lock(l.mutex);
  if (l.any && now - l.last < std::chrono::seconds(1)) {
    ++l.suppressed;
    return -1;
  }
  l.any = true;
  l.last = now;
  return std::exchange(l.suppressed, 0);
}

void logLogon(std::string_view account, std::string_view address) {
  auto l = current();
  if (!l->should_log(spdlog::level::info)) return;
  const long long n = logAdmit(LogKind::Logon);
  if (n < 0) return;
  l->info("logon: account {} from {}{}", printable(account), address, logLeftOut(n));
}

void logFailedLogon(std::string_view account, std::string_view address, std::string_view reason) {
  auto l = current();
  if (!l->should_log(spdlog::level::warn)) return;
  const long long n = logAdmit(LogKind::FailedLogon);
  if (n < 0) return;
  l->warn("failed logon: account '{}' from {}: {}{}", printable(account), address, reason, logLeftOut(n));
}

void logReject(std::string_view account, std::string_view code) {
  auto l = current();
  if (!l->should_log(spdlog::level::info)) return;
  const long long n = logAdmit(LogKind::Reject);
  if (n < 0) return;
  l->info("rejected: account {}: {}{}", printable(account), code, logLeftOut(n));
}

}  // namespace tessera::net
