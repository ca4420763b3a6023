#pragma once
// The exchange's sessions, on the matching thread: which account each connection is logged on
// as, its failed logons and whether it subscribed to market data; the session-level requests
// (logon, heartbeat, logout, unsubscribe) and error replies, which are logged with the account.
// A logon is accepted only for a configured account whose key the LogonGate verified off this
// thread; the third failure on one connection drops it.
#include "core/net/ClientMessage.h"
#include "core/net/ExchangeAccounts.h"
#include "core/net/Outbox.h"

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tessera::net {

struct ExchangeSession {
  AccountId account = 0;  // 0 until logged on
  int failedLogons = 0;
  bool subscribed = false;
  std::string address;  // the peer's "ip:port", for the log
};

class ExchangeSessions {
 public:
  explicit ExchangeSessions(ExchangeAccounts& accounts);

  void opened(SessionId s, std::string address);
  bool loggedOn(SessionId s) const;
  void closed(SessionId s);
  ExchangeSession* find(SessionId s);
  // The account session `s` is logged on as, if it is.
  ExchangeAccount* accountOf(SessionId s);

  // A logon request: the account it logged on as, or null after the refusal was written (and
  // logged; the session is marked to be dropped after its third failure). The caller writes
  // the logon_ack.
  const ExchangeAccount* logon(SessionId s, ExchangeSession& session, const Logon& logon,
                               std::optional<std::uint64_t> req, Outbox& out);
  // Heartbeat, logout (the session is dropped after the reply) and unsubscribe.
  void heartbeat(SessionId s, std::optional<std::uint64_t> req, Outbox& out);
  void logout(SessionId s, std::optional<std::uint64_t> req, Outbox& out);
  void unsubscribe(SessionId s, ExchangeSession& session, std::optional<std::uint64_t> req, Outbox& out);

  // An error reply to session `s`, also written to the log (rate-limited) with its account.
  void replyError(SessionId s, Outbox& out, std::string_view code, std::string_view reason, std::string_view type,
                  std::optional<std::uint64_t> req);

  // The sessions subscribed to market data.
  void appendSubscribers(std::vector<SessionId>& out) const;

 private:
  ExchangeAccounts& accounts_;
  std::unordered_map<SessionId, ExchangeSession> sessions_;
};

}  // namespace tessera::net
