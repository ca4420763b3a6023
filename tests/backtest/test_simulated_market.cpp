// The simulated market: reproducible from its seed, valid input for the engine, and a market
// in which trades actually print.
#include "backtest/SimulatedClusters.h"
#include "backtest/SimulatedMarket.h"
#include "core/engine/EventJson.h"
#include "core/engine/Matcher.h"

#include <QtTest>

#include <map>

using namespace tessera;
using namespace tessera::backtest;

namespace {

std::string dump(const std::vector<InputEvent>& events, const AccountDirectory& accounts) {
  std::string s;
  for (const auto& e : events) s += toJson(e, accounts).dump() + "\n";
  return s;
}

std::vector<InputEvent> generate(std::uint64_t seed, int steps, AccountDirectory& accounts, int ticksPerHour = 1) {
  SimulatedMarketConfig cfg;
  cfg.seed = seed;
  cfg.ticksPerHour = ticksPerHour;
  SimulatedMarket market(cfg, accounts);
  std::vector<InputEvent> all;
  for (int i = 0; i < steps; ++i) {
    auto batch = market.step();
    all.insert(all.end(), batch.begin(), batch.end());
  }
  return all;
}

}  // namespace

class TestSimulatedMarket : public QObject {
  Q_OBJECT
 private slots:
  void sameSeedSameHistory() {
    AccountDirectory a1, a2, a3;
    const auto h1 = generate(42, 60, a1);
    const auto h2 = generate(42, 60, a2);
    const auto h3 = generate(43, 60, a3);
    QVERIFY(h1.size() > 1000);
    QCOMPARE(dump(h1, a1), dump(h2, a2));
    QVERIFY(dump(h1, a1) != dump(h3, a3));
  }

  void clustersAreRealisticAndPricedAroundPublicFigures() {
    const auto clusters = simulatedClusters();
    QVERIFY(clusters.size() >= 12 && clusters.size() <= 24);
    std::map<Accelerator, int> kinds;
    std::map<std::string, int> regions;
    for (const auto& c : clusters) {
      ++kinds[c.accelerator];
      ++regions[c.region];
      QVERIFY(c.totalGpus() > 0);
      if (c.accelerator == Accelerator::H100) {
        QVERIFY(referencePrice(c) >= 1'500'000 && referencePrice(c) <= 3'000'000);
      }
    }
    QVERIFY(kinds.size() >= 6);
    QVERIFY(regions.size() >= 6);
    Cluster h100 = clusters[0], b200 = clusters[5], a100 = clusters[2], l40s = clusters[3];
    QVERIFY(h100.accelerator == Accelerator::H100);
    QVERIFY(b200.accelerator == Accelerator::B200);
    QVERIFY(referencePrice(b200) > referencePrice(h100));
    QVERIFY(referencePrice(a100) < referencePrice(h100));
    QVERIFY(referencePrice(l40s) < referencePrice(a100));
  }

  void demandFollowsDailyAndWeeklyCycles() {
    const Hour monday = kDefaultSimulationStart;
    QVERIFY(SimulatedMarket::demandCycle(monday + 15) > SimulatedMarket::demandCycle(monday + 4));
    const Hour saturday = monday + 5 * 24;
    QVERIFY(SimulatedMarket::demandCycle(saturday + 15) < SimulatedMarket::demandCycle(monday + 15));
    QVERIFY(SimulatedMarket::priceCycle(monday + 15) > SimulatedMarket::priceCycle(monday + 4));
  }

  void containsEveryKindOfInput() {
    AccountDirectory accounts;
    const auto h = generate(7, 24 * 4, accounts);
    int clusters = 0, grants = 0, sells = 0, divisibleBuys = 0, aon = 0, flexible = 0, constraint = 0, cancels = 0,
        amends = 0, clock = 0;
    for (const auto& e : h) {
      if (std::holds_alternative<Cluster>(e))
        ++clusters;
      else if (std::holds_alternative<CapacityGrant>(e))
        ++grants;
      else if (std::holds_alternative<CancelRequest>(e))
        ++cancels;
      else if (std::holds_alternative<AmendRequest>(e))
        ++amends;
      else if (std::holds_alternative<ClockAdvance>(e))
        ++clock;
      else if (const auto* o = std::get_if<OrderRequest>(&e)) {
        if (o->side == Side::Sell)
          ++sells;
        else if (o->fill == FillStyle::Divisible)
          ++divisibleBuys;
        else {
          ++aon;
          if (o->duration) ++flexible;
          if (o->constraints) ++constraint;
        }
      }
    }
    QCOMPARE(clusters, static_cast<int>(kSimulatedClusterCount + interruptibleClusters(simulatedClusters()).size()));
    QVERIFY(grants >= 18);
    QCOMPARE(clock, 1 + (24 * 4 - 2));  // the opening, then every hour boundary after the first hour
    QVERIFY(sells > 100);
    QVERIFY(divisibleBuys > 1000);
    QVERIFY(aon > 50);
    QVERIFY(flexible > 5);
    QVERIFY(constraint > 5);
    QVERIFY(cancels > 50);
    QVERIFY(amends > 20);
  }

  // A training run needs whole clusters for weeks: the leased clusters are on offer whole, in
  // leases of one to four weeks, back to back from the first hour up to the lease horizon, and
  // the flow never names them. Fails if open() or the hourly step stops listing leases.
  void wholeClustersAreLeasedForWeeksAhead() {
    AccountDirectory accounts;
    SimulatedMarketConfig cfg;
    cfg.seed = 5;
    SimulatedMarket market(cfg, accounts);
    std::vector<InputEvent> all;
    auto engine = makeMatchingEngine();
    std::vector<Event> out;
    for (int i = 0; i < 24 * 3; ++i) {
      for (InputEvent& e : market.step()) {
        // Every lease must be accepted: the provider was granted the capacity it lists.
        out.clear();
        engine->apply(e, out);
        if (const auto* o = std::get_if<OrderRequest>(&e); o && o->side == Side::Sell && o->gpus >= 512)
          for (const Event& ev : out)
            if (const auto* r = std::get_if<OrderRejected>(&ev))
              QFAIL(qPrintable(QString("lease %1 rejected: %2").arg(o->id).arg(QString::fromStdString(r->detail))));
        all.push_back(std::move(e));
      }
    }
    int leased = 0;
    for (const Cluster& c : market.clusters()) {
      if (supplyOf(c).style != SupplyStyle::WholeCluster) continue;
      ++leased;
      QVERIFY(c.totalGpus() >= 1024);
      // Per block: hour by hour, the GPUs its leases list, from the start to the horizon.
      std::map<Hour, GpuCount> listed;
      for (const InputEvent& e : all) {
        const auto* o = std::get_if<OrderRequest>(&e);
        if (!o || o->cluster != c.id) continue;
        QVERIFY(o->side == Side::Sell);  // the flow neither bids on nor lists these clusters
        QVERIFY(o->gpus >= 512);
        QVERIFY(o->end - o->start >= 7 * kHoursPerDay && o->end - o->start <= 28 * kHoursPerDay);
        for (Hour h = o->start; h < o->end; ++h) listed[h] += o->gpus;
      }
      const Hour horizon = market.now() + cfg.leaseHorizonHours;
      for (Hour h = cfg.start + 1; h < horizon; ++h)
        QVERIFY2(listed[h] == c.totalGpus(), qPrintable(QString("%1 hour +%2: %3 GPUs listed")
                                                            .arg(QString::fromStdString(c.name))
                                                            .arg(h - cfg.start)
                                                            .arg(listed[h])));
    }
    QCOMPARE(leased, 3);
  }

  // Interruptible supply: four providers set a quarter of their nodes aside in books of their
  // own, list them at a discount, buyers (some all-or-none with a checkpoint interval) bid for
  // them, and the providers take GPUs back with their notice at about the configured rate, all
  // fixed by the seed. Seen failing with the firm grant not reduced by the book's (the grants
  // compare; insufficient_holdings in engineAcceptsItAndTradesPrint), with the listings'
  // discount left out (the ratio; no interruptible contract prints) and with reclaims starting
  // without the notice.
  void interruptibleSupplyAndReclaimsAreSeeded() {
    auto run = [](std::uint64_t seed, bool interruptible, std::vector<SimulatedReclaim>& reclaims,
                  std::vector<Hour>& clockAt, AccountDirectory& accounts) {
      SimulatedMarketConfig cfg;
      cfg.seed = seed;
      cfg.interruptibleSupply = interruptible;
      SimulatedMarket market(cfg, accounts);
      std::vector<InputEvent> all;
      for (int i = 0; i < 24 * 7; ++i) {
        auto batch = market.step();
        all.insert(all.end(), batch.begin(), batch.end());
        for (const SimulatedReclaim& r : market.takeReclaims()) {
          reclaims.push_back(r);
          clockAt.push_back(market.now());
        }
      }
      return std::make_pair(all, market.clusters());
    };
    AccountDirectory accounts, again, firmOnly;
    std::vector<SimulatedReclaim> reclaims, reclaims2, none;
    std::vector<Hour> clockAt, ignored;
    const auto [inputs, clusters] = run(5, true, reclaims, clockAt, accounts);
    QCOMPARE(clusters.size(), kSimulatedClusterCount + 4);
    std::map<ClusterId, GpuCount> granted, inBook;  // per physical cluster, the first hour's grants
    for (const InputEvent& e : inputs)
      if (const auto* g = std::get_if<CapacityGrant>(&e); g && g->start == kDefaultSimulationStart) {
        const Cluster& c = clusters[g->cluster - 1];
        granted[c.interruptibleOf.value_or(c.id)] += g->gpus;
        if (c.interruptible()) inBook[*c.interruptibleOf] += g->gpus;
      }
    for (const Cluster& c : clusters) {
      if (!c.interruptible()) {
        QCOMPARE(granted[c.id], c.totalGpus());
        continue;
      }
      const Cluster& firm = clusters[*c.interruptibleOf - 1];
      QCOMPARE(c.provider, firm.provider);
      QVERIFY(c.noticeHours >= 1 && c.noticeHours <= 2);
      QCOMPARE(c.totalGpus(), firm.totalGpus());
      // A quarter of the machines is granted in the book, the rest in the firm cluster.
      QCOMPARE(granted[firm.id], firm.totalGpus());
      QCOMPARE(inBook[firm.id], firm.totalGpus() / 4);
    }
    // Interruptible listings against the firm listings of the same machines.
    std::map<ClusterId, std::pair<double, int>> firmAsk, bookAsk;
    int bids = 0, checkpointed = 0;
    for (const InputEvent& e : inputs) {
      const auto* o = std::get_if<OrderRequest>(&e);
      if (!o || !o->cluster) continue;
      const Cluster& c = clusters[*o->cluster - 1];
      QCOMPARE(o->interruptible, c.interruptible());
      if (o->side == Side::Buy) {
        bids += c.interruptible() ? 1 : 0;
        checkpointed += o->checkpointHours ? 1 : 0;
        continue;
      }
      auto& [sum, n] = c.interruptible() ? bookAsk[*c.interruptibleOf] : firmAsk[c.id];
      sum += static_cast<double>(o->limit);
      ++n;
    }
    QCOMPARE(bookAsk.size(), std::size_t(4));
    for (const auto& [firm, ask] : bookAsk) {
      QVERIFY(ask.second > 20);
      const double ratio = (ask.first / ask.second) / (firmAsk[firm].first / firmAsk[firm].second);
      QVERIFY2(ratio > 0.6 && ratio < 0.8, qPrintable(QString::number(ratio)));
    }
    QVERIFY(bids > 300);
    QVERIFY(checkpointed > 50);
    // Four books at 0.5 a day for a week: about 14.
    QVERIFY2(reclaims.size() >= 5 && reclaims.size() <= 30, qPrintable(QString::number(reclaims.size())));
    for (std::size_t i = 0; i < reclaims.size(); ++i) {
      const SimulatedReclaim& r = reclaims[i];
      const Cluster& c = clusters[r.cluster - 1];
      QVERIFY(c.interruptible());
      QCOMPARE(accounts.name(r.provider), c.provider);
      QVERIFY(r.start >= clockAt[i] + c.noticeHours);
      QVERIFY(r.end > r.start && r.gpus > 0 && r.gpus % c.gpusPerNode == 0);
    }
    run(5, true, reclaims2, ignored, again);
    QVERIFY(reclaims2 == reclaims);
    // Off: the firm market alone, nothing reclaimed.
    const auto [firmInputs, firmClusters] = run(5, false, none, ignored, firmOnly);
    QCOMPARE(firmClusters.size(), kSimulatedClusterCount);
    QVERIFY(none.empty());
  }

  void engineAcceptsItAndTradesPrint() {
    AccountDirectory accounts;
    const auto h = generate(11, 24 * 2 * 4, accounts, 4);
    auto engine = makeMatchingEngine();
    std::vector<Event> out;
    std::map<RejectReason, int> rejects;
    int accepted = 0, contracts = 0, aonContracts = 0, interruptibleContracts = 0;
    std::map<ClusterId, bool> interruptible;
    for (const auto& e : h)
      if (const auto* c = std::get_if<Cluster>(&e)) interruptible[c->id] = c->interruptible();
    std::map<OrderId, FillStyle> styles;
    for (const auto& e : h) {
      if (const auto* o = std::get_if<OrderRequest>(&e)) styles[o->id] = o->fill;
      out.clear();
      engine->apply(e, out);
      for (const auto& ev : out) {
        if (std::holds_alternative<OrderAccepted>(ev)) ++accepted;
        if (const auto* r = std::get_if<OrderRejected>(&ev)) ++rejects[r->reason];
        if (const auto* c = std::get_if<ContractCreated>(&ev)) {
          ++contracts;
          interruptibleContracts += interruptible[c->contract.cluster] ? 1 : 0;
          if (styles[c->contract.buyOrder] == FillStyle::AllOrNone) ++aonContracts;
        }
      }
    }
    // Only "too late" rejects are expected: cancels and amends of orders that already filled
    // (an amend of a partly filled order can also find nothing left to amend).
    for (const auto& [reason, n] : rejects) {
      QVERIFY2(reason == RejectReason::UnknownOrder || reason == RejectReason::NothingToAmend ||
                   reason == RejectReason::InvalidGpuCount,
               qPrintable(QString("unexpected reject %1 x%2")
                              .arg(QString::fromUtf8(toString(reason).data(), int(toString(reason).size())))
                              .arg(n)));
    }
    QVERIFY(accepted > 1000);
    QVERIFY2(contracts > 300, qPrintable(QString::number(contracts)));
    QVERIFY2(aonContracts > 0, "no training run ever filled");
    QVERIFY2(interruptibleContracts > 20, qPrintable(QString::number(interruptibleContracts)));
  }
};

QTEST_GUILESS_MAIN(TestSimulatedMarket)
#include "test_simulated_market.moc"
