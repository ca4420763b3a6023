#pragma once
// Test accounts whose API key is "<name>-key", and the key check the server's LogonGate makes,
// for tests and fuzz targets that drive ExchangeCore without a server. No sockets here, so a
// fuzz target can include it.
#include "core/net/ApiKey.h"
#include "core/net/ClientMessage.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/LogonGate.h"

#include <string>

namespace tessera::net::testing {

inline AccountConfig account(const std::string& name, Money cash, bool house = false) {
  AccountConfig a;
  a.name = name;
  // The cheapest Argon2id: test keys are no secret, and the tests log on thousands of times.
  a.keyHash = hashApiKey(name + "-key", KeyHashCost::minimal());
  a.cash = cash;
  a.house = house;
  return a;
}

// What ExchangeServer's LogonGate does before a logon reaches ExchangeCore, done on the
// caller's thread: for tests that drive ExchangeCore without a server.
inline void checkLogonKey(const ExchangeConfig& config, ClientMessage& m) {
  if (auto* l = std::get_if<Logon>(&m.request)) {
    l->check = logonKeyMatches(config.accounts, l->account, l->key) ? LogonCheck::Verified : LogonCheck::Refused;
  }
}

}  // namespace tessera::net::testing
