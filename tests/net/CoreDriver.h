#pragma once
// Drives one ExchangeCore without sockets the way the server does: a batch per request, the
// journal's commit, then the replies (per session, market data to subscribers). For the tests
// of the coordinator (test_exchange_core, test_exchange_call_mode, test_child_snapshot).
#include "NetTestSupport.h"
#include "core/net/ExchangeCore.h"

#include <functional>
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

// Drives one core the way the server does: a batch per call, commit, then the replies.
class Driver {
 public:
  explicit Driver(ExchangeConfig config = marketConfig(),
                  std::string path = ":memory:", const ExchangeCore::SnapshotStart* from = nullptr)
      : config_(config), journal_(openJournal(path)), core_(std::make_unique<ExchangeCore>(config, *journal_, from)) {}

  SessionId connect(const std::string& account) {
    const SessionId s = next_++;
    core_->sessionOpened(s);
    auto r = send(s, "{\"type\":\"logon\",\"account\":\"" + account + "\",\"key\":\"" + account + "-key\"}");
    if (r.empty() || r[0]["type"] != "logon_ack") qFatal("logon failed");
    return s;
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
  std::vector<json> send(SessionId s, const std::string& line) {
    Outbox out;
    auto parsed = parseClientMessage(line);
    if (auto* m = std::get_if<ClientMessage>(&parsed)) {
      checkLogonKey(config_, *m);
      core_->handle(s, *m, out);
    } else
      core_->handleParseError(s, std::get<ParseError>(parsed), out);
    deliver(out);
    std::vector<json> lines;
    std::string& mine = pending_[s];
    std::size_t pos = 0, nl;
    while ((nl = mine.find('\n', pos)) != std::string::npos) {
      lines.push_back(json::parse(mine.substr(pos, nl - pos)));
      pos = nl + 1;
    }
    mine.clear();
    return lines;
  }
  // Lines that arrived for `s` as a side effect of others' requests.
  std::vector<json> drain(SessionId s) {
    std::vector<json> lines = send(s, "{\"type\":\"heartbeat\"}");
    lines.pop_back();  // the heartbeat's own reply
    return lines;
  }
  json find(const std::vector<json>& lines, const std::string& type, const std::string& state = "") {
    for (const json& j : lines) {
      if (j["type"] == type && (state.empty() || j.value("state", "") == state)) return j;
    }
    return json();
  }
  json balance(SessionId s) { return find(send(s, "{\"type\":\"balance\"}"), "balance"); }
  ExchangeCore& core() { return *core_; }
  Journal& journal() { return *journal_; }
  const std::vector<SessionId>& lastDisconnect() const { return lastDisconnect_; }

 private:
  void deliver(Outbox& out) {
    core_->finishBatch(out);
    journal_->commit();
    lastDisconnect_ = out.disconnect;
    for (auto& [id, bytes] : out.toSession) pending_[id] += bytes;
    for (SessionId sub : out.subscribers) pending_[sub] += out.marketData;
  }
  ExchangeConfig config_;
  std::unique_ptr<Journal> journal_;
  std::unique_ptr<ExchangeCore> core_;
  SessionId next_ = 1;
  std::unordered_map<SessionId, std::string> pending_;
  std::vector<SessionId> lastDisconnect_;
};

}  // namespace tessera::net::testing
