// The protocol's message parser: every kind of bad input, and the fuzz target's body over the
// seed corpus (tests/net/corpus/message_parser) and thousands of mutations of it.
#include "MessageParserFuzz.h"
#include "core/net/ClientMessage.h"

#include <QDir>
#include <QFile>
#include <QtTest>

#include <random>

using namespace tessera;
using namespace tessera::net;

namespace {

QString corpusDir() { return QStringLiteral(TESSERA_NET_TEST_DIR "/corpus"); }

std::vector<std::string> seeds() {
  std::vector<std::string> out;
  QDir dir(corpusDir() + "/message_parser");
  for (const QString& name : dir.entryList({"*.json"}, QDir::Files, QDir::Name)) {
    QFile f(dir.filePath(name));
    if (f.open(QIODevice::ReadOnly)) out.push_back(f.readAll().trimmed().toStdString());
  }
  return out;
}

std::variant<ClientMessage, ParseError> parse(const std::string& s) { return parseClientMessage(s); }

}  // namespace

class TestClientMessage : public QObject {
  Q_OBJECT
 private slots:
  void corpusParses() {
    const auto corpus = seeds();
    QVERIFY(corpus.size() >= 10);
    for (const std::string& line : corpus) {
      QVERIFY2(fuzz::parseOne(reinterpret_cast<const std::uint8_t*>(line.data()), line.size()), line.c_str());
    }
  }
  void newOrderFields() {
    auto r = parse(
        "{\"type\":\"new_order\",\"cl_ord_id\":\"o-1\",\"side\":\"buy\",\"cluster\":1,"
        "\"gpus\":8,\"start\":600000,\"end\":600024,\"limit\":2500000,\"req\":4}");
    QVERIFY(std::holds_alternative<ClientMessage>(r));
    const auto& m = std::get<ClientMessage>(r);
    QCOMPARE(*m.req, std::uint64_t(4));
    const auto& o = std::get<NewOrder>(m.request);
    QCOMPARE(o.clOrdId, std::string("o-1"));
    QVERIFY(o.order.side == Side::Buy);
    QCOMPARE(*o.order.cluster, ClusterId(1));
    QCOMPARE(o.order.gpus, GpuCount(8));
    QCOMPARE(o.order.end, Hour(600024));
    QCOMPARE(o.order.limit, Price(2'500'000));
    QCOMPARE(o.order.id, OrderId(0));  // assigned by the exchange, never by the client
  }
  void refsAndQueries() {
    auto c = std::get<ClientMessage>(parse("{\"type\":\"cancel\",\"cl_ord_id\":\"abc\"}"));
    QCOMPARE(*std::get<CancelOrder>(c.request).ref.clOrdId, std::string("abc"));
    auto a = std::get<ClientMessage>(parse("{\"type\":\"amend\",\"order_id\":9,\"gpus\":3}"));
    QCOMPARE(*std::get<AmendOrder>(a.request).ref.orderId, OrderId(9));
    QCOMPARE(*std::get<AmendOrder>(a.request).gpus, GpuCount(3));
    auto s = std::get<ClientMessage>(parse("{\"type\":\"subscribe\",\"from_seq\":77}"));
    QCOMPARE(*std::get<Subscribe>(s.request).fromSeq, std::uint64_t(77));
    QCOMPARE(*std::get<ParseError>(parse("{\"type\":\"nope\",\"req\":5}")).req, std::uint64_t(5));
  }
  void deliveryReports() {
    auto r =
        std::get<ClientMessage>(parse("{\"type\":\"delivery_report\",\"contract\":12,\"start\":600002,"
                                      "\"end\":600005,\"usable_gpus\":4,\"problem\":\"link_degraded\"}"));
    const auto& d = std::get<DeliveryReportRequest>(r.request);
    QCOMPARE(d.contract, ContractId(12));
    QCOMPARE(d.end, Hour(600005));
    QCOMPARE(d.usableGpus, GpuCount(4));
    QVERIFY(d.problem == DeliveryProblem::LinkDegraded);
    auto o =
        std::get<ClientMessage>(parse("{\"type\":\"outage\",\"cluster\":2,\"start\":1,\"end\":3,\"lost_gpus\":8}"));
    QCOMPARE(std::get<OutageRequest>(o.request).lostGpus, GpuCount(8));
    QVERIFY(std::get<OutageRequest>(o.request).problem == DeliveryProblem::MissingGpus);  // the default
    QVERIFY(std::holds_alternative<IndexHistoryQuery>(
        std::get<ClientMessage>(parse("{\"type\":\"index_history\"}")).request));
  }
  void badInputGetsReasons_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("code");
    QFile f(corpusDir() + "/bad_messages.tsv");
    QVERIFY(f.open(QIODevice::ReadOnly));
    int rows = 0;
    while (!f.atEnd()) {
      const QString l = QString::fromUtf8(f.readLine()).chopped(1);
      if (l.isEmpty() || l.startsWith('#')) continue;
      const QStringList parts = l.split('\t');
      QVERIFY(parts.size() == 3);
      QTest::newRow(parts[0].toUtf8().constData()) << parts[2] << parts[1];
      ++rows;
    }
    QVERIFY(rows >= 20);
    const QString open = "{\"type\":\"cancel\",\"cl_ord_id\":\"";
    QTest::newRow("long cl_ord_id") << open + QString(65, 'x') + "\"}"
                                    << "bad_field";
    QTest::newRow("deep nesting") << "{\"type\":\"balance\",\"x\":" + QString(5000, '[') + QString(5000, ']') + "}"
                                  << "malformed";
    QTest::newRow("key too long") << "{\"type\":\"logon\",\"account\":\"a\",\"key\":\"" + QString(300, 'k') + "\"}"
                                  << "bad_field";
    QTest::newRow("empty") << ""
                           << "malformed";
  }
  void badInputGetsReasons() {
    QFETCH(QString, line);
    QFETCH(QString, code);
    auto r = parse(line.toStdString());
    QVERIFY2(std::holds_alternative<ParseError>(r), qPrintable(line));
    const ParseError& e = std::get<ParseError>(r);
    QCOMPARE(QString::fromStdString(e.code), code);
    QVERIFY(!e.reason.empty());
  }
  // Lines the JSON parser read loosely: it stopped at a NUL, kept the last of two equal keys
  // and let raw control bytes through as whitespace. Both parsers refuse them (the flat one by
  // not answering), as `malformed` with a reason. Fails with lineShapeError or the duplicate-key
  // check in ClientMessage.cpp taken out, or with the flat parser's space() taking tabs again.
  void looseLinesAreMalformed() {
    const std::string order =
        "\"type\":\"new_order\",\"cl_ord_id\":\"o\",\"cluster\":1,\"gpus\":8,"
        "\"start\":600000,\"end\":600024,\"limit\":2500000";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {std::string("{\"type\":\"heartbeat\",\"req\":11}\0garbage", 37), "control byte 0x00 at offset 29"},
        {std::string("{\"type\":\"cancel\",\"order_id\":1}\0", 32), "control byte 0x00"},
        {"{\"type\":\"cancel\",\"order_id\":1}\x1f", "control byte 0x1f"},
        {"{\"type\":\"cancel\",\t\"order_id\":1}", "control byte 0x09"},
        {"{\"type\":\"cancel\",\"order_id\":1}\r", "control byte 0x0d"},
        {"{\"type\":\"cancel\",\"cl_ord_id\":\"a\x7f\"}", "control byte 0x7f"},
        {"{" + order + ",\"side\":\"buy\",\"side\":\"sell\"}", "duplicate key 'side'"},
        {"{\"type\":\"cancel\",\"order_id\":1,\"order_id\":2}", "duplicate key 'order_id'"},
        {"{\"type\":\"heartbeat\",\"type\":\"logout\"}", "duplicate key 'type'"},
        {"{\"type\":\"balance\",\"req\":1,\"req\":2}", "duplicate key 'req'"},
        {"{" + order + ",\"side\":\"buy\",\"constraints\":{\"regions\":[\"eu\"],\"regions\":[]}}",
         "duplicate key 'regions'"},
        {"{\"type\":\"cancel\",\"cl_ord_id\":\"a\",\"cl_\\u006frd_id\":\"b\"}", "duplicate key 'cl_ord_id'"},
        {"{\"type\":\"cancel\",\"order_id\":1}x", "bytes after the JSON object at offset 30"},
        {"{\"type\":\"cancel\",\"order_id\":1} {\"type\":\"logout\"}", "bytes after the JSON object"},
        {"{\"type\":\"cancel\",\"order_id\":1}}", "bytes after the JSON object"},
        {"{\"type\":\"cancel\",\"cl_ord_id\":\"caf\xc3\"}", "invalid UTF-8"},
        {"{\"type\":\"cancel\",\"cl_ord_id\":\"\xc0\xaf\"}", "invalid UTF-8"},          // overlong '/'
        {"{\"type\":\"cancel\",\"cl_ord_id\":\"\xed\xa0\x80\"}", "invalid UTF-8"},      // a surrogate
        {"{\"type\":\"cancel\",\"cl_ord_id\":\"\xf4\x90\x80\x80\"}", "invalid UTF-8"},  // above U+10FFFF
        {"{\"type\":\"cancel\",\"order_id\":1}\xc3\xa9", "bytes after the JSON object"},
    };
    for (const auto& [line, reason] : cases) {
      for (auto r : {parseClientMessage(line), parseClientMessageWithTree(line)}) {
        QVERIFY2(std::holds_alternative<ParseError>(r), line.c_str());
        const ParseError& e = std::get<ParseError>(r);
        QCOMPARE(e.code, std::string("malformed"));
        QVERIFY2(e.reason.find(reason) != std::string::npos, (line + " -> " + e.reason).c_str());
      }
      QVERIFY2(!parseFlatMessage(line).has_value(), line.c_str());
    }
    // Spaces around and inside the object are still fine, for both parsers.
    for (const std::string line :
         {"  {\"type\":\"cancel\",\"order_id\":1}  ", "{ \"type\" : \"cancel\" , \"order_id\" : 1 }"}) {
      QVERIFY(std::holds_alternative<ClientMessage>(parseClientMessageWithTree(line)));
      QVERIFY(parseFlatMessage(line).has_value());
    }
  }
  // Well-formed UTF-8 is kept as it is; control characters written as escapes are refused in
  // the strings the exchange keeps and echoes.
  void utf8AndEscapedControls() {
    auto r = parse("{\"type\":\"cancel\",\"cl_ord_id\":\"caf\xc3\xa9-1 \xe2\x82\xac \xf0\x9f\x98\x80\"}");
    QVERIFY(std::holds_alternative<ClientMessage>(r));
    QCOMPARE(*std::get<CancelOrder>(std::get<ClientMessage>(r).request).ref.clOrdId,
             std::string("caf\xc3\xa9-1 \xe2\x82\xac \xf0\x9f\x98\x80"));
    auto escaped = parse("{\"type\":\"cancel\",\"cl_ord_id\":\"caf\\u00e9-1\"}");
    QCOMPARE(*std::get<CancelOrder>(std::get<ClientMessage>(escaped).request).ref.clOrdId,
             std::string("caf\xc3\xa9-1"));
    auto nul = parse("{\"type\":\"cancel\",\"cl_ord_id\":\"a\\u0000b\"}");
    QVERIFY(std::holds_alternative<ParseError>(nul));
    QCOMPARE(std::get<ParseError>(nul).code, std::string("bad_field"));
    // The type echoed in an error is cut at a character boundary, never inside one.
    auto longType = parse("{\"type\":\"" + std::string(31, 'x') + "\xc3\xa9\"}");
    QCOMPARE(std::get<ParseError>(longType).type, std::string(31, 'x'));
  }
  void binaryGarbage() {
    const char bytes[] = {'{', '\0', '\xff', '\xfe', '"', 't', '}', '\x80'};
    auto r = parseClientMessage(std::string_view(bytes, sizeof bytes));
    QVERIFY(std::holds_alternative<ParseError>(r));
    QCOMPARE(std::get<ParseError>(r).code, std::string("malformed"));
  }
  // The fuzz target's body over a few thousand mutations of the corpus, so CI exercises it
  // without libFuzzer.
  void mutatedCorpus() {
    const auto corpus = seeds();
    QVERIFY(!corpus.empty());
    std::mt19937_64 rng(20261202);
    const std::string tokens[] = {"\"",
                                  "{",
                                  "}",
                                  "[",
                                  "]",
                                  ",",
                                  ":",
                                  "\\",
                                  "\\u0000",
                                  "null",
                                  "-1",
                                  "1e308",
                                  "18446744073709551616",
                                  "true",
                                  "\"type\"",
                                  "\"new_order\"",
                                  "\xc3\x28",
                                  "\n",
                                  std::string(1, '\0')};
    int parsed = 0, rejected = 0;
    for (int i = 0; i < 6000; ++i) {
      std::string s = corpus[rng() % corpus.size()];
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !s.empty(); ++e) {
        const std::size_t pos = rng() % s.size();
        switch (rng() % 6) {
          case 0: s[pos] = static_cast<char>(rng() & 0xff); break;
          case 1: s.erase(pos, 1 + rng() % 8); break;
          case 2: s.insert(pos, tokens[rng() % std::size(tokens)]); break;
          case 3: s.resize(pos); break;
          case 4: s.insert(pos, s.substr(rng() % s.size(), rng() % 16)); break;
          case 5: break;  // some inputs stay valid, so the accepting paths are fuzzed too
        }
      }
      if (fuzz::parseOne(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()))
        ++parsed;
      else
        ++rejected;
    }
    // Both outcomes must occur, or the mutations are not reaching the parser's logic.
    QVERIFY2(parsed > 100, qPrintable(QString::number(parsed)));
    QVERIFY2(rejected > 1000, qPrintable(QString::number(rejected)));
  }
};

QTEST_GUILESS_MAIN(TestClientMessage)
#include "test_client_message.moc"
