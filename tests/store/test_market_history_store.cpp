// The SQLite market history: what goes in comes back out, queries by time and cluster, and
// bad files give clear errors.
#include "backtest/SimulatedMarket.h"
#include "core/engine/EventJson.h"
#include "core/engine/Matcher.h"
#include "core/store/HistoryRecorder.h"
#include "core/store/InputRow.h"
#include "core/store/MarketHistoryStore.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tessera;
using namespace tessera::store;

namespace {

struct Recorded {
  std::vector<std::string> inputs;  // JSON lines with seq and time
  std::int64_t events = 0;
};

std::string line(const RecordedInput& in, const AccountDirectory& a) {
  auto j = toJson(in.event, a);
  j["seq"] = in.seq;
  j["time_us"] = in.timeMicros;
  return j.dump();
}

Recorded recordSimulated(const std::string& path, AccountDirectory& accounts, int steps) {
  auto opened = MarketHistoryStore::open(path, OpenMode::ReadWrite);
  if (auto* e = std::get_if<StoreError>(&opened)) qFatal("%s", e->message.c_str());
  auto& store = *std::get<std::unique_ptr<MarketHistoryStore>>(opened);
  backtest::SimulatedMarketConfig cfg;
  cfg.seed = 5;
  backtest::SimulatedMarket market(cfg, accounts);
  auto engine = makeMatchingEngine();
  HistoryRecorder recorder(store, accounts, 500);
  Recorded r;
  std::vector<Event> out;
  for (int i = 0; i < steps; ++i) {
    for (auto& t : market.stepTimed()) {
      out.clear();
      engine->apply(t.event, out);
      const auto seq = recorder.record(t.timeMicros, t.event, out);
      r.inputs.push_back(line({seq, t.timeMicros, t.event}, accounts));
      r.events += static_cast<std::int64_t>(out.size());
    }
  }
  if (auto e = recorder.flush()) qFatal("%s", e->message.c_str());
  return r;
}

std::unique_ptr<MarketHistoryStore> openOrDie(const std::string& p, OpenMode mode) {
  auto r = MarketHistoryStore::open(p, mode);
  if (auto* e = std::get_if<StoreError>(&r)) qFatal("%s", e->message.c_str());
  return std::move(std::get<std::unique_ptr<MarketHistoryStore>>(r));
}

// An input whose second account travels in `extra`: it comes back whole, and without that
// account the row is an error.
void roundTripsWithExtraAccount(const RecordedInput& in, InputKind kind) {
  const InputRow row = toRow(in);
  QVERIFY(row.kind == kind);
  auto back = fromRow(row);
  QVERIFY(std::holds_alternative<RecordedInput>(back));
  QVERIFY(std::get<RecordedInput>(back).event == in.event);
  InputRow broken = row;
  broken.extra = "{}";
  QVERIFY(std::holds_alternative<StoreError>(fromRow(broken)));
}

}  // namespace

class TestMarketHistoryStore : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* name) { return (dir_.path() + "/" + name).toStdString(); }

 private slots:
  void transferRowRoundTrips() {
    roundTripsWithExtraAccount({7, 123, CapacityTransfer{12, 3, 4, 2, 16, 100, 124, 2'100'000}}, InputKind::Transfer);
  }

  // Fails if fromRow reads the holder from the provider's column (holder 4 comes back as 3).
  void reclaimRowRoundTrips() {
    roundTripsWithExtraAccount({8, 124, CapacityReclaim{12, 3, 4, 6, 100, 104}}, InputKind::Reclaim);
  }

  void roundTripsInputsAndEvents() {
    AccountDirectory accounts;
    const auto p = path("h.db");
    const Recorded rec = recordSimulated(p, accounts, 30);
    QVERIFY(rec.inputs.size() > 1000);

    auto opened = MarketHistoryStore::open(p, OpenMode::ReadOnly);
    QVERIFY(std::holds_alternative<std::unique_ptr<MarketHistoryStore>>(opened));
    auto& store = *std::get<std::unique_ptr<MarketHistoryStore>>(opened);
    AccountDirectory loaded;
    QVERIFY(!store.loadAccounts(loaded));
    QCOMPARE(loaded.size(), accounts.size());

    std::vector<std::string> back;
    QVERIFY(!store.forEachInput({}, [&](const RecordedInput& in) {
      back.push_back(line(in, loaded));
      return true;
    }));
    QCOMPARE(back.size(), rec.inputs.size());
    for (std::size_t i = 0; i < back.size(); ++i) QCOMPARE(back[i], rec.inputs[i]);

    const auto summary = std::get<HistorySummary>(store.summary());
    QCOMPARE(summary.events, rec.events);
    QCOMPARE(summary.inputs, static_cast<std::int64_t>(rec.inputs.size()));

    int fills = 0;
    QVERIFY(!store.forEachEvent({}, [&](const RecordedEvent& e) {
      if (e.type == "fill") {
        ++fills;
        if (e.cluster == 0 || e.price <= 0 || e.gpus <= 0) return false;
      }
      return true;
    }));
    QVERIFY(fills > 0);
  }

  void queriesByTimeRangeAndCluster() {
    AccountDirectory accounts;
    const auto p = path("q.db");
    recordSimulated(p, accounts, 20);
    auto owner = openOrDie(p, OpenMode::ReadOnly);
    auto& store = *owner;
    const std::int64_t from = (backtest::kDefaultSimulationStart + 5) * kMicrosPerHour;
    const std::int64_t to = from + 3 * kMicrosPerHour;
    std::int64_t n = 0, lastSeq = 0;
    bool ordered = true, inRange = true;
    QVERIFY(!store.forEachInput({from, to, std::nullopt, std::nullopt}, [&](const RecordedInput& in) {
      ++n;
      ordered = ordered && in.seq > lastSeq;
      lastSeq = in.seq;
      inRange = inRange && in.timeMicros >= from && in.timeMicros < to;
      return true;
    }));
    QVERIFY(n > 50);
    QVERIFY(ordered);
    QVERIFY(inRange);

    std::int64_t onCluster = 0;
    bool right = true;
    QVERIFY(!store.forEachEvent({std::nullopt, std::nullopt, 3, std::nullopt}, [&](const RecordedEvent& e) {
      ++onCluster;
      right = right && e.cluster == 3;
      return true;
    }));
    QVERIFY(onCluster > 0);
    QVERIFY(right);
  }

  void appendContinuesTheSequence() {
    const auto p = path("append.db");
    {
      auto owner = openOrDie(p, OpenMode::ReadWrite);
      auto& s = *owner;
      std::vector<RecordedInput> rows{{0, 10, ClockAdvance{5}}, {0, 20, ClockAdvance{6}}};
      QVERIFY(!s.appendInputs(rows));
      QCOMPARE(rows[1].seq, 2);
    }
    auto owner = openOrDie(p, OpenMode::ReadWrite);
    auto& s = *owner;
    std::vector<RecordedInput> more{{0, 30, ClockAdvance{7}}};
    QVERIFY(!s.appendInputs(more));
    QCOMPARE(more[0].seq, 3);
    // A duplicate seq fails the whole batch and keeps what was there.
    std::vector<RecordedInput> clash{{0, 40, ClockAdvance{8}}, {1, 50, ClockAdvance{9}}};
    QVERIFY(s.appendInputs(clash).has_value());
    QCOMPARE(std::get<HistorySummary>(s.summary()).inputs, 3);
  }

  void ordersBeyondTheTypedColumnsRoundTrip() {
    const auto p = path("rich.db");
    OrderRequest o;
    o.id = 77;
    o.account = 1;
    o.side = Side::Buy;
    o.cluster = 2;
    o.gpus = 16;
    o.start = 100;
    o.end = 140;
    o.duration = 24;
    o.limit = 2'500'000;
    o.fill = FillStyle::AllOrNone;
    o.costFactors = {{2, 1'100'000}, {3, 950'000}};
    OrderRequest plain = o;
    plain.id = 78;
    plain.costFactors.clear();
    {
      auto owner = openOrDie(p, OpenMode::ReadWrite);
      std::vector<RecordedInput> rows{{0, 1, o}, {0, 2, plain}};
      QVERIFY(!owner->appendInputs(rows));
    }
    auto owner = openOrDie(p, OpenMode::ReadOnly);
    std::vector<OrderRequest> back;
    QVERIFY(!owner->forEachInput({}, [&](const RecordedInput& in) {
      back.push_back(std::get<OrderRequest>(in.event));
      return true;
    }));
    QCOMPARE(back.size(), std::size_t{2});
    QVERIFY(back[0] == o);
    QVERIFY(back[1] == plain);
  }

  void badFilesGiveClearErrors() {
    auto missing = MarketHistoryStore::open(path("nope.db"), OpenMode::ReadOnly);
    QVERIFY(std::holds_alternative<StoreError>(missing));
    QVERIFY(std::get<StoreError>(missing).message.find("does not exist") != std::string::npos);

    const auto junk = path("junk.db");
    std::ofstream(junk) << "this is not a database, just some text that is long enough......";
    for (auto mode : {OpenMode::ReadOnly, OpenMode::ReadWrite}) {
      auto r = MarketHistoryStore::open(junk, mode);
      QVERIFY(std::holds_alternative<StoreError>(r));
      QVERIFY(!std::get<StoreError>(r).message.empty());
    }

    // A truncated history (half a database file) is reported, not crashed on.
    AccountDirectory accounts;
    const auto p = path("full.db");
    recordSimulated(p, accounts, 10);
    {
      auto owner = openOrDie(p, OpenMode::ReadWrite);
      auto& s = *owner;
      s.setMeta("checkpoint", "1");
    }
    std::ifstream in(p, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    const auto cut = path("cut.db");
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 3);
    auto r = MarketHistoryStore::open(cut, OpenMode::ReadOnly);
    if (auto* s = std::get_if<std::unique_ptr<MarketHistoryStore>>(&r)) {
      auto e = (*s)->forEachInput({}, [](const RecordedInput&) { return true; });
      QVERIFY(e.has_value());
    } else {
      QVERIFY(!std::get<StoreError>(r).message.empty());
    }
  }
};

QTEST_GUILESS_MAIN(TestMarketHistoryStore)
#include "test_market_history_store.moc"
