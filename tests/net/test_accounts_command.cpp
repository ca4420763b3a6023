// `tessera-exchange accounts add/rotate-key` and the accounts file's key hashes, through the
// real binary: the key printed once logs on to a real tessera-exchange started on the file,
// the file keeps its other entries, and a file with an old-style (salted SHA-256) hash is
// refused at start with the command that fixes it.
#include "NetTestSupport.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

struct Run {
  int code = -1;
  std::string out, err;
};

Run runExchange(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(TESSERA_EXCHANGE_BIN), args);
  Run r;
  if (!p.waitForStarted(5000)) return r;
  if (!p.waitForFinished(20000)) {
    p.kill();
    p.waitForFinished(2000);
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput().toStdString();
  r.err = p.readAllStandardError().toStdString();
  return r;
}

json readJson(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return json();
  return json::parse(f.readAll().toStdString(), nullptr, false);
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// A tessera-exchange on an ephemeral port, stopped with SIGTERM at the end.
class Exchange {
 public:
  explicit Exchange(const QString& accounts) {
    process_.start(QStringLiteral(TESSERA_EXCHANGE_BIN),
                   {"--port", "0", "--db", ":memory:", "--accounts", accounts, "--no-wall-clock"});
    process_.waitForStarted(5000);
    const QRegularExpression re("listening on 127\\.0\\.0\\.1:(\\d+)");
    QString out;
    for (int i = 0; i < 100 && !re.match(out).hasMatch() && process_.state() == QProcess::Running; ++i) {
      process_.waitForReadyRead(100);
      out += QString::fromUtf8(process_.readAllStandardOutput());
    }
    const auto m = re.match(out);
    if (m.hasMatch()) port_ = static_cast<std::uint16_t>(m.captured(1).toUInt());
  }
  ~Exchange() {
    process_.terminate();
    if (!process_.waitForFinished(5000)) process_.kill();
    process_.waitForFinished(2000);
  }
  std::uint16_t port() const { return port_; }

 private:
  QProcess process_;
  std::uint16_t port_ = 0;
};

}  // namespace

class TestAccountsCommand : public QObject {
  Q_OBJECT
 private slots:
  void addPrintsAKeyThatLogsOn() {
    QTemporaryDir dir;
    const QString file = dir.filePath("accounts.json");
    Run r = runExchange({"accounts", "add", "erin", "--cash", "1500.25", "--house", "--file", file});
    QCOMPARE(r.code, 0);
    const std::string erinKey = trimmed(r.out);
    QCOMPARE(erinKey.size(), std::size_t(43));
    r = runExchange({"accounts", "add", "frank", "--cash", "10", "--file", file});
    QCOMPARE(r.code, 0);
    const std::string frankKey = trimmed(r.out);
    QVERIFY(frankKey != erinKey);
    json j = readJson(file);
    QCOMPARE(j["accounts"].size(), std::size_t(2));
    const json erin = j["accounts"][0];
    QCOMPARE(erin["name"].get<std::string>(), std::string("erin"));
    QCOMPARE(erin["cash"].get<Money>(), Money(1'500'250'000));
    QCOMPARE(erin["house"].get<bool>(), true);
    QVERIFY(!erin.contains("salt"));
    const std::string hash = erin["key_hash"].get<std::string>();
    QVERIFY2(hash.rfind("$argon2id$v=19$m=32768,t=2,p=1$", 0) == 0, hash.c_str());  // the production cost
    QVERIFY(hash.find(erinKey) == std::string::npos);
    struct stat st {};
    QCOMPARE(::stat(file.toUtf8().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777, 0600u);  // key hashes are nobody else's business
    // A name already there is refused and the file left as it was.
    r = runExchange({"accounts", "add", "erin", "--cash", "1", "--file", file});
    QCOMPARE(r.code, 1);
    QVERIFY(r.err.find("already") != std::string::npos);
    QCOMPARE(readJson(file), j);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // no temporary left
    // Bad usage says so.
    QCOMPARE(runExchange({"accounts", "add", "gina", "--file", file}).code, 2);
    QCOMPARE(runExchange({"accounts", "add", "gina", "--cash", "1.0000001", "--file", file}).code, 2);
    QCOMPARE(runExchange({"accounts", "rotate-key", "nobody", "--file", file}).code, 1);

    Exchange x(file);
    QVERIFY(x.port() != 0);
    LineClient c(x.port());
    QCOMPARE(c.logonReply("erin", erinKey)["type"].get<std::string>(), std::string("logon_ack"));
    LineClient f(x.port(), "127.0.0.2");
    QCOMPARE(f.logonReply("frank", erinKey)["code"].get<std::string>(), std::string("auth_failed"));
  }

  // Fails if loadAccountsFile accepts the old form (the exchange then starts and nobody can
  // log on), or if rotate-key leaves the salt or the old hash behind.
  void oldStyleHashesAreRefusedUntilRotated() {
    QTemporaryDir dir;
    const QString file = dir.filePath("accounts.json");
    const std::string bobHash = hashApiKey("bob-key", KeyHashCost::minimal());
    const json old{
        {"initial_clock", kNow},
        {"accounts", json::array({json{{"name", "alice"},
                                       {"salt", "salt-alice"},
                                       {"key_hash", "f7a380b27e79c16682386d71fb410ce09d954a9a492aa73c8dc7a1b5a0c6bd15"},
                                       {"cash", 5}},
                                  json{{"name", "bob"}, {"key_hash", bobHash}, {"cash", 7}}})},
        {"clusters", json::array({json{{"id", 1}, {"name", "h100"}, {"node_count", 8}}})}};
    {
      QFile f(file);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(old.dump(2)));
    }
    Run r = runExchange({"--port", "0", "--db", ":memory:", "--accounts", file});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("tessera-exchange accounts rotate-key alice") != std::string::npos, r.err.c_str());

    r = runExchange({"accounts", "rotate-key", "alice", "--file", file});
    QCOMPARE(r.code, 0);
    const std::string aliceKey = trimmed(r.out);
    const json now = readJson(file);
    QVERIFY(!now["accounts"][0].contains("salt"));
    QVERIFY(verifyApiKey(now["accounts"][0]["key_hash"].get<std::string>(), aliceKey));
    QCOMPARE(now["accounts"][0]["cash"].get<int>(), 5);
    QCOMPARE(now["accounts"][1], old["accounts"][1]);  // bob untouched
    QCOMPARE(now["clusters"], old["clusters"]);
    QCOMPARE(now["initial_clock"], old["initial_clock"]);
    {
      Exchange x(file);
      QVERIFY(x.port() != 0);
      LineClient a(x.port()), b(x.port(), "127.0.0.2");
      QCOMPARE(a.logonReply("alice", aliceKey)["type"].get<std::string>(), std::string("logon_ack"));
      QVERIFY(b.logon("bob"));
    }
    // Rotating again retires the key printed before.
    r = runExchange({"accounts", "rotate-key", "alice", "--file", file});
    QCOMPARE(r.code, 0);
    Exchange x(file);
    LineClient a(x.port());
    QCOMPARE(a.logonReply("alice", aliceKey)["code"].get<std::string>(), std::string("auth_failed"));
    // The failure slows down that address, not alice's new key from elsewhere.
    LineClient a2(x.port(), "127.0.0.2");
    QCOMPARE(a2.logonReply("alice", trimmed(r.out))["type"].get<std::string>(), std::string("logon_ack"));
  }
};

QTEST_GUILESS_MAIN(TestAccountsCommand)
#include "test_accounts_command.moc"
