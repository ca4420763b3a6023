// tessera-cli buy --on-fill and the config file, as a user runs them: the tessera-cli program
// against a tessera-exchange program on loopback, both started here, with a temporary HOME,
// XDG_CONFIG_HOME and XDG_DATA_HOME.
#include "CliTestSupport.h"
#include "ExchangeProcess.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace tessera;
using namespace tessera::net;
using namespace tessera::net::testing;
using nlohmann::json;

namespace {

std::string slurp(const QString& path) {
  std::ifstream f(path.toStdString());
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

}  // namespace

class TestCliOnFill : public QObject {
  Q_OBJECT
 private slots:
  // A buy that fills in two parts runs its command once per contract, with the contract in its
  // environment; the watcher run again (a restart) finds both done and runs nothing.
  // Fails if the watcher ignores its state file (ClientCommand.cpp: `!state.started(c.id)`
  // dropped): the restart runs the command twice more.
  void runsTheCommandOncePerContract() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    const std::uint16_t port = exchange.port();
    QTemporaryDir home;
    const QStringList env = {"HOME=" + home.path(), "XDG_DATA_HOME=" + home.path() + "/data", "XDG_CONFIG_HOME="};
    const std::string ran = home.path().toStdString() + "/ran.txt";
    ProgramResult r = runProgram(QStringLiteral(TESSERA_CLI_BIN),
                                 withConnection(port, "provider",
                                                {"place", "--side", "sell", "--cluster", "1", "--gpus", "4", "--start",
                                                 hour(kNow), "--end", hour(kNow + 4), "--limit-usd", "2"}));
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());

    const std::vector<std::string> buy =
        withConnection(port, "alice",
                       {"buy", "--cluster", "1", "--gpus", "8", "--start", hour(kNow), "--end", hour(kNow + 4),
                        "--limit-usd", "2.5", "--yes", "--on-fill",
                        "echo \"$TESSERA_CONTRACT_ID $TESSERA_GPUS $TESSERA_CLUSTER $TESSERA_START $TESSERA_END "
                        "$TESSERA_HOURS $TESSERA_PRICE_USD ${TESSERA_API_KEY:-nokey}\" >> " +
                            ran + "; exit 3"});
    QProcess watcher;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
    watcher.setProcessEnvironment(e);
    QStringList args;
    for (const std::string& a : buy) args << QString::fromStdString(a);
    watcher.start(QStringLiteral(TESSERA_CLI_BIN), args);
    QVERIFY(watcher.waitForStarted(5000));
    // The first half fills at once; the watcher keeps watching the rest.
    QVERIFY(eventually([&] { return slurp(QString::fromStdString(ran)).find('\n') != std::string::npos; }));
    QCOMPARE(watcher.state(), QProcess::Running);
    r = runProgram(QStringLiteral(TESSERA_CLI_BIN),
                   withConnection(port, "provider",
                                  {"place", "--side", "sell", "--cluster", "1", "--gpus", "4", "--start", hour(kNow),
                                   "--end", hour(kNow + 4), "--limit-usd", "2.2"}));
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY(watcher.waitForFinished(15000));
    const std::string out = watcher.readAllStandardOutput().toStdString();
    QVERIFY2(watcher.exitCode() == 0, (out + watcher.readAllStandardError().toStdString()).c_str());
    QVERIFY2(out.find("on-fill: contract 1: the command exited with status 3") != std::string::npos, out.c_str());
    QVERIFY2(out.find("on-fill: contract 2: the command exited with status 3") != std::string::npos, out.c_str());
    QVERIFY2(out.find("is done") != std::string::npos, out.c_str());
    const std::string expected =
        "1 4 test-h100 2038-06-13T00:00:00Z 2038-06-13T04:00:00Z 4 2.000000 nokey\n"
        "2 4 test-h100 2038-06-13T00:00:00Z 2038-06-13T04:00:00Z 4 2.500000 nokey\n";
    QCOMPARE(QString::fromStdString(slurp(QString::fromStdString(ran))), QString::fromStdString(expected));

    // The watcher run again: the order is found placed and filled, every contract done.
    r = runProgram(QStringLiteral(TESSERA_CLI_BIN), buy, {}, env);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("already_placed") != std::string::npos, r.out.c_str());
    QVERIFY2(r.out.find("running") == std::string::npos, r.out.c_str());
    QCOMPARE(QString::fromStdString(slurp(QString::fromStdString(ran))), QString::fromStdString(expected));
    // The state is in the user's data folder, and says what ran and how it ended.
    const std::string state =
        slurp(home.path() + "/data/tessera/on-fill/127.0.0.1_" + QString::number(port) + "-alice.log");
    QVERIFY2(state.find("started 1 ") != std::string::npos && state.find("exited 1 3") != std::string::npos,
             state.c_str());
    QVERIFY2(state.find("started 2 ") != std::string::npos && state.find("exited 2 3") != std::string::npos,
             state.c_str());
  }

  // Host, account and key from ~/.config/tessera/cli.toml (or $XDG_CONFIG_HOME, or --config):
  // daily commands are the verb alone; the command line wins over the file.
  // Fails without the config file option (Parser: no `set_config`): `balance` alone is exit 2.
  void readsTheConnectionFromTheConfigFile() {
    ExchangeProcess exchange(QStringLiteral(TESSERA_EXCHANGE_BIN), marketConfig());
    QTemporaryDir home;
    QVERIFY(QDir(home.path()).mkpath(".config/tessera"));
    std::ofstream(home.path().toStdString() + "/.config/tessera/cli.toml")
        << "# tessera-cli's daily options\nconnect = \"127.0.0.1:" << exchange.port()
        << "\"\naccount = \"alice\"\nkey = \"alice-key\"\ntimeout = 5\n";
    const QStringList env = {"HOME=" + home.path(), "XDG_CONFIG_HOME="};
    ProgramResult r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"balance"}, {}, env);
    QVERIFY2(r.code == 0, (r.out + r.err).c_str());
    QVERIFY2(r.out.find("cash=$10000.0000") != std::string::npos, r.out.c_str());
    r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"--account", "bob", "--key", "bob-key", "balance"}, {}, env);
    QVERIFY2(r.code == 0 && r.out.find("cash=$100.0000") != std::string::npos, (r.out + r.err).c_str());

    // `plan` without --connect still plans on a script, config file or not.
    const std::string script =
        "{\"type\":\"cluster\",\"id\":1,\"name\":\"c1\"}\n"
        "{\"type\":\"capacity\",\"account\":\"p\",\"cluster\":1,\"gpus\":8,\"start\":0,\"end\":48}\n"
        "{\"type\":\"order\",\"id\":1,\"account\":\"p\",\"side\":\"sell\",\"cluster\":1,\"gpus\":8,"
        "\"start\":0,\"end\":48,\"limit_usd\":2}\n";
    r = runProgram(
        QStringLiteral(TESSERA_CLI_BIN),
        {"plan", "--workload", std::string(TESSERA_SOURCE_DIR) + "/resources/workloads/finetune-8b-single-node.json",
         "--start-in", "0", "--latest-start-in", "2"},
        script, env);
    QVERIFY2(r.code == 0 && r.out.find("1. c1: 8 x H100") != std::string::npos, (r.out + r.err).c_str());

    // $XDG_CONFIG_HOME first; --config names another file.
    QVERIFY(QDir(home.path()).mkpath("xdg/tessera"));
    std::ofstream(home.path().toStdString() + "/xdg/tessera/cli.toml")
        << "connect = \"127.0.0.1:" << exchange.port() << "\"\naccount = \"bob\"\nkey = \"bob-key\"\n";
    r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"balance"}, {},
                   {"HOME=" + home.path(), "XDG_CONFIG_HOME=" + home.path() + "/xdg"});
    QVERIFY2(r.code == 0 && r.out.find("cash=$100.0000") != std::string::npos, (r.out + r.err).c_str());
    r = runProgram(QStringLiteral(TESSERA_CLI_BIN),
                   {"--config", home.path().toStdString() + "/.config/tessera/cli.toml", "balance"}, {},
                   {"HOME=/nonexistent", "XDG_CONFIG_HOME="});
    QVERIFY2(r.code == 0 && r.out.find("cash=$10000.0000") != std::string::npos, (r.out + r.err).c_str());

    // Without a file the connection must be given.
    r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"balance"}, {}, {"HOME=/nonexistent", "XDG_CONFIG_HOME="});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.find("--connect") != std::string::npos, r.err.c_str());
    // A misspelt key in the file is an error, not ignored.
    std::ofstream(home.path().toStdString() + "/bad.toml") << "conect = \"127.0.0.1:1\"\n";
    r = runProgram(QStringLiteral(TESSERA_CLI_BIN), {"--config", home.path().toStdString() + "/bad.toml", "balance"},
                   {}, {"HOME=/nonexistent", "XDG_CONFIG_HOME="});
    QCOMPARE(r.code, 2);
  }
};

QTEST_GUILESS_MAIN(TestCliOnFill)
#include "test_cli_on_fill.moc"
