#pragma once
// The tessera-cli tests' common steps: run tessera-cli against an exchange on loopback as an
// account (TESSERA_CLI_BIN, defined per test), and ask the exchange itself about an account
// over a session of its own.
#include "../ProgramRun.h"
#include "NetTestSupport.h"

#include <QtGlobal>

#include <string>
#include <vector>

namespace tessera::net::testing {

using tessera::testing::ProgramResult;
using tessera::testing::runProgram;

// The --connect options for `account` on `port`, then `args`.
inline std::vector<std::string> withConnection(std::uint16_t port, const std::string& account,
                                               std::vector<std::string> args) {
  std::vector<std::string> all = {"--connect",     "127.0.0.1:" + std::to_string(port), "--account", account, "--key",
                                  account + "-key"};
  all.insert(all.end(), args.begin(), args.end());
  return all;
}

// tessera-cli --connect to `port` as `account`, `input` on its standard input.
inline ProgramResult cli(std::uint16_t port, const std::string& account, std::vector<std::string> args,
                         const std::string& input = {}) {
  return runProgram(QStringLiteral(TESSERA_CLI_BIN), withConnection(port, account, std::move(args)), input);
}

inline std::string hour(Hour h) { return std::to_string(h); }

// marketConfig() and a second H100 cluster of the provider, 3 "test-h100-b", 64 GPUs for 48 hours:
// room for a replacement contract or a second place to buy.
inline ExchangeConfig marketConfigWithSpareH100() {
  ExchangeConfig config = marketConfig();
  Cluster spare = config.clusters[0];
  spare.id = 3;
  spare.name = "test-h100-b";
  config.clusters.push_back(spare);
  config.grants.push_back(GrantConfig{"provider", "test-h100-b", 64, kNow, kNow + 48});
  return config;
}

// What the exchange itself says about an account: a reply to `query` ("positions", "balance",
// "orders") over a session of its own.
inline nlohmann::json ask(std::uint16_t port, const std::string& account, const std::string& query) {
  LineClient c(port);
  if (!c.logon(account)) qFatal("logon of %s failed", account.c_str());
  c.send("{\"type\":\"" + query + "\"}");
  auto j = c.until(query);
  if (!j) qFatal("no %s reply", query.c_str());
  return *j;
}

}  // namespace tessera::net::testing
