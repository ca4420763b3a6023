// HeldPositions: what is left of each bought contract after the account's sales.
// - worked examples: a partial sell-back gives a step shape and its realised P&L; overlapping
//   contracts give up GPU-hours oldest first; a sale older than a purchase does not touch it;
//   capacity sold from a grant is realised at its whole price;
// - a property over random purchases and sales: per cluster and hour, what is held plus what was
//   sold from it is what was bought, no contract is held below zero or above its GPUs, and the
//   realised P&L is the proceeds of every sale less the cost of what each took.
#include "ui/session/HeldPositions.h"

#include <QtTest>

#include <map>
#include <random>

using namespace tessera;
using namespace tessera::ui;

namespace {

constexpr AccountId kMe = 7;
constexpr AccountId kOther = 9;

Contract contract(ContractId id, bool bought, ClusterId cluster, GpuCount gpus, Hour start, Hour end, Price price) {
  Contract c;
  c.id = id;
  c.buyer = bought ? kMe : kOther;
  c.seller = bought ? kOther : kMe;
  (bought ? c.buyOrder : c.sellOrder) = id;
  c.cluster = cluster;
  c.gpus = gpus;
  c.start = start;
  c.end = end;
  c.price = price;
  return c;
}

Price markAt(ClusterId, Hour h, Price) { return 2'000'000 + static_cast<Price>(h % 3) * 100'000; }

}  // namespace

class TestHeldPositions : public QObject {
  Q_OBJECT
 private slots:
  void aPartialSellBackLeavesAStep() {
    // 21 GPUs for [100, 124) at $2.00; 10 sold back for [106, 112) at $2.50.
    const auto p =
        heldPositions({contract(1, true, 1, 21, 100, 124, 2'000'000), contract(2, false, 1, 10, 106, 112, 2'500'000)},
                      kMe, 100, markAt);
    QCOMPARE(p.contracts.size(), std::size_t{1});
    const HeldContract& h = p.contracts.front();
    const std::vector<HeldStep> want = {{100, 106, 21}, {106, 112, 11}, {112, 124, 21}};
    QVERIFY(h.held == want);
    QCOMPARE(h.soldGpuHours, std::int64_t{60});
    QCOMPARE(h.realisedPnl, Money{60 * 500'000});
    QCOMPARE(h.soldOnCost, Money{60 * 2'000'000});
    QCOMPARE(h.heldGpusAt(107), 11);
    QCOMPARE(p.totals.realisedPnl, Money{60 * 500'000});
    // From hour 110 on: two sold hours are left, and 2 x 11 + 12 x 21 held GPU-hours.
    const auto later =
        heldPositions({contract(1, true, 1, 21, 100, 124, 2'000'000), contract(2, false, 1, 10, 106, 112, 2'500'000)},
                      kMe, 110, markAt);
    QCOMPARE(later.totals.soldOnCost, Money{2 * 10 * 2'000'000});
    QCOMPARE(later.totals.remainingCost, Money{(2 * 11 + 12 * 21) * 2'000'000});
  }

  // Mutation: taking from the newest contract first (iterating `bought` backwards) fails it.
  void overlappingContractsGiveUpTheOldestFirst() {
    const auto p = heldPositions({contract(1, true, 1, 8, 0, 10, 1'000'000), contract(2, true, 1, 8, 0, 10, 3'000'000),
                                  contract(3, false, 1, 12, 0, 10, 2'000'000)},
                                 kMe, 0, markAt);
    QCOMPARE(p.contracts[0].held.front().gpus, 0);  // all 8 of the oldest
    QCOMPARE(p.contracts[1].held.front().gpus, 4);  // then 4 of the next
    QCOMPARE(p.totals.realisedPnl, Money{10 * (8 * 1'000'000 + 4 * -1'000'000)});
  }

  // Mutation: dropping the "bought before the sale" condition fails it.
  void aSaleBeforeAPurchaseIsOwnCapacity() {
    const auto p = heldPositions({contract(1, false, 1, 4, 0, 5, 2'000'000), contract(2, true, 1, 8, 0, 5, 3'000'000)},
                                 kMe, 0, markAt);
    QCOMPARE(p.contracts.front().soldGpuHours, std::int64_t{0});
    QCOMPARE(p.contracts.front().held.front().gpus, 8);
    QCOMPARE(p.totals.realisedPnl, Money{4 * 5 * 2'000'000});  // a grant's GPU-hours cost nothing
  }

  // Mutations that make it fail (each checked): `held -= take` left out breaks the conservation;
  // realised P&L counted at the sale price only (no cost) breaks the P&L sum.
  void randomTradingConservesGpuHoursAndMoney() {
    std::mt19937 rng(31);
    for (int round = 0; round < 200; ++round) {
      std::vector<Contract> cs;
      // Per (cluster, hour): GPUs held so far by the account, to sell only what it has.
      std::map<std::pair<ClusterId, Hour>, GpuCount> held;
      Money proceeds = 0;
      for (ContractId id = 1; id <= 12; ++id) {
        const ClusterId cl = 1 + rng() % 2;
        const Hour s = rng() % 20;
        const Hour e = s + 1 + rng() % 10;
        const Price price = 1'000'000 + static_cast<Price>(rng() % 2'000'000);
        if (rng() % 3 != 0) {
          const GpuCount g = 1 + rng() % 16;
          cs.push_back(contract(id, true, cl, g, s, e, price));
          for (Hour h = s; h < e; ++h) held[{cl, h}] += g;
        } else {
          GpuCount g = 16;
          for (Hour h = s; h < e; ++h) g = std::min(g, held[{cl, h}]);
          if (g == 0) continue;
          cs.push_back(contract(id, false, cl, g, s, e, price));
          for (Hour h = s; h < e; ++h) held[{cl, h}] -= g;
          proceeds += price * g * (e - s);
        }
      }
      const auto p = heldPositions(cs, kMe, 0, markAt);
      std::map<std::pair<ClusterId, Hour>, GpuCount> shown;
      Money soldCost = 0;
      for (const HeldContract& hc : p.contracts) {
        const Contract& c = *std::find_if(cs.begin(), cs.end(), [&](const Contract& x) { return x.id == hc.contract; });
        std::int64_t heldHours = 0;
        for (const HeldStep& st : hc.held) {
          QVERIFY(st.gpus >= 0 && st.gpus <= c.gpus);
          for (Hour h = st.start; h < st.end; ++h) shown[{c.cluster, h}] += st.gpus;
          heldHours += static_cast<std::int64_t>(st.gpus) * (st.end - st.start);
        }
        QCOMPARE(heldHours + hc.soldGpuHours, static_cast<std::int64_t>(c.gpus) * (c.end - c.start));
        soldCost += c.price * hc.soldGpuHours;
      }
      for (const auto& [key, gpus] : held) QCOMPARE(shown[key], gpus);
      QCOMPARE(p.totals.realisedPnl, proceeds - soldCost);
    }
  }
};

QTEST_MAIN(TestHeldPositions)
#include "test_held_positions.moc"
