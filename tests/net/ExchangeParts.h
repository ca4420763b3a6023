#pragma once
// The parts of an exchange (core/net/ExchangeCore.h) wired to one engine, ledger and in-memory
// journal, without the coordinator: for the tests of one part at a time. `apply` gives an input
// to the engine and hands the events to the parts the way a test needs them (contracts to the
// settlement desk, order events to the accounts' records); the rest of the coordinator's work
// (journaling, replies) is what each part's own test leaves out.
#include "EngineScript.h"
#include "core/domain/AccountDirectory.h"
#include "core/engine/Matcher.h"
#include "core/net/ExchangeAccounts.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/ExchangeSessions.h"
#include "core/net/ForwardDesk.h"
#include "core/net/Journal.h"
#include "core/net/JournalReplay.h"
#include "core/net/MarketDataFeed.h"
#include "core/net/SettlementDesk.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/SettlementLedger.h"

#include <memory>
#include <stdexcept>
#include <vector>

namespace tessera::net::testing {

// The order builders of the engine's rule tests (tests/core/EngineScript.h).
using tessera::testing::ask;
using tessera::testing::bid;

inline std::unique_ptr<Journal> memoryJournal() {
  auto opened = Journal::open(":memory:", false);
  if (auto* j = std::get_if<std::unique_ptr<Journal>>(&opened)) return std::move(*j);
  throw std::runtime_error(std::get<std::string>(opened));
}

struct ExchangeParts {
  Limits limits;
  std::unique_ptr<Journal> journal = memoryJournal();
  std::unique_ptr<Matcher> engine = makeMatchingEngine();
  AccountDirectory directory;
  SettlementLedger ledger;
  ContractSettlement settlement{ledger};
  ForwardDesk forwards{ledger, directory};
  JournalReplay replay{*journal, directory};
  MarketDataFeed marketData{*engine, limits};
  ExchangeAccounts accounts{directory, ledger, forwards, *engine, limits};
  ExchangeSessions sessions{accounts};
  SettlementDesk desk{*engine,
                      directory,
                      ledger,
                      settlement,
                      forwards,
                      accounts,
                      marketData,
                      replay,
                      [this](const CapacityTransfer& t, Outbox*) {
                        apply(t);
                        return !rejected_;
                      }};

  // Applies `in` to the engine; new contracts open on the settlement desk. Returns the events.
  std::vector<Event> apply(const InputEvent& in) {
    std::vector<Event> events;
    engine->apply(in, events);
    rejected_ = false;
    for (const Event& e : events) {
      if (std::holds_alternative<OrderRejected>(e)) rejected_ = true;
      if (const auto* cc = std::get_if<ContractCreated>(&e)) desk.contractCreated(cc->contract, nullptr);
    }
    return events;
  }
  // A market at hour `now` with cluster 1 ("h100", of `provider`), on which `provider` holds
  // `gpus` GPUs for `hours` hours. Returns the provider's account.
  AccountId openMarket(Hour now, const std::string& provider, GpuCount gpus, Hour hours) {
    apply(ClockAdvance{now});
    Cluster c;
    c.id = 1;
    c.name = "h100";
    c.provider = provider;
    c.nodeCount = 4;
    apply(c);
    const AccountId id = fund(provider, 0);
    apply(CapacityGrant{id, 1, gpus, now, now + hours});
    return id;
  }
  AccountId fund(const std::string& name, Money cash) {
    ExchangeAccount& a = accounts.named(name);
    a.house = false;
    a.configured = true;
    if (cash > 0) ledger.postChecked({a.id, Book::External}, {a.id, Book::Cash}, cash, "deposit");
    return a.id;
  }

 private:
  bool rejected_ = false;
};

}  // namespace tessera::net::testing
