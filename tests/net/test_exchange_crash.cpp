// Kill -9 a real tessera-exchange in the middle of a stream of orders, restart it on the same
// journal, and check that every order and fill it acknowledged is still there, and that
// nothing is half-applied (cash reserved == what the working bids need).
#include "NetTestSupport.h"
#include "../ProgramRun.h"
#include "core/store/Sqlite.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <signal.h>
#include <sqlite3.h>

#include <atomic>
#include <map>
#include <set>
#include <thread>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

constexpr Price kDollar = kMicrosPerDollar;

std::string accountsFile() {
  json accounts = json::array();
  for (const AccountConfig& a : marketConfig().accounts) {
    accounts.push_back({{"name", a.name}, {"key_hash", a.keyHash}, {"cash", a.cash}});
  }
  json doc{
      {"initial_clock", kNow},
      {"accounts", accounts},
      {"clusters", json::array({json{{"id", 1}, {"name", "crash-h100"}, {"node_count", 64}}})},
      {"grants",
       json::array({json{
           {"account", "provider"}, {"cluster", "crash-h100"}, {"gpus", 512}, {"start", kNow}, {"end", kNow + 200}}})}};
  return doc.dump(2);
}

// accountsFile() in `dir`; its path, or empty if it cannot be written.
QString writeAccountsFile(const QTemporaryDir& dir) {
  const QString path = dir.filePath("accounts.json");
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(QByteArray::fromStdString(accountsFile()));
  return path;
}

class Exchange {
 public:
  Exchange(const QString& db, const QString& accounts, const QStringList& extra = {}, const QStringList& env = {}) {
    process_.setProgram(QStringLiteral(TESSERA_EXCHANGE_BIN));
    process_.setArguments(QStringList{"--port", "0", "--db", db, "--accounts", accounts, "--no-wall-clock"} + extra);
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    process_.setProcessEnvironment(e);
    process_.setProcessChannelMode(QProcess::SeparateChannels);
    process_.start();
    if (!process_.waitForStarted(5000)) qFatal("cannot start tessera-exchange");
    QString out;
    const QRegularExpression re("listening on 127\\.0\\.0\\.1:(\\d+)");
    for (int i = 0; i < 100 && !re.match(out).hasMatch(); ++i) {
      process_.waitForReadyRead(100);
      out += QString::fromUtf8(process_.readAllStandardOutput());
    }
    const auto m = re.match(out);
    if (!m.hasMatch())
      qFatal("tessera-exchange did not start: %s %s", qPrintable(out), process_.readAllStandardError().constData());
    port_ = static_cast<std::uint16_t>(m.captured(1).toUInt());
    startLine_ = out;
  }
  ~Exchange() {
    if (process_.state() != QProcess::NotRunning) {
      process_.terminate();
      if (!process_.waitForFinished(5000)) process_.kill();
      process_.waitForFinished(2000);
    }
  }
  std::uint16_t port() const { return port_; }
  QString startLine() const { return startLine_; }
  // What it has logged (stderr) so far.
  QString log() {
    log_ += QString::fromUtf8(process_.readAllStandardError());
    return log_;
  }
  // SIGTERM without waiting (the test reads its replies meanwhile); then waitExit().
  void sigterm() { ::kill(static_cast<pid_t>(process_.processId()), SIGTERM); }
  int waitExit() {
    if (!process_.waitForFinished(10000)) return -2;
    return process_.exitStatus() == QProcess::NormalExit ? process_.exitCode() : -1;
  }
  void kill9() {
    process_.kill();  // SIGKILL: no chance to flush or commit anything
    process_.waitForFinished(5000);
  }
  int terminate() {
    process_.terminate();  // SIGTERM: clean shutdown
    process_.waitForFinished(5000);
    return process_.exitStatus() == QProcess::NormalExit ? process_.exitCode() : -1;
  }

 private:
  QProcess process_;
  std::uint16_t port_ = 0;
  QString startLine_;
  QString log_;
};

// `tessera-exchange --state-digest` on the journal: (digest, the rest of its line, its log).
struct Digest {
  std::string digest, line, log;
};
Digest stateDigest(const QString& db, const QString& accounts, bool fullReplay) {
  std::vector<std::string> args{"--db", db.toStdString(), "--accounts", accounts.toStdString(), "--state-digest"};
  if (fullReplay) args.push_back("--full-replay");
  const tessera::testing::ProgramResult r =
      tessera::testing::runProgram(QStringLiteral(TESSERA_EXCHANGE_BIN), args, {}, {}, 120'000);
  if (r.code != 0 || r.out.rfind("state digest ", 0) != 0) return {"", r.out, r.err};
  return {r.out.substr(13, 16), r.out, r.err};
}

// Sends `n` bids from `who` in one write (a third crossing the provider's asks); the caller
// reads their acknowledgements.
void streamBids(LineClient& who, const std::string& prefix, int n) {
  std::string chunk;
  for (int k = 0; k < n; ++k) {
    const Hour h = kNow + k % 200;
    const Price limit = (k % 3 == 0) ? 2 * kDollar : kDollar / 2;
    chunk += order(prefix + std::to_string(k), "buy", 1, 1, h, h + 1, limit) + "\n";
  }
  who.sendRaw(chunk);
}

}  // namespace

class TestExchangeCrash : public QObject {
  Q_OBJECT
 private slots:
  void everyAcknowledgedOrderSurvivesKill9() {
    QTemporaryDir dir;
    const QString db = dir.filePath("journal.db");
    const QString accounts = writeAccountsFile(dir);
    QVERIFY(!accounts.isEmpty());
    std::map<std::string, OrderId> acked;  // cl_ord_id -> order id
    std::set<ContractId> ackedContracts;
    constexpr int kOrders = 20'000;
    {
      Exchange exchange(db, accounts);
      LineClient provider(exchange.port()), alice(exchange.port());
      QVERIFY(provider.logon("provider"));
      QVERIFY(alice.logon("alice"));
      // Resting asks, then a stream of bids from alice, some crossing: orders and fills in flight.
      std::string asks;
      for (int h = 0; h < 200; ++h)
        asks += order("ask" + std::to_string(h), "sell", 1, 256, kNow + h, kNow + h + 1, kDollar + h * 100) + "\n";
      provider.sendRaw(asks);
      for (int h = 0; h < 200; ++h) QVERIFY(provider.exec("ask" + std::to_string(h)).has_value());
      std::atomic<bool> sending{true};
      std::thread sender([&] {
        try {
          for (int i = 0; i < kOrders && sending; i += 500) {
            std::string chunk;
            for (int k = i; k < i + 500; ++k) {
              const Hour h = kNow + k % 200;
              const Price limit = (k % 3 == 0) ? 2 * kDollar : kDollar / 2;  // a third cross
              chunk += order("b" + std::to_string(k), "buy", 1, 1, h, h + 1, limit) + "\n";
            }
            alice.sendRaw(chunk);
          }
        } catch (...) {
          // The server died under us: that is the point.
        }
      });
      while (acked.size() < 3000) {
        auto j = alice.read(std::chrono::milliseconds(5000));
        QVERIFY2(j.has_value(), "acks stopped before the kill");
        if ((*j)["type"] != "exec") continue;
        if ((*j)["state"] == "accepted") acked[(*j)["cl_ord_id"]] = (*j)["order_id"];
        if ((*j)["state"] == "filled") ackedContracts.insert((*j)["contract"].get<ContractId>());
      }
      exchange.kill9();
      sending = false;
      // Whatever was already on the wire when it died counts as acknowledged too.
      while (auto j = alice.read(std::chrono::milliseconds(200))) {
        if ((*j)["type"] != "exec") continue;
        if ((*j)["state"] == "accepted") acked[(*j)["cl_ord_id"]] = (*j)["order_id"];
        if ((*j)["state"] == "filled") ackedContracts.insert((*j)["contract"].get<ContractId>());
      }
      alice.close();
      provider.close();
      sender.join();
    }
    QVERIFY(acked.size() >= 3000);
    QVERIFY(acked.size() < static_cast<std::size_t>(kOrders));  // it really died mid-stream
    QVERIFY(!ackedContracts.empty());

    Exchange again(db, accounts);
    QVERIFY2(again.startLine().contains("replayed"), qPrintable(again.startLine()));
    LineClient alice(again.port());
    QVERIFY(alice.logon("alice"));
    // Every acknowledged order is known, under the same exchange id.
    std::string queries;
    for (const auto& [cl, id] : acked) queries += "{\"type\":\"order_status\",\"cl_ord_id\":\"" + cl + "\"}\n";
    alice.sendRaw(queries);
    std::size_t found = 0;
    Money workingNeeds = 0;
    for (std::size_t i = 0; i < acked.size(); ++i) {
      auto j = alice.read(std::chrono::milliseconds(5000));
      QVERIFY(j.has_value());
      QVERIFY2((*j)["type"] == "order_status", j->dump().c_str());
      QCOMPARE((*j)["order_id"].get<OrderId>(), acked.at((*j)["cl_ord_id"]));
      ++found;
    }
    QCOMPARE(found, acked.size());
    // Every acknowledged fill is a contract.
    json pos{{"contracts", json::array()}};
    for (std::string after;;) {  // in pages (docs/protocol.md, positions)
      alice.send("{\"type\":\"positions\"" + after + "}");
      const json page = *alice.until("positions", std::chrono::milliseconds(10000));
      for (const json& c : page["contracts"]) pos["contracts"].push_back(c);
      if (!page.contains("next_after")) break;
      after = ",\"after_contract\":" + page["next_after"].dump();
    }
    std::set<ContractId> contracts;
    for (const json& c : pos["contracts"]) contracts.insert(c["contract"].get<ContractId>());
    for (ContractId c : ackedContracts) QVERIFY(contracts.count(c));
    // Nothing half-applied: the reservation is exactly what the working bids need, and the
    // cash spent is exactly the contracts' notional.
    alice.send("{\"type\":\"orders\"}");
    const json orders = *alice.until("orders", std::chrono::milliseconds(10000));
    for (const json& o : orders["orders"])
      workingNeeds += o["order"]["limit"].get<Price>() * o["leaves_gpu_hours"].get<Money>();
    alice.send("{\"type\":\"balance\"}");
    const json balance = *alice.until("balance");
    QCOMPARE(balance["reserved"].get<Money>(), workingNeeds);
    Money spent = 0;
    for (const json& c : pos["contracts"]) {
      spent += c["price"].get<Price>() * c["gpus"].get<Money>() * (c["end"].get<Hour>() - c["start"].get<Hour>());
    }
    QCOMPARE(balance["cash"].get<Money>(), 10'000 * kDollar - spent);
    // And it keeps trading: a new order gets a fresh id. The provider places it, as a listing
    // priced above every bid: how much of alice's cash the stream used depends on how far the
    // exchange got before the kill (a fast one spends it all), but the provider's holdings do not.
    LineClient provider(again.port());
    QVERIFY(provider.logon("provider"));
    provider.send(order("after-restart", "sell", 1, 1, kNow + 5, kNow + 6, 50 * kDollar));
    const json ack = *provider.exec("after-restart");
    QVERIFY2(ack["state"].get<std::string>() == "accepted", ack.dump().c_str());
    for (const auto& [cl, id] : acked) QVERIFY(ack["order_id"].get<OrderId>() != id);
    QCOMPARE(again.terminate(), 0);  // SIGTERM: clean exit
  }

  // A snapshot is written by its own thread in one SQLite transaction; a kill -9 while it is
  // being written (TESSERA_SNAPSHOT_WRITE_PAUSE_MS holds the transaction open) must leave the
  // earlier snapshot usable, lose no acknowledged order, and start-up from the snapshots must
  // give the state a full replay gives. A damaged snapshot is passed over with a warning.
  // Seen failing with SnapshotStore::write dropping the older snapshots before its own
  // transaction (no snapshot is left after the kill), and with SnapshotStore::read not checking
  // the checksum (the damaged snapshot is not reported as such).
  void kill9WhileASnapshotIsWrittenLosesNothing() {
    QTemporaryDir dir;
    const QString db = dir.filePath("journal.db");
    const QString accounts = writeAccountsFile(dir);
    QVERIFY(!accounts.isEmpty());
    std::map<std::string, OrderId> acked;
    auto readAcks = [&](LineClient& c, std::size_t until, int waitMs) {
      while (acked.size() < until) {
        auto j = c.read(std::chrono::milliseconds(waitMs));
        if (!j) return false;
        if ((*j)["type"] == "exec" && (*j)["state"] == "accepted") acked[(*j)["cl_ord_id"]] = (*j)["order_id"];
      }
      return true;
    };
    std::string asks;
    for (int h = 0; h < 200; ++h)
      asks += order("ask" + std::to_string(h), "sell", 1, 256, kNow + h, kNow + h + 1, kDollar + h * 100) + "\n";
    {
      // First run: snapshots every 500 entries, written at once; a clean stop writes the last.
      Exchange exchange(db, accounts, {"--snapshot-every-entries", "500"});
      LineClient provider(exchange.port()), alice(exchange.port());
      QVERIFY(provider.logon("provider"));
      QVERIFY(alice.logon("alice"));
      provider.sendRaw(asks);
      for (int h = 0; h < 200; ++h) QVERIFY(provider.exec("ask" + std::to_string(h)).has_value());
      streamBids(alice, "a", 1500);
      QVERIFY(readAcks(alice, 1500, 5000));
      QCOMPARE(exchange.terminate(), 0);
      // While it runs a child process serializes each snapshot (ChildSnapshot.h).
      QVERIFY2(exchange.log().contains("serializes it"), qPrintable(exchange.log()));
      QVERIFY2(exchange.log().contains("written"), qPrintable(exchange.log()));
    }
    {
      // Second run: the writer holds each snapshot's transaction open for 30 s; killed while
      // it does.
      Exchange exchange(db, accounts, {"--snapshot-every-entries", "500"}, {"TESSERA_SNAPSHOT_WRITE_PAUSE_MS=30000"});
      QVERIFY2(exchange.log().contains("started from snapshot"), qPrintable(exchange.log()));
      LineClient alice(exchange.port());
      QVERIFY(alice.logon("alice"));
      streamBids(alice, "b", 1500);
      QVERIFY(readAcks(alice, 3000, 5000));
      for (int i = 0; i < 100 && !exchange.log().contains("serializes it"); ++i) QTest::qWait(50);
      QVERIFY2(exchange.log().contains("serializes it"), qPrintable(exchange.log()));
      exchange.kill9();
      while (auto j = alice.read(std::chrono::milliseconds(200)))
        if ((*j)["type"] == "exec" && (*j)["state"] == "accepted") acked[(*j)["cl_ord_id"]] = (*j)["order_id"];
      QVERIFY2(!exchange.log().contains("written in"), qPrintable(exchange.log()));  // it died mid-write
    }
    // The snapshot being written is not there; the first run's last one is, and it plus the
    // later entries is the state of a full replay.
    const Digest full = stateDigest(db, accounts, true);
    const Digest fromSnapshot = stateDigest(db, accounts, false);
    QVERIFY2(!full.digest.empty(), (full.line + full.log).c_str());
    QVERIFY2(fromSnapshot.line.find("snapshot after entry") != std::string::npos, fromSnapshot.line.c_str());
    QCOMPARE(fromSnapshot.digest, full.digest);
    qInfo("full replay: %s from the snapshots: %s", full.line.c_str(), fromSnapshot.line.c_str());
    {
      // Nothing acknowledged is lost.
      Exchange again(db, accounts);
      LineClient alice(again.port());
      QVERIFY(alice.logon("alice"));
      std::string queries;
      for (const auto& [cl, id] : acked) queries += "{\"type\":\"order_status\",\"cl_ord_id\":\"" + cl + "\"}\n";
      alice.sendRaw(queries);
      for (std::size_t i = 0; i < acked.size(); ++i) {
        auto j = alice.read(std::chrono::milliseconds(5000));
        QVERIFY(j.has_value());
        QVERIFY2((*j)["type"] == "order_status", j->dump().c_str());
        QCOMPARE((*j)["order_id"].get<OrderId>(), acked.at((*j)["cl_ord_id"]));
      }
      QCOMPARE(again.terminate(), 0);
    }
    // Damage the newest snapshot's bytes: start-up says so and uses the one before it, or the
    // whole journal; never a wrong state.
    {
      auto opened = store::SqliteDb::open((db + ".snapshots").toStdString(), SQLITE_OPEN_READWRITE, 5000);
      QVERIFY(std::holds_alternative<store::SqliteDb>(opened));
      const store::SqliteDb& sdb = std::get<store::SqliteDb>(opened);
      std::string data;
      {
        store::SqliteStatement q(
            sdb, "SELECT data FROM snapshot_chunk WHERE snapshot = (SELECT max(id) FROM snapshot) AND n = 0");
        QVERIFY2(q.ok(), sdb.lastError().c_str());
        QCOMPARE(sqlite3_step(q), SQLITE_ROW);
        data.assign(static_cast<const char*>(sqlite3_column_blob(q, 0)),
                    static_cast<std::size_t>(sqlite3_column_bytes(q, 0)));
      }
      QVERIFY(data.size() > 1000);
      data[data.size() / 2] ^= 0x10;  // one bit in the middle
      {
        store::SqliteStatement u(
            sdb, "UPDATE snapshot_chunk SET data = ? WHERE snapshot = (SELECT max(id) FROM snapshot) AND n = 0");
        QVERIFY2(u.ok(), sdb.lastError().c_str());
        sqlite3_bind_blob(u, 1, data.data(), static_cast<int>(data.size()), SQLITE_STATIC);
        QCOMPARE(sqlite3_step(u), SQLITE_DONE);
      }
      QCOMPARE(sqlite3_changes(sdb), 1);
    }
    const Digest fullAfter = stateDigest(db, accounts, true);
    const Digest fallback = stateDigest(db, accounts, false);
    QVERIFY2(fallback.log.find("is damaged") != std::string::npos, fallback.log.c_str());
    QCOMPARE(fallback.digest, fullAfter.digest);
    qInfo("after damage: %s", fallback.line.c_str());
  }

  // SIGTERM in the middle of a stream of orders: every order the exchange applied was answered
  // before it exited, and none it answered is missing after a restart.
  void sigtermAnswersWhatItApplied() {
    QTemporaryDir dir;
    const QString db = dir.filePath("journal.db");
    const QString accounts = writeAccountsFile(dir);
    QVERIFY(!accounts.isEmpty());
    std::set<std::string> acked;
    int sent = 0;
    {
      Exchange exchange(db, accounts);
      LineClient alice(exchange.port());
      QVERIFY(alice.logon("alice"));
      bool sending = true, terminated = false;
      auto burst = [&](int chunks) {
        for (int c = 0; c < chunks && sending; ++c) {
          std::string bytes;
          for (int k = sent; k < sent + 50; ++k)
            bytes += order("t" + std::to_string(k), "buy", 1, 1, kNow + 10, kNow + 11, 10) + "\n";
          if (alice.trySend(bytes))
            sent += 50;
          else
            sending = false;
        }
      };
      for (int round = 0; round < 2000 && !alice.sawClose(); ++round) {
        burst(1);
        while (auto j = alice.read(std::chrono::milliseconds(2))) {
          if ((*j)["type"] == "exec" && (*j)["state"] == "accepted") acked.insert((*j)["cl_ord_id"].get<std::string>());
        }
        if (!terminated && acked.size() >= 500) {
          burst(20);  // still being worked through when the signal comes
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          exchange.sigterm();
          terminated = true;
        }
      }
      while (auto j = alice.read(std::chrono::milliseconds(5000))) {
        if ((*j)["type"] == "exec" && (*j)["state"] == "accepted") acked.insert((*j)["cl_ord_id"].get<std::string>());
      }
      QVERIFY(terminated);
      QCOMPARE(exchange.waitExit(), 0);
    }
    QVERIFY(acked.size() >= 500);
    qInfo("sent %d orders, %zu acknowledged before the exchange exited", sent, acked.size());
    Exchange again(db, accounts);
    LineClient alice(again.port());
    QVERIFY(alice.logon("alice"));
    alice.send("{\"type\":\"orders\"}");
    const auto orders = alice.until("orders", std::chrono::milliseconds(10000));
    QVERIFY(orders.has_value());
    std::set<std::string> applied;
    for (const json& o : (*orders)["orders"]) applied.insert(o["cl_ord_id"].get<std::string>());
    QCOMPARE(applied.size(), acked.size());
    QVERIFY(applied == acked);
  }
};

QTEST_GUILESS_MAIN(TestExchangeCrash)
#include "test_exchange_crash.moc"
