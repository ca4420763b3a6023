// The exchange records what it accepts to a market-history file (ExchangeConfig::recordPath,
// tessera-exchange --record): every input with its market events, readable by tessera-backtest.
#include "NetTestSupport.h"
#include "core/net/ExchangeCore.h"
#include "core/store/MarketHistoryStore.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;

class ExchangeRecordingTest : public QObject {
  Q_OBJECT

  static void send(ExchangeCore& core, SessionId s, const std::string& line) {
    Outbox out;
    auto parsed = parseClientMessage(line);
    QVERIFY(std::holds_alternative<ClientMessage>(parsed));
    checkLogonKey(marketConfig(), std::get<ClientMessage>(parsed));
    core.handle(s, std::get<ClientMessage>(parsed), out);
    core.finishBatch(out);
  }

 private slots:
  void acceptedInputsAndTheirEventsAreRecorded() {
    QTemporaryDir dir;
    ExchangeConfig config = marketConfig();
    config.recordPath = dir.filePath("history.db").toStdString();
    {
      auto opened = Journal::open(":memory:", false);
      QVERIFY(std::holds_alternative<std::unique_ptr<Journal>>(opened));
      auto& journal = *std::get<std::unique_ptr<Journal>>(opened);
      ExchangeCore core(config, journal);
      core.sessionOpened(1);
      send(core, 1, R"({"type":"logon","account":"provider","key":"provider-key"})");
      send(core, 1, order("s1", "sell", 1, 8, kNow, kNow + 4, 2 * kMicrosPerDollar));
      core.sessionOpened(2);
      send(core, 2, R"({"type":"logon","account":"alice","key":"alice-key"})");
      send(core, 2, order("b1", "buy", 1, 8, kNow, kNow + 4, 3 * kMicrosPerDollar));
      send(core, 2, order("bad", "buy", 9, 8, kNow, kNow + 4, 3 * kMicrosPerDollar));  // rejected: not recorded
      // The provider's outage goes into the history too, after the inputs before it.
      send(core, 1,
           R"({"type":"outage","cluster":1,"start":)" + std::to_string(kNow + 1) + R"(,"end":)" +
               std::to_string(kNow + 3) + R"(,"lost_gpus":8})");
      send(core, 1,
           R"({"type":"outage","cluster":1,"start":)" + std::to_string(kNow + 1) + R"(,"end":)" +
               std::to_string(kNow + 3) + R"(,"lost_gpus":0,"problem":"link_degraded"})");  // loses no GPUs
      journal.commit();
    }  // the core flushes the history when it closes

    auto opened = store::MarketHistoryStore::open(config.recordPath, store::OpenMode::ReadOnly);
    QVERIFY(std::holds_alternative<std::unique_ptr<store::MarketHistoryStore>>(opened));
    auto& history = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
    std::vector<InputEvent> inputs;
    QVERIFY(!history.forEachInput({}, [&](const store::RecordedInput& r) {
      inputs.push_back(r.event);
      return true;
    }));
    // The opening market (clock, two clusters, two grants) and the two accepted orders.
    QCOMPARE(inputs.size(), std::size_t(7));
    QVERIFY(std::holds_alternative<ClockAdvance>(inputs[0]));
    const auto& buy = std::get<OrderRequest>(inputs[6]);
    QVERIFY(buy.side == Side::Buy);
    QCOMPARE(buy.gpus, 8);
    int contracts = 0;
    QVERIFY(!history.forEachEvent({}, [&](const store::RecordedEvent& e) {
      contracts += e.type == "contract";
      return true;
    }));
    QCOMPARE(contracts, 1);
    AccountDirectory names;
    QVERIFY(!history.loadAccounts(names));
    QVERIFY(names.find("alice").has_value());
    // Fails if ExchangeCore::onOutage does not record it (recordOutage): no outages.
    const auto outages = history.outages();
    QVERIFY(std::holds_alternative<std::vector<store::RecordedOutage>>(outages));
    const auto& recorded = std::get<std::vector<store::RecordedOutage>>(outages);
    QCOMPARE(recorded.size(), std::size_t(1));
    QCOMPARE(recorded[0].afterInput, std::int64_t(7));
    QCOMPARE(recorded[0].provider, *names.find("provider"));
    QCOMPARE(recorded[0].cluster, ClusterId(1));
    QCOMPARE(recorded[0].start, kNow + 1);
    QCOMPARE(recorded[0].end, kNow + 3);
    QCOMPARE(recorded[0].lostGpus, GpuCount(8));
  }

  void anUnwritableHistoryFileIsAClearError() {
    ExchangeConfig config = marketConfig();
    config.recordPath = "/nonexistent-dir/history.db";
    auto opened = Journal::open(":memory:", false);
    auto& journal = *std::get<std::unique_ptr<Journal>>(opened);
    bool threw = false;
    try {
      ExchangeCore core(config, journal);
    } catch (const std::runtime_error& e) {
      threw = std::string(e.what()).find("cannot record market history") != std::string::npos;
    }
    QVERIFY(threw);
  }
};

QTEST_GUILESS_MAIN(ExchangeRecordingTest)
#include "test_exchange_recording.moc"
