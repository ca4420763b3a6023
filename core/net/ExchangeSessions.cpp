#include "core/net/ExchangeSessions.h"

#include "core/net/ExchangeLog.h"
#include "core/net/ServerMessage.h"

#include <algorithm>

namespace tessera::net {

ExchangeSessions::ExchangeSessions(ExchangeAccounts& accounts) : accounts_(accounts) {}

void ExchangeSessions::opened(SessionId s, std::string address) {
  ExchangeSession session;
  session.address = std::move(address);
  sessions_[s] = std::move(session);
}

bool ExchangeSessions::loggedOn(SessionId s) const {
  auto it = sessions_.find(s);
  return it != sessions_.end() && it->second.account != 0;
}

void ExchangeSessions::closed(SessionId s) {
  auto it = sessions_.find(s);
  if (it == sessions_.end()) return;
  if (it->second.account != 0) {
    auto& list = accounts_.at(it->second.account).sessions;
    list.erase(std::remove(list.begin(), list.end(), s), list.end());
  }
  sessions_.erase(it);
}

ExchangeSession* ExchangeSessions::find(SessionId s) {
  auto it = sessions_.find(s);
  return it == sessions_.end() ? nullptr : &it->second;
}

ExchangeAccount* ExchangeSessions::accountOf(SessionId s) {
  const ExchangeSession* session = find(s);
  if (!session || session->account == 0) return nullptr;
  return &accounts_.at(session->account);
}

const ExchangeAccount* ExchangeSessions::logon(SessionId s, ExchangeSession& session, const Logon& logon,
                                               std::optional<std::uint64_t> req, Outbox& out) {
  std::string& o = out.toSession[s];
  if (session.account != 0) {
    appendError(o, "already_logged_on", "this session is already logged on", "logon", req);
    return nullptr;
  }
  const ExchangeAccount* a = accounts_.findNamed(logon.account);
  if (logon.check == LogonCheck::Throttled) {
    appendThrottled(o, logon.retryAfterMs, req);
    logFailedLogon(logon.account, session.address, "throttled after failed logons");
    return nullptr;
  }
  // The key was checked off this thread (LogonGate): an Argon2id check takes milliseconds.
  if (!a || !a->configured || logon.check != LogonCheck::Verified) {
    appendError(o, "auth_failed", "unknown account or wrong key", "logon", req);
    logFailedLogon(logon.account, session.address,
                   !a               ? "unknown account"
                   : !a->configured ? "account cannot log on"
                                    : "wrong key");
    if (++session.failedLogons >= 3) out.disconnect.push_back(s);
    return nullptr;
  }
  logLogon(a->name, session.address);
  session.account = a->id;
  accounts_.at(a->id).sessions.push_back(s);
  return a;
}

void ExchangeSessions::heartbeat(SessionId s, std::optional<std::uint64_t> req, Outbox& out) {
  std::string& o = out.toSession[s];
  o += "{\"type\":\"heartbeat\"";
  appendReq(o, req);
  o += "}\n";
}

void ExchangeSessions::logout(SessionId s, std::optional<std::uint64_t> req, Outbox& out) {
  std::string& o = out.toSession[s];
  o += "{\"type\":\"logout_ack\"";
  appendReq(o, req);
  o += "}\n";
  out.disconnect.push_back(s);
}

void ExchangeSessions::unsubscribe(SessionId s, ExchangeSession& session, std::optional<std::uint64_t> req,
                                   Outbox& out) {
  session.subscribed = false;
  std::string& o = out.toSession[s];
  o += "{\"type\":\"unsubscribe_ack\"";
  appendReq(o, req);
  o += "}\n";
}

void ExchangeSessions::replyError(SessionId s, Outbox& out, std::string_view code, std::string_view reason,
                                  std::string_view type, std::optional<std::uint64_t> req) {
  const ExchangeAccount* a = accountOf(s);
  logReject(a ? std::string_view(a->name) : std::string_view("(not logged on)"), code);
  appendError(out.toSession[s], code, reason, type, req);
}

void ExchangeSessions::appendSubscribers(std::vector<SessionId>& out) const {
  for (const auto& [id, s] : sessions_) {
    if (s.subscribed) out.push_back(id);
  }
}

}  // namespace tessera::net
