// The server's string escaper (jsonString), which every client-given string in a reply goes
// through: UTF-8 passes as it is, only what JSON needs is escaped, and a line stays parseable
// whatever bytes it is given.
#include "core/net/ServerMessage.h"

#include <nlohmann/json.hpp>

#include <QtTest>

using namespace tessera::net;

class TestServerMessage : public QObject {
  Q_OBJECT
 private slots:
  // Fails with the escaper that wrote bytes >= 0x80 as \u00XX one by one.
  void utf8PassesThrough() {
    const std::string s = "caf\xc3\xa9-1 \xe2\x82\xac \xf0\x9f\x98\x80";
    QCOMPARE(jsonString(s), "\"" + s + "\"");
  }
  void onlyQuotesBackslashesAndControlsAreEscaped() {
    QCOMPARE(jsonString("a\"b\\c"), std::string("\"a\\\"b\\\\c\""));
    QCOMPARE(jsonString(std::string("\n\r\t\x01\x1f\x7f\0", 7)),
             std::string("\"\\n\\r\\t\\u0001\\u001f\\u007f\\u0000\""));
    QCOMPARE(jsonString("plain / text <>&'"), std::string("\"plain / text <>&'\""));
  }
  // Bytes that are not UTF-8 (which the parser refuses, but a string may come from elsewhere)
  // become U+FFFD, so the line still parses.
  void strayBytesBecomeReplacementCharacters() {
    QCOMPARE(jsonString("caf\xc3"), std::string("\"caf\\ufffd\""));
    QCOMPARE(jsonString("\xc0\xaf|\xed\xa0\x80|\xff"), std::string("\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\""));
    for (int b = 0; b < 256; ++b) {
      const std::string s = std::string("x") + static_cast<char>(b) + "\xe2\x82" + static_cast<char>(b);
      const auto j = nlohmann::json::parse(jsonString(s), nullptr, false);
      QVERIFY2(j.is_string(), qPrintable(QString::number(b)));
    }
  }
};

QTEST_GUILESS_MAIN(TestServerMessage)
#include "test_server_message.moc"
