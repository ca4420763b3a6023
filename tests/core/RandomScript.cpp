#include "RandomScript.h"

#include <random>

namespace tessera::testing {

std::vector<InputEvent> randomScript(const RandomScriptOptions& opt) {
  std::mt19937_64 rng(opt.seed);
  auto uniform = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  auto chance = [&](int percent) { return uniform(1, 100) <= percent; };

  std::vector<InputEvent> out;
  const AccountId providers[] = {1, 2};
  const AccountId traders[] = {3, 4, 5, 6};
  const Accelerator kinds[] = {Accelerator::H100, Accelerator::A100, Accelerator::H200};
  for (int c = 1; c <= opt.clusters; ++c) {
    Cluster k;
    k.id = static_cast<ClusterId>(c);
    k.name = "c" + std::to_string(c);
    k.region = c % 2 ? "us-east" : "eu-north";
    k.accelerator = kinds[(c - 1) % 3];
    k.gpusPerNode = 8;
    k.nodeCount = 6 * c;
    k.fabric = c == 1 ? FabricClass::InfiniBand : FabricClass::RoCE;
    out.emplace_back(k);
    for (AccountId p : providers)
      out.emplace_back(CapacityGrant{p, k.id, k.totalGpus() / (opt.interruptible && c == 1 ? 4 : 2), 0, opt.horizon});
  }
  const auto spot = static_cast<ClusterId>(opt.clusters + 1);
  if (opt.interruptible) {
    Cluster k = std::get<Cluster>(out.front());
    k.id = spot;
    k.name = "c1-interruptible";
    k.interruptibleOf = 1;
    k.noticeHours = 2;
    out.emplace_back(k);
    for (AccountId p : providers) out.emplace_back(CapacityGrant{p, spot, k.totalGpus() / 4, 0, opt.horizon});
    out.emplace_back(CapacityGrant{1, spot, 1, 0, 1});  // over the physical cluster's size: refused
  }

  Hour now = 0;
  OrderId nextId = 1;
  std::vector<std::pair<OrderId, AccountId>> sent;
  auto pickCluster = [&] { return static_cast<ClusterId>(uniform(1, scriptClusters(opt))); };
  auto price = [&] { return uniform(5, 30) * 100'000; };  // $0.50 .. $3.00

  while (static_cast<int>(out.size()) < opt.events) {
    const auto roll = uniform(1, 100);
    if (roll <= 4 && now + 2 < opt.horizon) {
      now += uniform(1, 2);
      out.emplace_back(ClockAdvance{now});
      continue;
    }
    // Cancels and amends mostly aim at recent orders, which are the ones likely still working.
    auto recent = [&]() -> const std::pair<OrderId, AccountId>& {
      const auto n = static_cast<std::int64_t>(sent.size());
      return sent[static_cast<std::size_t>(chance(80) ? uniform(std::max<std::int64_t>(0, n - 25), n - 1)
                                                      : uniform(0, n - 1))];
    };
    if (roll <= 16 && !sent.empty()) {
      const auto& [id, account] = recent();
      const AccountId who = chance(90) ? account : traders[uniform(0, 3)];
      out.emplace_back(CancelRequest{id, who});
      continue;
    }
    if (roll <= 26 && !sent.empty()) {
      const auto& [id, account] = recent();
      AmendRequest a{id, chance(95) ? account : traders[uniform(0, 3)], std::nullopt, std::nullopt};
      if (chance(60)) a.limit = price();
      if (chance(60) || !a.limit) a.gpus = static_cast<GpuCount>(uniform(1, 12));
      out.emplace_back(a);
      continue;
    }
    OrderRequest o;
    o.id = chance(2) && nextId > 1 ? static_cast<OrderId>(uniform(1, static_cast<std::int64_t>(nextId - 1))) : nextId++;
    o.start = now + uniform(0, 12);
    o.end = std::min<Hour>(opt.horizon, o.start + uniform(1, 8));
    if (o.end <= o.start) o.end = o.start + 1;
    o.limit = price();
    o.gpus = static_cast<GpuCount>(uniform(1, 10));
    if (roll <= 55) {
      o.side = Side::Sell;
      o.account = chance(75) ? providers[uniform(0, 1)] : traders[uniform(0, 3)];
      o.cluster = pickCluster();
      if (o.account > 2 && chance(20)) o.sellBack = static_cast<ContractId>(uniform(1, 40));
      if (chance(30)) {
        o.terms.billing = static_cast<BillingBasis>(uniform(0, 2));
        o.terms.uptimePromisePpm = static_cast<int>(uniform(900'000, 1'000'000));
        o.terms.creditPerUndeliveredGpuHour = uniform(0, 10) * 100'000;
        o.terms.guaranteesFabric = chance(50);
      }
    } else {
      o.side = Side::Buy;
      o.account = traders[uniform(0, 3)];
      if (chance(8)) o.account = providers[uniform(0, 1)];  // self-trade material
      if (chance(55)) {
        o.fill = FillStyle::Divisible;
        o.cluster = pickCluster();
      } else {
        o.fill = FillStyle::AllOrNone;
        if (chance(30)) {
          ClusterConstraints k;
          if (chance(50)) k.accelerators = {Accelerator::H100, Accelerator::H200};
          if (chance(40)) k.regions = {"us-east"};
          if (chance(30)) k.minFabric = FabricClass::RoCE;
          o.constraints = k;
        } else {
          o.cluster = pickCluster();
        }
        if (chance(25))
          for (int c = 1; c <= opt.clusters; ++c)
            if (chance(60)) o.costFactors.push_back({static_cast<ClusterId>(c), uniform(5, 20) * 100'000});
        if (chance(35)) {
          o.duration = uniform(1, std::max<Hour>(1, o.end - o.start));
          o.end = std::min<Hour>(opt.horizon, o.end + uniform(0, 6));
        }
      }
    }
    const auto tif = uniform(1, 100);
    if (tif <= 10)
      o.tif = TimeInForce::IOC;
    else if (tif <= 18)
      o.tif = TimeInForce::FOK;
    else if (tif <= 28) {
      o.tif = TimeInForce::GTD;
      o.expireAt = now + uniform(1, 6);
    }
    if (o.tif != TimeInForce::IOC && o.tif != TimeInForce::FOK && chance(opt.postOnlyPercent)) o.postOnly = true;
    if (chance(25)) o.stp = SelfTradePrevention::CancelResting;
    if (chance(3)) o.gpus = -o.gpus;  // impossible orders
    if (chance(2)) o.start = o.end;
    if (chance(2) && now > 0) o.start = now - 1;
    if (opt.interruptible) {
      // Orders say the kind of the cluster they name (a few do not: capacity_mismatch);
      // constraint bids accept interruptible capacity half of the time; interruptible
      // all-or-none buys declare a checkpoint interval (a few forget: unsupported).
      if (o.cluster)
        o.interruptible = (*o.cluster == spot) != chance(3);
      else if (o.constraints)
        o.interruptible = chance(50);
      if (o.interruptible && o.side == Side::Buy && o.fill == FillStyle::AllOrNone && !chance(3))
        o.checkpointHours = uniform(1, 4);
    }
    out.emplace_back(o);
    sent.emplace_back(o.id, o.account);
  }
  return out;
}

}  // namespace tessera::testing
