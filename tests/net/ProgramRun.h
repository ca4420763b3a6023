#pragma once
// The real programs, as a user runs them: a tessera-exchange process on loopback started from an
// ExchangeConfig (its accounts file written to a temporary folder), and one run of another
// program (tessera-cli, tessera-backtest) with its exit code and output.
#include "core/engine/EventJson.h"
#include "core/net/ExchangeConfig.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::net::testing {

struct ProgramResult {
  int code = -1;  // -1: did not exit normally (crashed, or still running after the timeout)
  std::string out, err;
};

// Runs `program` with `args` to its end (at most `timeoutMs`), `input` on its standard input
// (then closed); `env` entries are "NAME=value" added to the test's environment.
inline ProgramResult runProgram(const QString& program, const std::vector<std::string>& args,
                                const std::string& input = {}, const QStringList& env = {},
                                int timeoutMs = 30'000) {
  QProcess p;
  QStringList list;
  for (const std::string& a : args) list << QString::fromStdString(a);
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  for (const QString& kv : env) e.insert(kv.section('=', 0, 0), kv.section('=', 1));
  p.setProcessEnvironment(e);
  p.start(program, list);
  ProgramResult r;
  if (!p.waitForStarted(5000)) return r;
  p.write(input.data(), static_cast<qint64>(input.size()));
  p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished(2000);
    r.err = "still running after " + std::to_string(timeoutMs) + " ms";
    return r;
  }
  r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = p.readAllStandardOutput().toStdString();
  r.err = p.readAllStandardError().toStdString();
  return r;
}

// A tessera-exchange process serving `config`'s accounts, clusters and grants from an in-memory
// journal, its clock held at config.initialClock. Stopped (SIGTERM) when destroyed.
class ExchangeProcess {
 public:
  ExchangeProcess(const QString& binary, const ExchangeConfig& config) {
    if (!dir_.isValid()) throw std::runtime_error("no temporary folder");
    const QString accounts = dir_.filePath("accounts.json");
    {
      nlohmann::json list = nlohmann::json::array(), clusters = nlohmann::json::array(),
                     grants = nlohmann::json::array();
      for (const AccountConfig& a : config.accounts)
        list.push_back({{"name", a.name}, {"key_hash", a.keyHash}, {"cash", a.cash}, {"house", a.house}});
      for (const Cluster& c : config.clusters) clusters.push_back(toJson(c));
      for (const GrantConfig& g : config.grants)
        grants.push_back({{"account", g.account}, {"cluster", g.cluster}, {"gpus", g.gpus}, {"start", g.start},
                          {"end", g.end}});
      const nlohmann::json doc{{"initial_clock", config.initialClock},
                               {"accounts", list},
                               {"clusters", clusters},
                               {"grants", grants}};
      QFile f(accounts);
      if (!f.open(QIODevice::WriteOnly)) throw std::runtime_error("cannot write the accounts file");
      f.write(QByteArray::fromStdString(doc.dump(2)));
    }
    process_.setProgram(binary);
    process_.setArguments({"--port", "0", "--db", ":memory:", "--accounts", accounts, "--no-wall-clock"});
    process_.start();
    if (!process_.waitForStarted(5000)) throw std::runtime_error("cannot start tessera-exchange");
    QString out;
    const QRegularExpression re("listening on 127\\.0\\.0\\.1:(\\d+)");
    for (int i = 0; i < 100 && !re.match(out).hasMatch(); ++i) {
      process_.waitForReadyRead(100);
      out += QString::fromUtf8(process_.readAllStandardOutput());
    }
    const auto m = re.match(out);
    if (!m.hasMatch())
      throw std::runtime_error("tessera-exchange did not start: " + out.toStdString() +
                               process_.readAllStandardError().toStdString());
    port_ = static_cast<std::uint16_t>(m.captured(1).toUInt());
  }
  ~ExchangeProcess() {
    process_.terminate();
    if (!process_.waitForFinished(5000)) process_.kill();
    process_.waitForFinished(2000);
  }
  ExchangeProcess(const ExchangeProcess&) = delete;
  ExchangeProcess& operator=(const ExchangeProcess&) = delete;
  std::uint16_t port() const { return port_; }

 private:
  QTemporaryDir dir_;
  QProcess process_;
  std::uint16_t port_ = 0;
};

}  // namespace tessera::net::testing
