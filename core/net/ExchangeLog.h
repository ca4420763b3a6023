#pragma once
// tessera-exchange's log (spdlog): text lines to stderr and, optionally, a rotating file. The
// server logs its start and stop, journal checkpoints, connections accepted and closed with the
// reason, and limits hit. Events that a client can cause at will (connections, limits, failed
// logons, rejects) are rate-limited per kind: at most one line per kind per second, the next
// line that is written saying how many of that kind were left out before it. So a flood
// costs a few lines a second and, for the events left out, a mutex and a clock read: no
// allocation, no formatting.
//
// Until setupExchangeLog() is called (tests, the terminal's embedded exchange) the log goes to
// stderr at level warn, so only problems show.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace spdlog {
class logger;
}

namespace tessera::net {

struct LogOptions {
  std::string file;                             // also write to this file, rotated by size; empty: stderr only
  std::string level = "info";                   // trace, debug, info, warn, error, critical, off
  std::size_t maxFileBytes = 64 * 1024 * 1024;  // rotate when the file reaches this size
  std::size_t maxFiles = 5;                     // rotated files kept (file.1.log ...)
};

// Sets up the exchange's log. Returns an error for a person (unknown level, file that cannot be
// opened), or an empty string.
std::string setupExchangeLog(const LogOptions& options);
// True if `level` is one of LogOptions::level's names.
bool isLogLevel(std::string_view level);
// The exchange's logger (held while in use: setExchangeLogger may replace it meanwhile).
std::shared_ptr<spdlog::logger> exchangeLog();
// Replaces the logger (tests read the log back from a file sink). nullptr: the default again.
void setExchangeLogger(std::shared_ptr<spdlog::logger> logger);

// Kinds of rate-limited events. One line per kind per second at most.
enum class LogKind {
  Accepted,       // a connection accepted
  PeerClosed,     // the peer closed (or reset) its connection
  LoggedOff,      // closed by the exchange after a logout or failed logons
  IdleTimeout,    // nothing received for idle_timeout_seconds
  LogonTimeout,   // not logged on within logon_timeout_seconds
  LineTimeout,    // a partial line not completed within line_timeout_seconds
  Oversized,      // a line longer than max_message_bytes
  SlowReader,     // outbound bytes over max_pending_outbound_bytes, or no write progress
  SessionLimit,   // refused: max_sessions reached
  AddressLimit,   // refused: max_sessions_per_address reached for that address
  AcceptBackoff,  // accept failed for want of descriptors; retrying after a pause
  RateLimited,    // requests over max_messages_per_second
  TlsFailed,      // a TLS handshake failed (plaintext to a TLS port, a client refusing our cert)
  Backpressure,   // a session's requests held until its replies drain (outbound_budget_bytes)
  Logon,
  FailedLogon,
  Reject,
  Count
};

// Rate limiting: returns -1 when this event is to be left out, or else how many events of the
// kind were left out since the last one written (to be said in the line).
long long logAdmit(LogKind kind);
// What a line says about `n` events left out before it: "" for none.
std::string logLeftOut(long long n);
// Forgets what the rate limiter has seen (tests: each starts with every kind admitted).
void resetLogLimits();

// For ExchangeCore: a logon, a failed logon, an order or request rejected (all rate-limited).
void logLogon(std::string_view account, std::string_view address);
void logFailedLogon(std::string_view account, std::string_view address, std::string_view reason);
void logReject(std::string_view account, std::string_view code);

}  // namespace tessera::net
