#pragma once
// A tessera-exchange process on loopback started from an ExchangeConfig (its accounts file
// written to a temporary folder), for tests at the boundary a user crosses.
#include "../ProgramRun.h"
#include "core/engine/EventJson.h"
#include "core/net/ExchangeConfig.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::net::testing {

using tessera::testing::ProgramResult;
using tessera::testing::runProgram;

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
        grants.push_back(
            {{"account", g.account}, {"cluster", g.cluster}, {"gpus", g.gpus}, {"start", g.start}, {"end", g.end}});
      nlohmann::json doc{{"accounts", list}, {"clusters", clusters}, {"grants", grants}};
      if (config.initialClock) doc["initial_clock"] = *config.initialClock;
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
