#pragma once
// A seeded, reproducible generator of exchange input: the demo market of the terminal, the
// histories of `tessera-backtest generate`, and the load of tests and benchmarks.
//
// It is incremental: each step() returns the next simulated tick's inputs, in the order they
// reach the exchange. The first step sets the market up (clusters, capacity grants, the clock,
// an opening book of listings); every later step is 1/ticksPerHour of an hour of trading.
// It never looks at the engine's output, so the same seed gives the same inputs whatever
// engine consumes them; some of its cancels and amends therefore arrive after the order has
// filled and are rejected, as they would be on a real exchange.
#include "core/domain/AccountDirectory.h"
#include "core/engine/Events.h"

#include "backtest/SeededRandom.h"
#include "backtest/SimulatedClusters.h"

#include <cstdint>
#include <vector>

namespace tessera::backtest {

// Monday 2026-01-05 00:00 UTC, in hours since the epoch.
inline constexpr Hour kDefaultSimulationStart = 20458 * kHoursPerDay;

struct SimulatedMarketConfig {
  std::uint64_t seed = 1;
  Hour start = kDefaultSimulationStart;
  std::size_t clusterCount = kSimulatedClusterCount;  // prefix of simulatedClusters()
  int ticksPerHour = 1;                               // steps per simulated hour (more = smoother live demo)
  Hour horizonHours = 7 * kHoursPerDay;               // how far ahead the flow's orders deliver
  // How far ahead the providers of whole clusters (SupplyStyle::WholeCluster) keep them listed:
  // long enough for a run of a few weeks that starts within the flow's horizon.
  Hour leaseHorizonHours = 42 * kHoursPerDay;
  double activity = 1.0;  // scales every arrival rate
  // Mean arrivals per simulated hour at activity 1, before the demand cycles.
  double listingsPerHour = 30;
  double inferenceBidsPerHour = 55;
  double trainingBidsPerHour = 4;
  double failuresPerDay = 1.5;  // node failures: a provider withdraws its near-term listings
  // Interruptible capacity (SimulatedClusters.h, interruptibleSupplyOf): a few providers sell a
  // quarter of their nodes in an interruptible book of their own, at `interruptibleDiscount`
  // below the firm price, and take GPUs back with the cluster's notice `reclaimsPerDay` times a
  // day per interruptible cluster (a separate channel, as outages). Off: firm clusters only.
  bool interruptibleSupply = true;
  double interruptibleDiscount = 0.30;
  double interruptibleListingsPerHour = 4;
  double interruptibleBidsPerHour = 6;
  double reclaimsPerDay = 0.5;
  // Burst mode, for stepTimed() (0: off, arrivals evenly spaced over the tick): a tick's
  // arrivals come in bursts of `burstSize`, `burstGapMicros` apart within a burst, the bursts
  // evenly spread over the tick, so orders arrive microseconds apart and race. Only the times
  // change: the inputs and their order are those of the same seed without bursts.
  int burstSize = 0;
  std::int64_t burstGapMicros = 200;
};

// A delivery problem that goes with a node failure: `provider` lost `lostGpus` GPUs of
// `cluster` for hours [start, end). A separate channel from the inputs (an exchange applies it
// as the provider's outage report), so the input stream, and every replay hash, is unchanged.
struct SimulatedOutage {
  AccountId provider = 0;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount lostGpus = 0;
  bool operator==(const SimulatedOutage&) const = default;
};

// A provider taking back interruptible capacity: `gpus` of what it sold on the interruptible
// cluster `cluster` for hours [start, end), which start at least the cluster's notice after the
// clock. It names no contract (the generator never reads the engine's output): an exchange
// spreads it over the provider's contracts there (core/settlement/ReclaimRule), as it does when
// the embedded exchange's simulated providers send it, and a replay applies it the same way.
struct SimulatedReclaim {
  AccountId provider = 0;
  ClusterId cluster = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  bool operator==(const SimulatedReclaim&) const = default;
};

// One generated input with the simulated time it reaches the exchange.
struct TimedInput {
  std::int64_t timeMicros = 0;  // microseconds since the epoch, within the input's tick
  InputEvent event;
};

class SimulatedMarket {
 public:
  // Account names (providers and buyers) are interned into `accounts`, which must outlive this.
  SimulatedMarket(const SimulatedMarketConfig& config, AccountDirectory& accounts);

  std::vector<InputEvent> step();
  std::vector<TimedInput> stepTimed();
  // The outages of the node failures of the steps since the last call, in order.
  std::vector<SimulatedOutage> takeOutages();
  // The reclaims of interruptible capacity of the steps since the last call, in order.
  std::vector<SimulatedReclaim> takeReclaims();

  // The exchange clock after the last step (the start hour after the first).
  Hour now() const { return now_; }
  std::uint64_t steps() const { return steps_; }
  const std::vector<Cluster>& clusters() const { return clusters_; }
  const SimulatedMarketConfig& config() const { return config_; }
  // How far past the clock the providers' capacity grants reach (set-up and every hour).
  Hour grantAheadHours() const;
  // The first order id this generator will never use: strategies pick ids above it.
  static constexpr OrderId kMaxOrderId = OrderId{1} << 48;

  // Price multipliers, exposed so tests and docs can check the cycles.
  static double demandCycle(Hour hour);  // arrival rate multiplier at this time of day/week
  static double priceCycle(Hour hour);   // price multiplier for delivery in this hour

 private:
  struct Listing {
    OrderId id;
    AccountId account;
    ClusterId cluster;
    Hour start;
    Hour end;
  };
  // One block of a cluster leased whole: listed back to back, a lease at a time, so that it is
  // always on offer up to `leaseHorizonHours` ahead.
  struct LeaseBlock {
    ClusterId cluster;
    GpuCount gpus;
    Hour listedUntil;
  };
  struct Bid {
    OrderId id;
    AccountId account;
    Hour end;  // delivery window end: after it the bid is gone
    Price limit;
    Hour placedAt;
  };

  void open(std::vector<InputEvent>& out);
  void trade(std::vector<InputEvent>& out);
  void grantUpTo(Hour until, std::vector<InputEvent>& out);
  void addListing(std::vector<InputEvent>& out, bool opening);
  void listLeases(std::vector<InputEvent>& out);
  void addInferenceBid(std::vector<InputEvent>& out);
  void addTrainingBid(std::vector<InputEvent>& out);
  void cancelAndAmend(std::vector<InputEvent>& out);
  void failNodes(std::vector<InputEvent>& out);
  // Interruptible capacity: listings, bids that accept it, and the providers' reclaims, drawn
  // from their own generator so the firm market's draws are the same with or without them.
  void tradeInterruptible(std::vector<InputEvent>& out, bool opening);
  void addInterruptibleListing(std::vector<InputEvent>& out, const Cluster& c, bool opening);
  void addInterruptibleBid(std::vector<InputEvent>& out, const Cluster& c);
  void driftPrices();
  std::int64_t arrivals(double meanPerTick);
  Price fairPrice(ClusterId cluster, Hour start, Hour end) const;
  GpuCount unlisted(ClusterId cluster, Hour start, Hour end) const;
  void markListed(ClusterId cluster, Hour start, Hour end, GpuCount gpus);
  const Cluster& pickCluster(bool training);
  Hour pickStart(Hour minAhead, Hour maxAhead);

  SimulatedMarketConfig config_;
  AccountDirectory& accounts_;
  SeededRandom rng_;
  std::vector<Cluster> clusters_;  // the firm clusters, then their interruptible books
  std::size_t firmCount_ = 0;
  std::vector<GpuCount> granted_;  // per cluster: GPUs its provider is granted in every hour
  SeededRandom spotRng_;
  std::vector<SimulatedReclaim> reclaims_;
  std::vector<AccountId> providers_;  // per cluster (index = id - 1)
  std::vector<AccountId> inferenceBuyers_;
  std::vector<AccountId> trainingBuyers_;
  std::vector<double> drift_;                  // per cluster: slow random walk around 1.0
  std::vector<std::vector<GpuCount>> listed_;  // per cluster, per hour since start: GPUs listed
  std::vector<Listing> listings_;
  std::vector<LeaseBlock> leases_;
  std::vector<Bid> bids_;
  std::vector<SimulatedOutage> outages_;
  Hour now_ = 0;
  Hour grantedUntil_ = 0;
  std::uint64_t steps_ = 0;
  OrderId nextOrder_ = 1;
};

}  // namespace tessera::backtest
