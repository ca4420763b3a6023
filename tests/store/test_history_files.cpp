// JSONL and CSV import/export of market histories: lossless round trips, bad lines reported
// and skipped while the good ones are kept.
#include "backtest/SimulatedMarket.h"
#include "core/engine/EventJson.h"
#include "core/store/HistoryFiles.h"
#include "core/store/MarketHistoryStore.h"

#include <QTemporaryDir>
#include <QtTest>

#include <sstream>

using namespace tessera;
using namespace tessera::store;

namespace {

std::unique_ptr<MarketHistoryStore> openRw(const std::string& p) {
  auto r = MarketHistoryStore::open(p, OpenMode::ReadWrite);
  if (auto* e = std::get_if<StoreError>(&r)) qFatal("%s", e->message.c_str());
  return std::move(std::get<std::unique_ptr<MarketHistoryStore>>(r));
}

std::vector<std::string> dumpInputs(const MarketHistoryStore& s, const AccountDirectory& a) {
  std::vector<std::string> out;
  s.forEachInput({}, [&](const RecordedInput& in) {
    auto j = toJson(in.event, a);
    j["time_us"] = in.timeMicros;
    out.push_back(j.dump());
    return true;
  });
  return out;
}

}  // namespace

class TestHistoryFiles : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* name) { return (dir_.path() + "/" + name).toStdString(); }

  void fill(MarketHistoryStore& s, AccountDirectory& a) {
    backtest::SimulatedMarketConfig cfg;
    cfg.seed = 9;
    backtest::SimulatedMarket market(cfg, a);
    std::vector<RecordedInput> rows;
    for (int i = 0; i < 24; ++i)
      for (auto& t : market.stepTimed()) rows.push_back({0, t.timeMicros, std::move(t.event)});
    QVERIFY(!s.appendInputs(rows));
    QVERIFY(!s.saveAccounts(a));
  }

  void roundTrip(FileFormat format) {
    AccountDirectory a;
    auto src = openRw(path(format == FileFormat::Csv ? "src-csv.db" : "src-jsonl.db"));
    fill(*src, a);
    std::stringstream file;
    auto n = exportInputs(*src, a, {}, format, file);
    QVERIFY(std::holds_alternative<std::int64_t>(n));
    QVERIFY(std::get<std::int64_t>(n) > 500);

    AccountDirectory b;
    auto dst = openRw(path(format == FileFormat::Csv ? "dst-csv.db" : "dst-jsonl.db"));
    auto report = importInputs(file, format, *dst, b);
    QVERIFY(std::holds_alternative<ImportReport>(report));
    const auto& r = std::get<ImportReport>(report);
    QVERIFY2(r.errors.empty(), r.errors.empty() ? "" : r.errors.front().c_str());
    QCOMPARE(r.imported, std::get<std::int64_t>(n));
    QCOMPARE(dumpInputs(*dst, b), dumpInputs(*src, a));
  }

 private slots:
  void jsonlRoundTrip() { roundTrip(FileFormat::Jsonl); }
  void csvRoundTrip() { roundTrip(FileFormat::Csv); }

  void badLinesAreReportedAndSkipped() {
    std::stringstream in;
    in << R"({"type":"clock","now":490992})"
       << "\n"
       << "not json at all\n"
       << R"({"type":"order","account":"alice","id":1,"side":"buy","cluster":1,"gpus":-3,"start":490993,"end":490995,"limit":2000000})"
       << "\n"
       << R"({"type":"cancel","account":"alice","id":7,"time_us":"soon"})"
       << "\n"
       << R"({"type":"cancel","account":"alice","id":7})"
       << "\n";
    AccountDirectory a;
    auto s = openRw(path("bad.db"));
    auto report = importInputs(in, FileFormat::Jsonl, *s, a);
    const auto& r = std::get<ImportReport>(report);
    QCOMPARE(r.lines, 5);
    QVERIFY(r.imported >= 2);
    QVERIFY(r.errors.size() >= 2);
    QVERIFY(r.errors[0].rfind("line 2:", 0) == 0);
    QCOMPARE(std::get<HistorySummary>(s->summary()).inputs, r.imported);

    std::stringstream csv;
    csv << "seq,time_us,kind\n1,2,clock\n1,2,bogus,,,,,,,,,,,,,,,\n";
    auto s2 = openRw(path("badcsv.db"));
    auto r2 = std::get<ImportReport>(importInputs(csv, FileFormat::Csv, *s2, a));
    QCOMPARE(r2.imported, 0);
    QCOMPARE(r2.errors.size(), std::size_t{2});
  }

  void exportsMarketEvents() {
    auto s = openRw(path("events.db"));
    std::vector<RecordedEvent> ev(2);
    ev[0].inputSeq = 1;
    ev[0].type = "fill";
    ev[0].cluster = 2;
    ev[0].price = 2'000'000;
    ev[0].json = R"({"event":"fill","price":2000000})";
    ev[1].inputSeq = 2;
    ev[1].type = "clock";
    ev[1].json = R"({"event":"clock","now":5})";
    QVERIFY(!s->appendEvents(ev));
    std::stringstream jl, csv;
    QCOMPARE(std::get<std::int64_t>(exportEvents(*s, {}, FileFormat::Jsonl, jl)), 2);
    QVERIFY(jl.str().find(R"("input_seq":1)") != std::string::npos);
    QCOMPARE(
        std::get<std::int64_t>(exportEvents(*s, {std::nullopt, std::nullopt, 2, std::nullopt}, FileFormat::Csv, csv)),
        1);
    QVERIFY(csv.str().find("fill,2,") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestHistoryFiles)
#include "test_history_files.moc"
