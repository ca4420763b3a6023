// The logon throttle's arithmetic on a clock the test moves: doubling per failure up to the
// cap, per account-and-address and per address, account-wide only beyond the free failures and
// never for the owner's known addresses, cleared by a success, forgotten after a while.
// (Over a real socket: test_exchange_server's guessingIsThrottled.)
#include "core/net/LogonThrottle.h"

#include <QtTest>

using namespace tessera::net;
using namespace std::chrono_literals;

class TestLogonThrottle : public QObject {
  Q_OBJECT
 private slots:
  void delaysDoubleUpToTheCap() {
    LogonThrottle t;
    auto now = LogonThrottle::Clock::now();
    QCOMPARE(t.wait("alice", "10.0.0.1", now).count(), 0);
    std::int64_t expected = 500;
    for (int i = 0; i < 10; ++i) {
      t.failed("alice", "10.0.0.1", now);
      QCOMPARE(t.wait("alice", "10.0.0.1", now).count(), std::min<std::int64_t>(expected, 30'000));
      QCOMPARE(t.wait("bob", "10.0.0.1", now).count(), std::min<std::int64_t>(expected, 30'000));  // by address
      QCOMPARE(t.wait("bob", "10.0.0.9", now).count(), 0);                                         // neither
      if (i < 8) QCOMPARE(t.wait("alice", "10.0.0.9", now).count(), 0);  // account-wide: free yet
      now += std::chrono::milliseconds(std::min<std::int64_t>(expected, 30'000));
      QCOMPARE(t.wait("alice", "10.0.0.1", now).count(), 0);
      expected *= 2;
    }
  }
  void successClearsAndTimeForgets() {
    LogonThrottle t;
    auto now = LogonThrottle::Clock::now();
    t.failed("alice", "a", now);
    t.failed("alice", "a", now + 1s);
    t.succeeded("alice", "a");
    QCOMPARE(t.wait("alice", "a", now + 1s).count(), 0);
    t.failed("alice", "a", now + 2s);
    QCOMPARE(t.wait("alice", "a", now + 2s).count(), 500);  // started over
    t.failed("alice", "a", now + 3s);
    t.failed("alice", "a", now + 3s + 16min);  // long after: the count starts over
    QCOMPARE(t.wait("alice", "a", now + 3s + 16min).count(), 500);
  }
  // An attacker who knows the account name fails its logon from 10.6.6.6 again and again; the
  // owner, who logged on from 10.0.0.1 before, is never made to wait, and nor is the owner at
  // a new address until the failures pass the free count. Fails with the account-wide wait
  // applied to known addresses (alice waits 30 s), or with the per-account table keyed by the
  // account alone as it was (alice waits from the first failure).
  void aGuesserCannotLockTheOwnerOut() {
    LogonThrottle t;
    auto now = LogonThrottle::Clock::now();
    t.succeeded("alice", "10.0.0.1");
    for (int i = 0; i < 8; ++i) {
      t.failed("alice", "10.6.6.6", now);
      QVERIFY(t.wait("alice", "10.6.6.6", now).count() > 0);
      QCOMPARE(t.wait("alice", "10.0.0.1", now).count(), 0);
      QCOMPARE(t.wait("alice", "10.0.0.2", now).count(), 0);
      now += 31s;
    }
    for (int i = 0; i < 40; ++i) {
      t.failed("alice", "10.6.6." + std::to_string(i), now);  // spread over many addresses
      now += 1ms;
    }
    QCOMPARE(t.wait("alice", "10.0.0.1", now).count(), 0);       // the owner's known address
    QVERIFY(t.wait("alice", "10.0.0.2", now).count() > 29'000);  // an unknown one: account-wide
    QCOMPARE(t.wait("bob", "10.0.0.2", now).count(), 0);
  }
  void unknownAccountsCountOnlyByAddress() {
    LogonThrottle t;
    const auto now = LogonThrottle::Clock::now();
    t.failed("", "a", now);
    QCOMPARE(t.wait("", "a", now).count(), 500);
    QCOMPARE(t.wait("", "b", now).count(), 0);
  }
  void tablesStayBounded() {
    ThrottlePolicy p;
    p.maxEntries = 100;
    LogonThrottle t(p);
    auto now = LogonThrottle::Clock::now();
    for (int i = 0; i < 1000; ++i) t.failed("", "addr-" + std::to_string(i), now + std::chrono::milliseconds(i));
    // The newest are still throttled (the oldest half was dropped whenever the table filled).
    QVERIFY(t.wait("", "addr-999", now + 999ms).count() > 0);
  }
};

QTEST_GUILESS_MAIN(TestLogonThrottle)
#include "test_logon_throttle.moc"
