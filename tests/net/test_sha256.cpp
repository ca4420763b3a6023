#include "core/net/Sha256.h"

#include <QtTest>

using namespace tessera::net;

class TestSha256 : public QObject {
  Q_OBJECT
 private slots:
  void standardVectors() {
    // FIPS 180-2 / NIST examples.
    QCOMPARE(QString::fromStdString(sha256Hex("")),
             QStringLiteral("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(QString::fromStdString(sha256Hex("abc")),
             QStringLiteral("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(QString::fromStdString(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
             QStringLiteral("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    QCOMPARE(QString::fromStdString(sha256Hex(
                 "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")),
             QStringLiteral("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"));
  }
  void millionAs() {
    Sha256 h;
    const std::string chunk(1000, 'a');
    for (int i = 0; i < 1000; ++i) h.update(chunk);
    QCOMPARE(QString::fromStdString(toHex(h.finish())),
             QStringLiteral("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  }
  void incrementalEqualsOneShot() {
    // Every split point around the 55/56/64-byte padding boundaries.
    std::string msg;
    for (int i = 0; i < 200; ++i) msg.push_back(static_cast<char>(i * 7 + 3));
    for (std::size_t len : {0u, 1u, 55u, 56u, 57u, 63u, 64u, 65u, 119u, 120u, 128u, 200u}) {
      const std::string m = msg.substr(0, len);
      for (std::size_t cut = 0; cut <= len; cut += 13) {
        Sha256 h;
        h.update(std::string_view(m).substr(0, cut));
        h.update(std::string_view(m).substr(cut));
        QCOMPARE(toHex(h.finish()), sha256Hex(m));
      }
    }
  }
  void apiKeysAreSaltedAndCompared() {
    QVERIFY(hashApiKey("s1", "key") != hashApiKey("s2", "key"));
    QCOMPARE(hashApiKey("s1", "key"), sha256Hex("s1:key"));
    QVERIFY(constantTimeEquals(hashApiKey("s", "k"), hashApiKey("s", "k")));
    QVERIFY(!constantTimeEquals(hashApiKey("s", "k"), hashApiKey("s", "K")));
    QVERIFY(!constantTimeEquals("abc", "ab"));
  }
};

QTEST_GUILESS_MAIN(TestSha256)
#include "test_sha256.moc"
