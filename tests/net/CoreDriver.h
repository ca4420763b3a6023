#pragma once
// Drives one ExchangeCore without sockets the way the server does: a batch per request, the
// journal's commit, then the replies (per session, market data to subscribers). For the tests
// of the coordinator (test_exchange_core, test_exchange_call_mode, test_child_snapshot,
// test_exchange_settlement).
#include "NetTestSupport.h"
#include "core/net/ExchangeCore.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::net::testing {

using nlohmann::json;

inline std::unique_ptr<Journal> openJournal(const std::string& path) {
  auto r = Journal::open(path, false);
  if (auto* e = std::get_if<std::string>(&r)) qFatal("%s", e->c_str());
  return std::move(std::get<std::unique_ptr<Journal>>(r));
}

// Drives one core the way the server does: a batch per call, commit, then the replies. A test
// names a session by its id, or by its account (the first use logs it on); restart() destroys
// the core and rebuilds it from the same journal, as a restarted server does.
class Driver {
 public:
  explicit Driver(ExchangeConfig config = marketConfig(),
                  std::string path = ":memory:", const ExchangeCore::SnapshotStart* from = nullptr)
      : config_(std::move(config)), path_(std::move(path)) {
    start(from);
  }

  // A new core over the same journal file (replayed from its start); sessions start afresh.
  void restart() { start(nullptr); }

  SessionId connect(const std::string& account) {
    const SessionId s = next_++;
    core_->sessionOpened(s);
    auto r = send(s, "{\"type\":\"logon\",\"account\":\"" + account + "\",\"key\":\"" + account + "-key\"}");
    if (r.empty() || r[0]["type"] != "logon_ack") qFatal("logon failed");
    sessions_[account] = s;
    return s;
  }
  // The account's session, logged on at its first use.
  SessionId session(const std::string& account) {
    auto it = sessions_.find(account);
    return it != sessions_.end() ? it->second : connect(account);
  }
  // One batch of the core's own doing (a call, a tick), delivered like a request's.
  void batch(const std::function<void(ExchangeCore&, Outbox&)>& f) {
    Outbox out;
    f(*core_, out);
    deliver(out);
  }
  // The exchange clock moves to `now` (as the server's wall clock or a feeder moves it).
  void clock(Hour now) {
    Outbox out;
    core_->inject(ClockAdvance{now}, "", out);
    deliver(out);
  }
  // The request's replies, after the lines other batches left for the session.
  std::vector<json> send(SessionId s, const std::string& line) {
    Outbox out;
    auto parsed = parseClientMessage(line);
    if (auto* m = std::get_if<ClientMessage>(&parsed)) {
      checkLogonKey(config_, *m);
      core_->handle(s, *m, out);
    } else
      core_->handleParseError(s, std::get<ParseError>(parsed), out);
    deliver(out);
    return take(s);
  }
  std::vector<json> send(const std::string& account, const std::string& line) { return send(session(account), line); }
  // Lines that arrived for `s` as a side effect of others' requests.
  std::vector<json> drain(SessionId s) { return take(s); }
  // Every line the account's session received so far.
  std::vector<json> seen(const std::string& account) {
    const SessionId s = session(account);
    take(s);
    return seen_[s];
  }

  static json find(const std::vector<json>& lines, const std::string& type, const std::string& state = "") {
    for (const json& j : lines) {
      if (j["type"] == type && (state.empty() || j.value("state", "") == state)) return j;
    }
    return json();
  }
  static std::vector<json> all(const std::vector<json>& lines, const std::string& type) {
    std::vector<json> out;
    for (const json& j : lines)
      if (j["type"] == type) out.push_back(j);
    return out;
  }
  // The reply is the last balance line (balances pushed by earlier batches come before it).
  json balance(SessionId s) {
    const auto lines = all(send(s, "{\"type\":\"balance\"}"), "balance");
    return lines.empty() ? json() : lines.back();
  }
  json balance(const std::string& account) { return balance(session(account)); }
  json positions(const std::string& account) {
    return find(send(account, "{\"type\":\"positions\"}"), "positions")["contracts"];
  }
  AccountId id(const std::string& account) { return *core_->accounts().find(account); }
  ExchangeCore& core() { return *core_; }
  Journal& journal() { return *journal_; }
  const std::vector<SessionId>& lastDisconnect() const { return lastDisconnect_; }

 private:
  void start(const ExchangeCore::SnapshotStart* from) {
    core_.reset();
    journal_.reset();
    journal_ = openJournal(path_);
    core_ = std::make_unique<ExchangeCore>(config_, *journal_, from);
    sessions_.clear();
    pending_.clear();
  }
  void deliver(Outbox& out) {
    core_->finishBatch(out);
    journal_->commit();
    lastDisconnect_ = out.disconnect;
    for (auto& [id, bytes] : out.toSession) pending_[id] += bytes;
    for (SessionId sub : out.subscribers) pending_[sub] += out.marketData;
  }
  std::vector<json> take(SessionId s) {
    std::vector<json> lines;
    std::string& mine = pending_[s];
    std::size_t pos = 0, nl;
    while ((nl = mine.find('\n', pos)) != std::string::npos) {
      lines.push_back(json::parse(mine.substr(pos, nl - pos)));
      seen_[s].push_back(lines.back());
      pos = nl + 1;
    }
    mine.clear();
    return lines;
  }

  ExchangeConfig config_;
  std::string path_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<ExchangeCore> core_;
  SessionId next_ = 1;
  std::map<std::string, SessionId> sessions_;
  std::unordered_map<SessionId, std::string> pending_;
  std::map<SessionId, std::vector<json>> seen_;
  std::vector<SessionId> lastDisconnect_;
};

}  // namespace tessera::net::testing
