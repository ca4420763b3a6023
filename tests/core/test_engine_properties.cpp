// Properties that must hold for any input sequence, checked after every input of many random
// scripts, on both matchers: GPU-hours are conserved and never sold twice.
//
// Mutations that make it fail (each seen failing):
// - Inventory::transfer credits the buyer one GPU more (`to.held[...] += gpus` -> `gpus + 1`):
//   the engine's holdings no longer match the events', and a cell holds more than was granted.
// - Both matchers cross any two prices (`crosses` in core/engine/MarketState.h returns true):
//   a contract below its seller's limit, or above a divisible buyer's.
#include "MatcherComparison.h"
#include "RandomScript.h"

#include <QtTest>

#include <map>
#include <tuple>

using namespace tessera;
using namespace tessera::testing;

namespace {

// An independent ledger rebuilt from the events alone: grants add, contracts move.
struct EventLedger {
  std::map<std::tuple<AccountId, ClusterId, Hour>, std::int64_t> held;
  std::map<std::pair<ClusterId, Hour>, std::int64_t> granted;
  void apply(const Event& e) {
    if (const auto* g = std::get_if<CapacityAdded>(&e)) {
      for (Hour h = g->grant.start; h < g->grant.end; ++h) {
        held[{g->grant.account, g->grant.cluster, h}] += g->grant.gpus;
        granted[{g->grant.cluster, h}] += g->grant.gpus;
      }
    } else if (const auto* k = std::get_if<ContractCreated>(&e)) {
      const Contract& c = k->contract;
      for (Hour h = c.start; h < c.end; ++h) {
        held[{c.seller, c.cluster, h}] -= c.gpus;
        held[{c.buyer, c.cluster, h}] += c.gpus;
      }
    }
  }
};

constexpr AccountId kScriptAccounts = 6;  // RandomScript's providers and traders: 1 .. 6

}  // namespace

class EnginePropertiesTest : public QObject {
  Q_OBJECT

  void checkConservation(Matcher& m, std::uint64_t seed) {
    RandomScriptOptions opt;
    opt.seed = seed;
    opt.events = 600;
    EventLedger ledger;
    std::vector<Event> out;
    int inputs = 0;
    for (const auto& in : randomScript(opt)) {
      out.clear();
      m.apply(in, out);
      for (const auto& e : out) {
        ledger.apply(e);
        if (const auto* f = std::get_if<Fill>(&e)) {
          QVERIFY(f->gpus > 0);
          QVERIFY(f->end > f->start);
          QVERIFY(f->leavesGpuHours >= 0);
        }
        if (const auto* k = std::get_if<ContractCreated>(&e)) {
          QVERIFY2(k->contract.buyer != k->contract.seller, "an account traded with itself");
          const auto buy = m.order(k->contract.buyOrder);
          QVERIFY(buy.has_value());
          // An all-or-none buyer's limit bounds the average it pays; a divisible buyer's, every hour.
          if (buy->request.fill == FillStyle::Divisible) QVERIFY(k->contract.price <= buy->request.limit);
          const auto sell = m.order(k->contract.sellOrder);
          QVERIFY(sell.has_value());
          QVERIFY(k->contract.price >= sell->request.limit);
        }
      }
      // After every input: what each account holds is what the events say, never negative, and
      // offered never exceeds held.
      for (const auto& [key, gpus] : ledger.held) {
        const auto [account, cluster, hour] = key;
        const Holding h = m.holding(account, cluster, hour);
        QCOMPARE(static_cast<std::int64_t>(h.held), gpus);
        QVERIFY2(h.held >= 0, "sold GPU-hours that were not held");
        QVERIFY(h.offered >= 0);
        QVERIFY2(h.offered <= h.held, "offered more than held");
      }
      // Every tenth input: per cell, what the engine says every account of the script holds
      // adds up to the capacity granted there (the events' ledger above moves -g/+g, so its own
      // sum would say nothing; the engine's holdings can be wrong for an account the events
      // never name).
      if (++inputs % 10 == 0)
        for (const auto& [cell, gpus] : ledger.granted) {
          std::int64_t held = 0;
          for (AccountId a = 0; a <= kScriptAccounts; ++a) held += m.holding(a, cell.first, cell.second).held;
          QCOMPARE(held, gpus);
        }
      if (QTest::currentTestFailed()) return;
    }
  }

 private slots:
  void gpuHoursConservedFastEngine() {
    for (std::uint64_t seed = 1; seed <= 120; ++seed) {
      auto m = makeMatchingEngine();
      checkConservation(*m, seed);
      if (QTest::currentTestFailed()) return;
    }
  }
  void gpuHoursConservedReferenceMatcher() {
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      auto m = makeReferenceMatcher();
      checkConservation(*m, seed);
      if (QTest::currentTestFailed()) return;
    }
  }
};

QTEST_GUILESS_MAIN(EnginePropertiesTest)
#include "test_engine_properties.moc"
