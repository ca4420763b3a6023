// `tessera-cli index` end to end: inputs through the engine, index lines out.
#include "core/settlement/IndexCommand.h"

#include <QtTest>

#include <nlohmann/json.hpp>
#include <sstream>

class IndexCommandTest : public QObject {
  Q_OBJECT
 private slots:
  void publishesTheIndexForEveryHourPassed() {
    std::istringstream in(R"(
{"type":"cluster","id":1,"accelerator":"H100","gpus_per_node":8,"node_count":8}
{"type":"capacity","account":"p","cluster":1,"gpus":64,"start":0,"end":100}
{"type":"clock","now":10}
{"type":"order","id":1,"account":"p","side":"sell","cluster":1,"gpus":64,"start":12,"end":20,"limit":2000000}
{"type":"order","id":2,"account":"b","side":"buy","cluster":1,"gpus":8,"start":12,"end":20,"limit":2500000}
{"type":"clock","now":11}
{"type":"order","id":3,"account":"b","side":"buy","cluster":1,"gpus":2,"start":12,"end":14,"limit":3000000}
{"type":"amend","id":1,"account":"p","limit":2600000}
{"type":"order","id":4,"account":"b","side":"buy","cluster":1,"gpus":4,"start":12,"end":14,"limit":3000000}
{"type":"clock","now":12}
)");
    std::ostringstream out, err;
    char arg0[] = "index";
    char* argv[] = {arg0};
    QCOMPARE(tessera::runIndexCommand(1, argv, in, out, err), 0);
    std::vector<nlohmann::json> lines;
    std::istringstream text(out.str());
    for (std::string l; std::getline(text, l);) lines.push_back(nlohmann::json::parse(l));
    QCOMPARE(lines.size(), std::size_t(3));  // hour 10, hour 11, and the end (hour 12)
    QCOMPARE(lines[0].at("hour").get<int>(), 10);
    QCOMPARE(lines[0].at("price").get<long>(), 2'000'000L);
    QCOMPARE(lines[0].at("tenor").get<std::string>(), std::string("next_day"));
    // Hour 11 adds 4 GPU-h at $2.00 and 8 GPU-h at $2.60: (64*2.0 + 4*2.0 + 8*2.6) / 76.
    QCOMPARE(lines[1].at("gpu_hours").get<long>(), 76L);
    QCOMPARE(lines[1].at("price").get<long>(), (64L * 2'000'000 + 4L * 2'000'000 + 8L * 2'600'000 + 38) / 76);
    QCOMPARE(lines[1].at("trades").get<int>(), 3);
  }

  void refusesBadOptions() {
    std::istringstream in;
    std::ostringstream out, err;
    char a0[] = "index", a1[] = "--window", a2[] = "zero";
    char* argv[] = {a0, a1, a2};
    QCOMPARE(tessera::runIndexCommand(3, argv, in, out, err), 2);
    QVERIFY(err.str().find("--window") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(IndexCommandTest)
#include "test_index_command.moc"
