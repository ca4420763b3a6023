// The fast parser of the hot messages against the JSON tree parser: on many generated new_order
// and cancel lines, valid and not, and byte mutations of them, whenever the fast parser answers
// the tree parser must give the same message; and it must answer the plain ones, or it buys
// nothing.
#include "MessageParserFuzz.h"
#include "core/net/FlatMessageParser.h"

#include <QtTest>

#include <random>
#include <string>
#include <vector>

using namespace tessera;
using namespace tessera::net;

namespace {

// A value for a field, from a list that mixes the valid with what each parser must refuse.
std::string pick(std::mt19937_64& rng, const std::vector<std::string>& choices) {
  return choices[rng() % choices.size()];
}

const std::vector<std::string> kIntegers = {"0",
                                            "1",
                                            "8",
                                            "600000",
                                            "2000000",
                                            "-1",
                                            "-600000",
                                            "01",
                                            "-0",
                                            "1.0",
                                            "1e3",
                                            "2147483647",
                                            "2147483648",
                                            "-2147483648",
                                            "-2147483649",
                                            "4294967295",
                                            "4294967296",
                                            "1099511627776",
                                            "1099511627777",
                                            "9007199254740992",
                                            "9007199254740993",
                                            "999999999999999999",
                                            "1000000000000000000",
                                            "18446744073709551616",
                                            "\"8\"",
                                            "true",
                                            "null",
                                            "[]",
                                            "{}"};
const std::vector<std::string> kStrings = {"\"o-1\"",
                                           "\"x\"",
                                           "\"\"",
                                           "\"a\\\"b\"",
                                           "\"caf\xc3\xa9\"",
                                           "\"tab\there\"",
                                           "\"" + std::string(64, 'k') + "\"",
                                           "\"" + std::string(65, 'k') + "\"",
                                           "17",
                                           "null"};

std::string field(std::mt19937_64& rng, const std::string& key) {
  if (key == "side") return pick(rng, {"\"buy\"", "\"sell\"", "\"BUY\"", "1"});
  if (key == "fill") return pick(rng, {"\"all_or_none\"", "\"divisible\"", "\"aon\""});
  if (key == "tif") return pick(rng, {"\"GTC\"", "\"GTD\"", "\"IOC\"", "\"FOK\"", "\"gtc\""});
  if (key == "stp") return pick(rng, {"\"cancel_incoming\"", "\"cancel_resting\"", "\"none\""});
  if (key == "post_only") return pick(rng, {"true", "false", "1", "\"true\""});
  if (key == "cl_ord_id") return pick(rng, kStrings);
  if (key == "limit_usd") return pick(rng, {"2.5", "3", "-1"});
  if (key == "constraints") return pick(rng, {"{\"regions\":[\"eu\"]}", "{}"});
  return pick(rng, kIntegers);
}

std::string line(std::mt19937_64& rng, bool plain) {
  const bool order = rng() % 4 != 0;
  std::vector<std::string> keys;
  if (order) {
    keys = {"cl_ord_id", "side", "cluster", "gpus", "start", "end", "limit"};
    for (const char* k : {"duration", "fill", "tif", "expire_at", "post_only", "stp", "sell_back"})
      if (rng() % 3 == 0) keys.push_back(k);
    if (!plain) {
      if (rng() % 4 == 0) keys.erase(keys.begin() + static_cast<long>(rng() % keys.size()));
      for (const char* k : {"limit_usd", "constraints", "id", "account", "gpu", "req"})
        if (rng() % 8 == 0) keys.push_back(k);
      if (rng() % 8 == 0) keys.push_back(keys[rng() % keys.size()]);  // a duplicate
    }
  } else {
    keys = {rng() % 2 ? "order_id" : "cl_ord_id"};
    if (!plain && rng() % 3 == 0) keys.push_back(rng() % 2 ? "order_id" : "cl_ord_id");
    if (!plain && rng() % 6 == 0) keys.push_back("limit");
  }
  std::shuffle(keys.begin(), keys.end(), rng);
  const char* sep = plain || rng() % 2 ? "," : " ,\t";
  std::string s = plain || rng() % 4 ? "{" : " { ";
  s += order ? "\"type\":\"new_order\"" : "\"type\":\"cancel\"";
  if (rng() % 3 == 0) s += std::string(sep) + "\"req\":" + (plain ? "12" : pick(rng, {"12", "-3", "0", "1.5"}));
  for (const std::string& k : keys) {
    std::string v;
    if (plain || rng() % 4 != 0) {
      if (k == "side")
        v = rng() % 2 ? "\"buy\"" : "\"sell\"";
      else if (k == "cl_ord_id")
        v = "\"c-" + std::to_string(rng() % 100000) + "\"";
      else if (k == "fill")
        v = rng() % 2 ? "\"all_or_none\"" : "\"divisible\"";
      else if (k == "tif")
        v = "\"GTC\"";
      else if (k == "stp")
        v = "\"cancel_resting\"";
      else if (k == "post_only")
        v = rng() % 2 ? "true" : "false";
      else
        v = std::to_string(rng() % 1'000'000);
    } else {
      v = field(rng, k);
    }
    s += std::string(sep) + "\"" + k + "\":" + v;
  }
  s += plain || rng() % 4 ? "}" : "} ";
  if (!plain && rng() % 20 == 0) s += "x";
  return s;
}

}  // namespace

class TestFlatMessageParser : public QObject {
  Q_OBJECT
 private slots:
  void answersThePlainMessages() {
    std::mt19937_64 rng(1);
    for (int i = 0; i < 5000; ++i) {
      const std::string s = line(rng, true);
      QVERIFY2(parseFlatMessage(s).has_value(), s.c_str());
      QVERIFY2(fuzz::flatAgreesWithTree(s), s.c_str());
    }
    // The loopback benchmark's order, byte for byte.
    QVERIFY(
        parseFlatMessage("{\"type\":\"new_order\",\"cl_ord_id\":\"17\",\"side\":\"buy\",\"cluster\":1,\"gpus\":1,"
                         "\"start\":600000,\"end\":600001,\"limit\":2000000}"));
  }

  void agreesWithTheTreeParser() {
    std::mt19937_64 rng(2);
    int answered = 0, declined = 0;
    for (int i = 0; i < 40'000; ++i) {
      std::string s = line(rng, false);
      if (i % 3 == 0) {
        // Byte mutations: the fast parser's own scanner must not accept what JSON does not.
        const int edits = 1 + static_cast<int>(rng() % 3);
        for (int e = 0; e < edits && !s.empty(); ++e) {
          const std::size_t at = rng() % s.size();
          switch (rng() % 3) {
            case 0: s[at] = static_cast<char>(rng() % 256); break;
            case 1: s.erase(at, 1); break;
            default: s.insert(at, 1, "{}[]\",:-.0e\\ "[rng() % 13]); break;
          }
        }
      }
      if (!fuzz::flatAgreesWithTree(s)) QFAIL(("the parsers disagree on: " + s).c_str());
      (parseFlatMessage(s) ? answered : declined)++;
    }
    // Both outcomes must be common, or the generator is not testing the boundary.
    QVERIFY2(answered > 2000, qPrintable(QString::number(answered)));
    QVERIFY2(declined > 2000, qPrintable(QString::number(declined)));
  }

  void leavesErrorsToTheTreeParser() {
    // What a client sees for a bad hot message is the tree parser's reason, not a second wording.
    for (const char* bad : {"{\"type\":\"new_order\",\"cl_ord_id\":\"a\",\"side\":\"up\",\"cluster\":1,\"gpus\":1,"
                            "\"start\":1,\"end\":2,\"limit\":3}",
                            "{\"type\":\"cancel\",\"order_id\":1,\"cl_ord_id\":\"a\"}", "{\"type\":\"cancel\"}"}) {
      QVERIFY(!parseFlatMessage(bad));
      const auto r = parseClientMessage(bad);
      QVERIFY(std::holds_alternative<ParseError>(r));
      QCOMPARE(std::get<ParseError>(r).code, std::get<ParseError>(parseClientMessageWithTree(bad)).code);
    }
  }
};

QTEST_APPLESS_MAIN(TestFlatMessageParser)
#include "test_flat_message_parser.moc"
