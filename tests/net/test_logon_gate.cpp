// The logon gate on its own thread: verdicts for right and wrong keys and unknown accounts, the
// throttle consulted when a check is about to run (a burst of guesses costs one check), and a
// bounded queue (a flood is refused at once instead of queueing unbounded work).
#include "core/net/LogonGate.h"

#include "core/net/ApiKey.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

using namespace tessera::net;
using namespace std::chrono_literals;

namespace {

AccountConfig account(const std::string& name, KeyHashCost cost) {
  AccountConfig a;
  a.name = name;
  a.keyHash = hashApiKey(name + "-key", cost);
  return a;
}

// Collects verdicts from the gate's thread.
struct Verdicts {
  std::mutex mutex;
  std::vector<LogonVerdict> got;
  LogonGate::Done sink() {
    return [this](LogonVerdict v) {
      std::lock_guard lock(mutex);
      got.push_back(v);
    };
  }
  std::size_t size() {
    std::lock_guard lock(mutex);
    return got.size();
  }
  bool waitFor(std::size_t n, std::chrono::milliseconds timeout = 10s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (size() < n && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    return size() >= n;
  }
};

}  // namespace

class TestLogonGate : public QObject {
  Q_OBJECT
 private slots:
  void verdicts() {
    LogonGate gate({account("alice", KeyHashCost::minimal()), account("bob", KeyHashCost::minimal())});
    Verdicts v;
    gate.check("alice", "alice-key", "10.0.0.1", v.sink());
    QVERIFY(v.waitFor(1));
    gate.check("bob", "wrong", "10.0.0.2", v.sink());
    QVERIFY(v.waitFor(2));
    gate.check("nobody", "x", "10.0.0.3", v.sink());
    QVERIFY(v.waitFor(3));
    gate.check("bob", "bob-key", "10.0.0.2", v.sink());  // bob is throttled there now: not checked
    QVERIFY(v.waitFor(4));
    gate.check("bob", "bob-key", "10.0.0.4", v.sink());  // but not from elsewhere
    QVERIFY(v.waitFor(5));
    QVERIFY(v.got[0].check == LogonCheck::Verified);
    QVERIFY(v.got[1].check == LogonCheck::Refused);
    QVERIFY(v.got[2].check == LogonCheck::Refused);
    QVERIFY(v.got[3].check == LogonCheck::Throttled);
    QVERIFY(v.got[3].retryAfter > 0ms && v.got[3].retryAfter <= 500ms);
    QVERIFY(v.got[4].check == LogonCheck::Verified);
  }
  // 80 guesses at once from one address, each check ~25 ms: the queue takes 64, the rest are
  // refused at once; of those queued, one is checked and the others are throttled without a
  // check, so the whole burst is over in far less than 64 checks' time. Fails with the queue
  // unbounded (every guess then waits its turn) or the throttle read at queueing time.
  void aBurstCostsOneCheck() {
    LogonGate gate({account("alice", KeyHashCost::production())});
    Verdicts v;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 80; ++i) gate.check("alice", "guess", "10.0.0.9", v.sink());
    QVERIFY(v.waitFor(80));
    const auto took = std::chrono::steady_clock::now() - t0;
    int refused = 0, throttled = 0, busy = 0;
    for (const LogonVerdict& x : v.got) {
      if (x.check == LogonCheck::Refused) ++refused;
      if (x.check == LogonCheck::Throttled) ++(x.retryAfter == LogonGate::kBusyRetry ? busy : throttled);
    }
    QCOMPARE(refused, 1);
    // 80 - 1 checking - the address's share of the queue
    QVERIFY2(busy >= 80 - 1 - LogonGate::kMaxQueuedPerAddress, qPrintable(QString::number(busy)));
    QCOMPARE(refused + throttled + busy, 80);
    QVERIFY2(took < 1s, qPrintable(QString::number(std::chrono::duration<double>(took).count())));
  }
  // A flood of logons from one address leaves room in the queue for everyone else: alice's
  // logon from her own address, sent after 80 guesses from another, is checked (Verified), not
  // turned away as busy. Fails without the per-address share (kMaxQueuedPerAddress = kMaxQueued:
  // the flood fills the queue and alice gets Throttled/busy).
  void oneAddressCannotFillTheQueue() {
    LogonGate gate({account("alice", KeyHashCost::production()), account("bob", KeyHashCost::production())});
    Verdicts flood, own;
    for (int i = 0; i < 80; ++i) gate.check("bob", "guess-" + std::to_string(i), "10.0.0.9", flood.sink());
    gate.check("alice", "alice-key", "10.0.0.1", own.sink());
    QVERIFY(own.waitFor(1));
    QVERIFY(own.got[0].check == LogonCheck::Verified);
    QVERIFY(flood.waitFor(80));
  }
};

QTEST_GUILESS_MAIN(TestLogonGate)
#include "test_logon_gate.moc"
