#pragma once
// The body of the protocol fuzz target (fuzz_exchange_core.cpp): a whole ExchangeCore on an
// in-memory journal, fed the input's lines as the server would feed them. Shared with
// test_exchange_core_fuzz_body, which runs it over the seed corpus (tests/net/corpus/exchange)
// and a few thousand mutations in every CI build, without libFuzzer.
//
// Input: lines separated by '\n'. A line is sent by alice unless it starts with "@N " (N = 1
// alice, 2 provider, 3 house-mm, 4 a session that never logged on), which is taken off. The
// line "@tick" advances the exchange clock one hour. Logons are checked the way the server's
// LogonGate checks them (the accounts' keys are "<name>-key"). Every reply line must be a JSON
// object, the fast parser must agree with the tree parser, and the journal replayed into a
// fresh core must give every account the same cash, reservations and escrow.
#include "core/net/ClientMessage.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/ExchangeCore.h"
#include "core/net/FlatMessageParser.h"
#include "core/net/Journal.h"
#include "core/net/ApiKey.h"
#include "core/net/LogonGate.h"
#include "TestAccounts.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace tessera::net::fuzz {

inline constexpr Hour kFuzzNow = 600'000;  // a Saturday; 600'024 is a Monday (forward weeks)

inline const ExchangeConfig& exchangeFuzzConfig() {
  static const ExchangeConfig config = [] {
    ExchangeConfig c;
    c.dbPath = ":memory:";
    c.initialClock = kFuzzNow;
    c.followWallClock = false;
    using testing::account;
    c.accounts = {account("alice", 10'000 * kMicrosPerDollar, false), account("provider", 0, false),
                  account("house-mm", 0, true)};
    Cluster a;
    a.id = 1;
    a.name = "fuzz-h100";
    a.provider = "provider";
    a.region = "us-east";
    a.nodeCount = 8;
    Cluster b = a;
    b.id = 2;
    b.name = "fuzz-h200";
    b.accelerator = Accelerator::H200;
    b.region = "eu-west";
    b.nodeCount = 2;
    c.clusters = {a, b};
    c.grants = {GrantConfig{"provider", "fuzz-h100", 64, kFuzzNow, kFuzzNow + 96},
                GrantConfig{"provider", "fuzz-h200", 16, kFuzzNow, kFuzzNow + 96}};
    // The H200 cluster trades in calls, one at every clock step ("@tick"): the call mode's
    // orders, cancels, calls and legs go through the same replay check.
    c.callMode.clusters = {"fuzz-h200"};
    c.callMode.atEachHour = true;
    c.callMode.nodeLimit = 1'000;
    c.callMode.seconds = 10;
    return c;
  }();
  return config;
}

// Every line the exchange writes must be one JSON object: a client parses them.
inline void checkLines(std::string_view bytes) {
  while (!bytes.empty()) {
    const std::size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) std::abort();  // a reply without its end of line
    const auto j = nlohmann::json::parse(bytes.substr(0, nl), nullptr, false);
    if (j.is_discarded() || !j.is_object()) std::abort();
    bytes.remove_prefix(nl + 1);
  }
}

inline void runExchange(const std::uint8_t* data, std::size_t size) {
  const ExchangeConfig& config = exchangeFuzzConfig();
  auto opened = Journal::open(":memory:", false);
  if (!std::holds_alternative<std::unique_ptr<Journal>>(opened)) std::abort();
  Journal& journal = *std::get<std::unique_ptr<Journal>>(opened);
  ExchangeCore core(config, journal);
  for (SessionId s = 1; s <= 4; ++s) core.sessionOpened(s);
  {
    Outbox out;
    const char* names[] = {"alice", "provider", "house-mm"};
    for (SessionId s = 1; s <= 3; ++s) {
      ClientMessage m{Logon{names[s - 1], "", LogonCheck::Verified, 0}, std::nullopt};
      core.handle(s, m, out);
    }
    core.finishBatch(out);
    journal.commit();
  }
  std::string_view input(reinterpret_cast<const char*>(data), size);
  int lines = 0;
  while (!input.empty() && lines++ < 64) {
    const std::size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input.remove_prefix(nl == std::string_view::npos ? input.size() : nl + 1);
    Outbox out;
    SessionId session = 1;
    if (line == "@tick") {
      core.inject(ClockAdvance{core.engine().now() + 1}, "", out);
    } else {
      if (line.size() >= 3 && line[0] == '@' && line[1] >= '1' && line[1] <= '4' && line[2] == ' ') {
        session = static_cast<SessionId>(line[1] - '0');
        line.remove_prefix(3);
      }
      // The fast parser may answer only what the tree parser answers, and the same.
      if (const auto flat = parseFlatMessage(line)) {
        const auto tree = parseClientMessageWithTree(line);
        const auto* t = std::get_if<ClientMessage>(&tree);
        if (!t || t->req != flat->req || t->request.index() != flat->request.index()) std::abort();
      }
      auto parsed = parseClientMessage(line);
      if (auto* m = std::get_if<ClientMessage>(&parsed)) {
        testing::checkLogonKey(config, *m);
        core.handle(session, *m, out);
      } else {
        const auto& e = std::get<ParseError>(parsed);
        if (e.code.empty() || e.reason.empty()) std::abort();
        core.handleParseError(session, e, out);
      }
    }
    core.finishBatch(out);
    journal.commit();
    for (const auto& [id, bytes] : out.toSession) checkLines(bytes);
    checkLines(out.marketData);
  }
  // The journal is the exchange's state: replayed into a fresh core it gives the same books
  // of account.
  ExchangeCore again(config, journal);
  for (const char* name : {"alice", "provider", "house-mm"}) {
    const auto a = core.accounts().find(name), b = again.accounts().find(name);
    if (!a || !b) std::abort();
    if (core.cash(*a) != again.cash(*b) || core.reserved(*a) != again.reserved(*b) ||
        core.escrow(*a) != again.escrow(*b)) {
      std::abort();
    }
  }
}

}  // namespace tessera::net::fuzz
