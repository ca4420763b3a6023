// API keys under Argon2id (ApiKey.h): the stored form, verification, the cost of a check, the
// refusal of anything that is not an Argon2id string (the old salted SHA-256 hex included).
#include "core/net/ApiKey.h"

#include <QtTest>

#include <chrono>
#include <set>

using namespace tessera::net;

class TestApiKey : public QObject {
  Q_OBJECT
 private slots:
  void hashesVerifyTheirKeyOnly() {
    const std::string h = hashApiKey("alice-key", KeyHashCost::minimal());
    QVERIFY(isArgon2idHash(h));
    QVERIFY(verifyApiKey(h, "alice-key"));
    QVERIFY(!verifyApiKey(h, "alice-kez"));
    QVERIFY(!verifyApiKey(h, ""));
    QVERIFY(!verifyApiKey(h, std::string("alice-key\0", 10)));  // every byte counts
    // A fresh salt each time: two hashes of one key differ, and both verify.
    const std::string again = hashApiKey("alice-key", KeyHashCost::minimal());
    QVERIFY(again != h);
    QVERIFY(verifyApiKey(again, "alice-key"));
  }
  void otherFormsNeverVerify() {
    // hex(SHA-256("salt-alice:alice-key")), the form the accounts file used to hold.
    const std::string oldStyle = "f7a380b27e79c16682386d71fb410ce09d954a9a492aa73c8dc7a1b5a0c6bd15";
    QVERIFY(!isArgon2idHash(oldStyle));
    QVERIFY(!verifyApiKey(oldStyle, "alice-key"));
    QVERIFY(!verifyApiKey("", ""));
    QVERIFY(!verifyApiKey("$argon2id$", "x"));
    QVERIFY(!verifyApiKey("$argon2i$v=19$m=8,t=1,p=1$c2FsdHNhbHQ$aGFzaA", "x"));
    QVERIFY(!verifyApiKey("$argon2id$" + std::string(500, 'a'), "x"));
  }
  // The production cost is what makes a stolen file expensive to brute-force: it must cost
  // milliseconds (the figure is printed for the record), and the minimal cost must not.
  void productionCostIsMilliseconds() {
    using Clock = std::chrono::steady_clock;
    const std::string h = hashApiKey("k", KeyHashCost::production());
    QVERIFY(h.find("m=32768,t=2,p=1") != std::string::npos);
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {
      const auto t0 = Clock::now();
      QVERIFY(verifyApiKey(h, "k"));
      best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    qInfo("production Argon2id check: %.1f ms (best of 3)", best);
    QVERIFY(best >= 5.0);
    const std::string cheap = hashApiKey("k", KeyHashCost::minimal());
    const auto t0 = Clock::now();
    QVERIFY(verifyApiKey(cheap, "k"));
    QVERIFY(Clock::now() - t0 < std::chrono::milliseconds(5));
  }
  void generatedKeysAreLongAndDistinct() {
    std::set<std::string> keys;
    for (int i = 0; i < 100; ++i) {
      const std::string k = generateApiKey();
      QCOMPARE(k.size(), std::size_t(43));
      QVERIFY(k.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") ==
              std::string::npos);
      keys.insert(k);
    }
    QCOMPARE(keys.size(), std::size_t(100));
  }
};

QTEST_GUILESS_MAIN(TestApiKey)
#include "test_api_key.moc"
