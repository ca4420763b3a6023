// ExchangeSessions on its own: who may log on, what a refusal says, the third failure on one
// connection drops it, a logged-on session receives its account's lines until it closes.
// Mutations seen failing: the drop after the fourth failure instead of the third
// (theThirdFailedLogonDropsTheConnection); closed() leaving the session in its account's list
// (aSessionReceivesItsAccountsLinesUntilItCloses).
#include "ExchangeParts.h"

#include <nlohmann/json.hpp>

#include <QtTest>

#include <algorithm>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

namespace {

Logon logon(const std::string& account, LogonCheck check) { return Logon{account, "", check, 250}; }

nlohmann::json lastLine(const Outbox& out, SessionId s) {
  const std::string& bytes = out.toSession.at(s);
  const std::size_t start = bytes.rfind('\n', bytes.size() - 2);
  return nlohmann::json::parse(bytes.substr(start == std::string::npos ? 0 : start + 1));
}

}  // namespace

class TestExchangeSessions : public QObject {
  Q_OBJECT
 private slots:
  void onlyAConfiguredAccountWithAVerifiedKeyLogsOn() {
    ExchangeParts x;
    const AccountId alice = x.fund("alice", 0);
    x.accounts.named("feed-7");  // known from a feeder only: cannot log on
    x.sessions.opened(1, "10.0.0.1:5000");
    ExchangeSession& s = *x.sessions.find(1);
    Outbox out;
    for (const Logon& l : {logon("nobody", LogonCheck::Verified), logon("feed-7", LogonCheck::Verified),
                           logon("alice", LogonCheck::Refused)}) {
      QVERIFY(!x.sessions.logon(1, s, l, 9, out));
      QCOMPARE(lastLine(out, 1).at("code").get<std::string>(), std::string("auth_failed"));
      QCOMPARE(lastLine(out, 1).at("req").get<int>(), 9);
      QVERIFY(!x.sessions.loggedOn(1));
    }
    out.disconnect.clear();
    s.failedLogons = 0;
    const ExchangeAccount* a = x.sessions.logon(1, s, logon("alice", LogonCheck::Verified), 10, out);
    QVERIFY(a && a->id == alice);
    QVERIFY(x.sessions.loggedOn(1));
    QCOMPARE(x.sessions.accountOf(1)->id, alice);
    QVERIFY(!x.sessions.logon(1, s, logon("alice", LogonCheck::Verified), 11, out));
    QCOMPARE(lastLine(out, 1).at("code").get<std::string>(), std::string("already_logged_on"));
  }

  void theThirdFailedLogonDropsTheConnection() {
    ExchangeParts x;
    x.fund("alice", 0);
    x.sessions.opened(2, "10.0.0.2:5000");
    ExchangeSession& s = *x.sessions.find(2);
    Outbox out;
    // Throttled answers say when to retry and are no failures of their own.
    for (int i = 0; i < 3; ++i)
      QVERIFY(!x.sessions.logon(2, s, logon("alice", LogonCheck::Throttled), std::nullopt, out));
    QCOMPARE(lastLine(out, 2).at("code").get<std::string>(), std::string("auth_throttled"));
    QCOMPARE(lastLine(out, 2).at("retry_after_ms").get<int>(), 250);
    QVERIFY(out.disconnect.empty());
    QVERIFY(!x.sessions.logon(2, s, logon("alice", LogonCheck::Refused), std::nullopt, out));
    QVERIFY(!x.sessions.logon(2, s, logon("alice", LogonCheck::Refused), std::nullopt, out));
    QVERIFY(out.disconnect.empty());
    QVERIFY(!x.sessions.logon(2, s, logon("alice", LogonCheck::Refused), std::nullopt, out));
    QCOMPARE(out.disconnect, std::vector<SessionId>{2});
  }

  void aSessionReceivesItsAccountsLinesUntilItCloses() {
    ExchangeParts x;
    const AccountId alice = x.fund("alice", 0);
    Outbox out;
    for (SessionId id : {1, 2}) {
      x.sessions.opened(id, "");
      QVERIFY(x.sessions.logon(id, *x.sessions.find(id), logon("alice", LogonCheck::Verified), std::nullopt, out));
    }
    out.toSession.clear();
    x.accounts.toAccount(alice, out, "{\"type\":\"hello\"}\n");
    QCOMPARE(out.toSession.size(), std::size_t{2});
    x.sessions.closed(1);
    QVERIFY(!x.sessions.find(1));
    out.toSession.clear();
    x.accounts.toAccount(alice, out, "{\"type\":\"hello\"}\n");
    QCOMPARE(out.toSession.size(), std::size_t{1});
    QVERIFY(out.toSession.count(2));
  }

  void subscribersAndSessionReplies() {
    ExchangeParts x;
    x.fund("alice", 0);
    Outbox out;
    for (SessionId id : {1, 2, 3}) x.sessions.opened(id, "");
    x.sessions.find(1)->subscribed = true;
    x.sessions.find(3)->subscribed = true;
    x.sessions.unsubscribe(3, *x.sessions.find(3), 4, out);
    QCOMPARE(lastLine(out, 3), nlohmann::json::parse(R"({"type":"unsubscribe_ack","req":4})"));
    x.sessions.appendSubscribers(out.subscribers);
    QCOMPARE(out.subscribers, std::vector<SessionId>{1});
    x.sessions.heartbeat(2, std::nullopt, out);
    QCOMPARE(lastLine(out, 2), nlohmann::json::parse(R"({"type":"heartbeat"})"));
    x.sessions.logout(2, 5, out);
    QCOMPARE(lastLine(out, 2), nlohmann::json::parse(R"({"type":"logout_ack","req":5})"));
    QCOMPARE(out.disconnect, std::vector<SessionId>{2});
    x.sessions.replyError(1, out, "not_logged_on", "log on first", "orders", 6);
    QCOMPARE(lastLine(out, 1),
             nlohmann::json::parse(
                 R"({"type":"error","code":"not_logged_on","reason":"log on first","req_type":"orders","req":6})"));
  }
};

QTEST_GUILESS_MAIN(TestExchangeSessions)
#include "test_exchange_sessions.moc"
