#include "backtest/SimulatedMarket.h"

#include "backtest/SimulatedClusters.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <string>
#include <utility>

namespace tessera::backtest {
namespace {

// Each provider lists under its own standing terms, one of four kinds by cluster, so the demo
// market shows every billing basis and both remedies. They come from the cluster alone (no
// random draw), so the market's other choices stay as they were for a given seed.
OfferTerms listingTerms(const Cluster& c) {
  OfferTerms t;
  switch (c.accelerator) {  // dense BF16 TFLOPS per GPU, as vendors publish them: estimates only
    case Accelerator::A100: t.estimatedTflopsPerGpu = 312; break;
    case Accelerator::H100:
    case Accelerator::H200: t.estimatedTflopsPerGpu = 989; break;
    case Accelerator::B200: t.estimatedTflopsPerGpu = 2250; break;
    case Accelerator::GB200: t.estimatedTflopsPerGpu = 2500; break;
    case Accelerator::MI300X: t.estimatedTflopsPerGpu = 1307; break;
    case Accelerator::L40S: t.estimatedTflopsPerGpu = 362; break;
    case Accelerator::RTX4090: t.estimatedTflopsPerGpu = 165; break;
  }
  switch (c.id % 4) {
    case 0:
      t.billing = BillingBasis::WallClockDelivered;
      t.uptimePromisePpm = 990'000;
      t.creditPerUndeliveredGpuHour = 500'000;
      break;
    case 1:
      t.billing = BillingBasis::CommittedBlock;
      t.uptimePromisePpm = 995'000;
      t.creditPerUndeliveredGpuHour = 1'000'000;
      t.remedy = Remedy::Replacement;
      t.replacementWithinHours = 4;
      break;
    case 2:
      t.billing = BillingBasis::SuccessfulWork;
      t.uptimePromisePpm = 980'000;
      t.creditPerUndeliveredGpuHour = 300'000;
      t.guaranteesFabric = false;
      break;
    default:
      t.billing = BillingBasis::WallClockDelivered;
      t.uptimePromisePpm = 999'000;
      t.creditPerUndeliveredGpuHour = 800'000;
      t.remedy = Remedy::Replacement;
      t.replacementWithinHours = 2;
      break;
  }
  return t;
}

constexpr std::int64_t kMicrosPerHour = 3'600'000'000;

// Leases of whole clusters run one to four weeks, cheaper per hour the longer the commitment.
constexpr std::array<Hour, 5> kLeaseDays = {7, 10, 14, 21, 28};

// Relative demand by UTC hour of day: quiet in the small hours, busiest when the US working
// day overlaps Europe's afternoon. A table rather than a cosine, so every platform computes
// the same history (libm results may differ in the last bit).
constexpr std::array<double, 24> kDailyShape = {0.80, 0.72, 0.66, 0.62, 0.60, 0.62, 0.70, 0.82, 0.95, 1.05, 1.12, 1.18,
                                                1.24, 1.30, 1.34, 1.36, 1.35, 1.30, 1.22, 1.12, 1.02, 0.95, 0.90, 0.85};

int hourOfDay(Hour h) { return static_cast<int>(((h % 24) + 24) % 24); }
bool isWeekend(Hour h) {
  // 1970-01-01 was a Thursday: day 2 is Saturday, day 3 Sunday.
  const Hour day = h >= 0 ? h / 24 : (h - 23) / 24;
  const int dow = static_cast<int>(((day % 7) + 7) % 7);
  return dow == 2 || dow == 3;
}
Price roundToTick(double micros) {
  // Quotes on a $0.001 grid, like the exchange's order entry.
  const auto ticks = static_cast<std::int64_t>(micros / 1000.0 + 0.5);
  return std::max<Price>(1000, ticks * 1000);
}
// Arrivals in a tick with mean `mean`, drawn from `rng`.
std::int64_t arrivalsFrom(SeededRandom& rng, double mean) {
  if (mean <= 0) return 0;
  // Irwin-Hall approximation of a normal: no transcendental functions, so reproducible.
  double z = -6.0;
  for (int i = 0; i < 12; ++i) z += rng.unit();
  const double n = mean + std::sqrt(mean) * z * 0.8 + rng.unit() - 0.5;
  return std::max<std::int64_t>(0, static_cast<std::int64_t>(n + 0.5));
}

bool trainingGrade(const Cluster& c) {
  return c.accelerator != Accelerator::L40S && c.accelerator != Accelerator::RTX4090 &&
         c.fabric != FabricClass::Ethernet;
}
bool inferenceFavoured(const Cluster& c) {
  switch (c.accelerator) {
    case Accelerator::L40S:
    case Accelerator::A100:
    case Accelerator::RTX4090:
    case Accelerator::MI300X:
    case Accelerator::H100: return true;
    default: return false;
  }
}

}  // namespace

double SimulatedMarket::demandCycle(Hour hour) {
  return kDailyShape[static_cast<std::size_t>(hourOfDay(hour))] * (isWeekend(hour) ? 0.7 : 1.0);
}

double SimulatedMarket::priceCycle(Hour hour) {
  const double daily = 1.0 + 0.2 * (kDailyShape[static_cast<std::size_t>(hourOfDay(hour))] - 1.0);
  return daily * (isWeekend(hour) ? 0.94 : 1.0);
}

SimulatedMarket::SimulatedMarket(const SimulatedMarketConfig& config, AccountDirectory& accounts)
    : config_(config), accounts_(accounts), rng_(config.seed), spotRng_(config.seed ^ 0x1A7E5C0FFEE5EEDULL) {
  config_.ticksPerHour = std::max(1, config_.ticksPerHour);
  config_.horizonHours = std::max<Hour>(48, config_.horizonHours);
  clusters_ = simulatedClusters(config_.clusterCount);
  firmCount_ = clusters_.size();
  for (const Cluster& c : clusters_) granted_.push_back(c.totalGpus());
  if (config_.interruptibleSupply) {
    // The nodes of an interruptible book are granted there, not to its firm cluster: the two
    // grants together are the machines.
    for (Cluster& i : interruptibleClusters(clusters_)) {
      const GpuCount gpus = interruptibleSupplyOf(clusters_[*i.interruptibleOf - 1]).nodes * i.gpusPerNode;
      granted_[*i.interruptibleOf - 1] -= gpus;
      granted_.push_back(gpus);
      clusters_.push_back(std::move(i));
    }
  }
  for (const Cluster& c : clusters_) providers_.push_back(accounts_.intern(c.provider));
  for (int i = 1; i <= 24; ++i) {
    inferenceBuyers_.push_back(accounts_.intern("infer-" + std::string(i < 10 ? "0" : "") + std::to_string(i)));
  }
  for (int i = 1; i <= 12; ++i) {
    trainingBuyers_.push_back(accounts_.intern("train-" + std::string(i < 10 ? "0" : "") + std::to_string(i)));
  }
  for (const Cluster& c : clusters_) {
    const ClusterSupply supply = supplyOf(c);
    if (supply.style != SupplyStyle::WholeCluster) continue;
    const GpuCount nodes = c.nodeCount / std::max(1, supply.blocks);
    for (int b = 0; b < supply.blocks; ++b) leases_.push_back({c.id, nodes * c.gpusPerNode, config_.start});
  }
  drift_.assign(firmCount_, 1.0);  // an interruptible book moves with its firm cluster
  for (double& d : drift_) d = rng_.uniform(0.93, 1.07);
  listed_.assign(clusters_.size(), {});
  now_ = config_.start;
}

std::vector<InputEvent> SimulatedMarket::step() {
  std::vector<InputEvent> out;
  if (steps_ == 0)
    open(out);
  else
    trade(out);
  ++steps_;
  return out;
}

std::vector<TimedInput> SimulatedMarket::stepTimed() {
  const std::uint64_t tick = steps_;  // 0 = opening, then 1, 2, ...
  std::vector<InputEvent> events = step();
  std::vector<TimedInput> out;
  out.reserve(events.size());
  if (tick == 0) {
    // The set-up happens in the microseconds before the opening hour.
    const std::int64_t base = config_.start * kMicrosPerHour - static_cast<std::int64_t>(events.size());
    for (std::size_t i = 0; i < events.size(); ++i)
      out.push_back({base + static_cast<std::int64_t>(i), std::move(events[i])});
    return out;
  }
  const std::int64_t tickLen = kMicrosPerHour / config_.ticksPerHour;
  const std::int64_t t = static_cast<std::int64_t>(tick - 1);
  const std::int64_t tickStart =
      (config_.start + t / config_.ticksPerHour) * kMicrosPerHour + (t % config_.ticksPerHour) * tickLen;
  const auto n = static_cast<std::int64_t>(events.size());
  const std::int64_t size = config_.burstSize > 0 ? config_.burstSize : 1;
  const std::int64_t gap = config_.burstSize > 0 ? config_.burstGapMicros : 0;
  const std::int64_t bursts = std::max<std::int64_t>(1, (n + size - 1) / size);
  for (std::int64_t i = 0; i < n; ++i)
    out.push_back(
        {tickStart + (i / size) * tickLen / bursts + (i % size) * gap, std::move(events[static_cast<std::size_t>(i)])});
  return out;
}

void SimulatedMarket::open(std::vector<InputEvent>& out) {
  for (const Cluster& c : clusters_) out.emplace_back(c);
  out.emplace_back(ClockAdvance{config_.start});
  grantUpTo(config_.start + grantAheadHours(), out);
  // An opening book: providers have already listed part of the coming week.
  const std::int64_t opening = static_cast<std::int64_t>(clusters_.size()) * 12;
  for (std::int64_t i = 0; i < opening; ++i) addListing(out, true);
  listLeases(out);
  tradeInterruptible(out, true);
}

Hour SimulatedMarket::grantAheadHours() const {
  // A lease listed just before the horizon reaches one longest lease past it.
  const Hour lease = leases_.empty() ? 0 : config_.leaseHorizonHours + kLeaseDays.back() * kHoursPerDay;
  return std::max(config_.horizonHours, lease) + kHoursPerDay;
}

void SimulatedMarket::trade(std::vector<InputEvent>& out) {
  const std::int64_t tick = static_cast<std::int64_t>(steps_ - 1);
  if (tick > 0 && tick % config_.ticksPerHour == 0) {
    ++now_;
    out.emplace_back(ClockAdvance{now_});
    driftPrices();
    if (grantedUntil_ < now_ + grantAheadHours() - kHoursPerDay + 1) grantUpTo(grantedUntil_ + kHoursPerDay, out);
    listLeases(out);
  }
  const double perTick = config_.activity / config_.ticksPerHour;
  const double demand = demandCycle(now_);
  // Interleave the kinds of arrival, so trades print throughout the tick.
  std::int64_t listings = arrivals(config_.listingsPerHour * perTick);
  std::int64_t inference = arrivals(config_.inferenceBidsPerHour * perTick * demand);
  std::int64_t training = arrivals(config_.trainingBidsPerHour * perTick * demand);
  while (listings + inference + training > 0) {
    const double total = static_cast<double>(listings + inference + training);
    const double r = rng_.unit() * total;
    if (r < static_cast<double>(listings)) {
      addListing(out, false);
      --listings;
    } else if (r < static_cast<double>(listings + inference)) {
      addInferenceBid(out);
      --inference;
    } else {
      addTrainingBid(out);
      --training;
    }
  }
  cancelAndAmend(out);
  if (rng_.chance(config_.failuresPerDay / kHoursPerDay / config_.ticksPerHour)) failNodes(out);
  tradeInterruptible(out, false);
}

void SimulatedMarket::grantUpTo(Hour until, std::vector<InputEvent>& out) {
  const Hour from = std::max(grantedUntil_, config_.start);
  if (until <= from) return;
  for (std::size_t i = 0; i < clusters_.size(); ++i)
    out.emplace_back(CapacityGrant{providers_[i], clusters_[i].id, granted_[i], from, until});
  grantedUntil_ = until;
}

std::int64_t SimulatedMarket::arrivals(double mean) { return arrivalsFrom(rng_, mean); }

void SimulatedMarket::driftPrices() {
  for (double& d : drift_) {
    d += 0.08 * (1.0 - d) + rng_.uniform(-0.018, 0.018);
    d = std::clamp(d, 0.75, 1.3);
  }
}

Price SimulatedMarket::fairPrice(ClusterId cluster, Hour start, Hour end) const {
  // An interruptible book is priced from its firm cluster (the discount is the caller's).
  const Cluster& book = clusters_[cluster - 1];
  const Cluster& c = clusters_[book.interruptibleOf.value_or(book.id) - 1];
  double cycle = 0;
  const Hour span = std::min<Hour>(end - start, 48);
  for (Hour h = start; h < start + span; ++h) cycle += priceCycle(h);
  cycle /= static_cast<double>(std::max<Hour>(1, span));
  return static_cast<Price>(static_cast<double>(referencePrice(c)) * drift_[c.id - 1] * cycle);
}

GpuCount SimulatedMarket::unlisted(ClusterId cluster, Hour start, Hour end) const {
  const auto& row = listed_[cluster - 1];
  GpuCount most = 0;
  for (Hour h = start; h < end; ++h) {
    const auto i = static_cast<std::size_t>(h - config_.start);
    if (i < row.size()) most = std::max(most, row[i]);
  }
  return granted_[cluster - 1] - most;
}

void SimulatedMarket::markListed(ClusterId cluster, Hour start, Hour end, GpuCount gpus) {
  auto& row = listed_[cluster - 1];
  const auto last = static_cast<std::size_t>(end - config_.start);
  if (row.size() < last) row.resize(last, 0);
  for (Hour h = start; h < end; ++h) row[static_cast<std::size_t>(h - config_.start)] += gpus;
}

const Cluster& SimulatedMarket::pickCluster(bool training) {
  double total = 0;
  // The flow never names a cluster that is leased whole (a constraint bid may still match one).
  auto eligible = [training](const Cluster& c) {
    return !c.interruptible() && supplyOf(c).style == SupplyStyle::Flow && (!training || trainingGrade(c));
  };
  for (const Cluster& c : clusters_) {
    if (!eligible(c)) continue;
    total += c.totalGpus() * (training || inferenceFavoured(c) ? 1.0 : 0.4);
  }
  if (total <= 0) return clusters_[rng_.between(0, static_cast<std::int64_t>(clusters_.size()) - 1)];
  double r = rng_.unit() * total;
  for (const Cluster& c : clusters_) {
    if (!eligible(c)) continue;
    r -= c.totalGpus() * (training || inferenceFavoured(c) ? 1.0 : 0.4);
    if (r < 0) return c;
  }
  return clusters_.back();
}

Hour SimulatedMarket::pickStart(Hour minAhead, Hour maxAhead) {
  // Most demand is for the next day or two; some reaches to the end of the horizon.
  const double u = rng_.unit();
  const Hour ahead = minAhead + static_cast<Hour>(u * u * static_cast<double>(std::max<Hour>(0, maxAhead - minAhead)));
  return now_ + ahead;
}

void SimulatedMarket::addListing(std::vector<InputEvent>& out, bool opening) {
  static constexpr std::array<Hour, 8> kLengths = {4, 8, 12, 24, 24, 48, 72, 96};
  const Cluster& c = pickCluster(false);
  const Hour len = kLengths[static_cast<std::size_t>(rng_.between(0, kLengths.size() - 1))];
  const Hour start = pickStart(1, config_.horizonHours - len);
  const Hour end = start + len;
  const GpuCount free = unlisted(c.id, start, end);
  GpuCount gpus = c.gpusPerNode * static_cast<GpuCount>(rng_.between(1, std::max(1, c.nodeCount / 4)));
  gpus = std::min(gpus, free - free % c.gpusPerNode);
  if (gpus <= 0) return;
  markListed(c.id, start, end, gpus);
  OrderRequest o;
  o.id = nextOrder_++;
  o.account = providers_[c.id - 1];
  o.side = Side::Sell;
  o.cluster = c.id;
  o.gpus = gpus;
  o.start = start;
  o.end = end;
  // Providers ask a little above fair value; the opening book a little more.
  o.limit = roundToTick(static_cast<double>(fairPrice(c.id, start, end)) *
                        rng_.uniform(opening ? 1.0 : 0.97, opening ? 1.14 : 1.10));
  o.fill = FillStyle::Divisible;
  o.terms = listingTerms(c);
  out.emplace_back(o);
  listings_.push_back({o.id, o.account, c.id, start, end});
}

void SimulatedMarket::listLeases(std::vector<InputEvent>& out) {
  for (LeaseBlock& block : leases_) {
    while (block.listedUntil < now_ + config_.leaseHorizonHours) {
      const Cluster& c = clusters_[block.cluster - 1];
      const Hour days = kLeaseDays[static_cast<std::size_t>(rng_.between(0, kLeaseDays.size() - 1))];
      const Hour start = std::max(block.listedUntil, now_ + 1);
      const Hour end = start + days * kHoursPerDay;
      block.listedUntil = end;
      const GpuCount free = unlisted(c.id, start, end);
      const GpuCount gpus = std::min(block.gpus, free - free % c.gpusPerNode);
      if (gpus <= 0) continue;
      markListed(c.id, start, end, gpus);
      OrderRequest o;
      o.id = nextOrder_++;
      o.account = providers_[c.id - 1];
      o.side = Side::Sell;
      o.cluster = c.id;
      o.gpus = gpus;
      o.start = start;
      o.end = end;
      const double termDiscount = 1.0 - 0.0045 * static_cast<double>(days);
      o.limit = roundToTick(static_cast<double>(fairPrice(c.id, start, end)) * termDiscount * rng_.uniform(1.0, 1.06));
      o.fill = FillStyle::Divisible;
      o.terms = listingTerms(c);
      out.emplace_back(o);
    }
  }
}

void SimulatedMarket::addInferenceBid(std::vector<InputEvent>& out) {
  const Cluster& c = pickCluster(false);
  const Hour len = rng_.between(2, 24);
  const Hour start = pickStart(1, 36);
  OrderRequest o;
  o.id = nextOrder_++;
  o.account = inferenceBuyers_[static_cast<std::size_t>(rng_.between(0, inferenceBuyers_.size() - 1))];
  o.side = Side::Buy;
  o.cluster = c.id;
  o.gpus = std::min<GpuCount>(c.totalGpus(), static_cast<GpuCount>(rng_.between(2, 64)));
  o.start = start;
  o.end = start + len;
  o.limit = roundToTick(static_cast<double>(fairPrice(c.id, o.start, o.end)) * rng_.uniform(0.86, 1.08));
  o.fill = FillStyle::Divisible;
  o.tif = rng_.chance(0.15) ? TimeInForce::IOC : TimeInForce::GTC;
  out.emplace_back(o);
  if (o.tif == TimeInForce::GTC) bids_.push_back({o.id, o.account, o.end, o.limit, now_});
}

void SimulatedMarket::addTrainingBid(std::vector<InputEvent>& out) {
  const Cluster& c = pickCluster(true);
  const Hour duration = rng_.between(12, 96);
  const Hour slack = rng_.between(12, 48);
  const Hour latest = std::max<Hour>(7, config_.horizonHours - duration - slack);
  const Hour start = pickStart(6, latest);
  OrderRequest o;
  o.id = nextOrder_++;
  o.account = trainingBuyers_[static_cast<std::size_t>(rng_.between(0, trainingBuyers_.size() - 1))];
  o.side = Side::Buy;
  const GpuCount nodes = static_cast<GpuCount>(rng_.between(2, std::max(2, c.nodeCount / 3)));
  o.gpus = std::min(c.totalGpus(), nodes * c.gpusPerNode);
  o.start = start;
  o.end = start + duration;
  o.fill = FillStyle::AllOrNone;
  o.tif = TimeInForce::GTD;
  o.expireAt = start;  // a run that cannot start on time looks elsewhere
  const double r = rng_.unit();
  if (r < 0.5) {
    o.cluster = c.id;
  } else if (r < 0.7) {
    o.cluster = c.id;
    o.duration = duration;
    o.end = start + duration + slack;
  } else {
    ClusterConstraints k;
    k.accelerators = {c.accelerator};
    if (c.accelerator == Accelerator::H100) k.accelerators.push_back(Accelerator::H200);
    k.minGpuMemoryGb = c.gpuMemoryGb;
    k.minFabric = c.fabric;
    if (rng_.chance(0.5)) k.regions = {c.region};
    // A carbon cap only from a buyer whose own cluster meets it, so some cluster always can.
    if (rng_.chance(0.2) && c.carbonGramsPerKwh <= 400) k.maxCarbonGramsPerKwh = 400;
    o.constraints = std::move(k);
  }
  // An all-or-none limit bounds the average price: training buyers pay up for contiguity.
  o.limit = roundToTick(static_cast<double>(fairPrice(c.id, o.start, o.start + duration)) * rng_.uniform(0.98, 1.18));
  out.emplace_back(o);
  bids_.push_back({o.id, o.account, o.end, o.limit, now_});
}

void SimulatedMarket::cancelAndAmend(std::vector<InputEvent>& out) {
  const double perTick = 1.0 / config_.ticksPerHour;
  std::erase_if(bids_, [&](Bid& b) {
    if (b.end <= now_ + 1) return true;  // delivered or about to be: the engine expires it
    if (b.placedAt < now_ && rng_.chance(0.012 * perTick)) {
      out.emplace_back(CancelRequest{b.id, b.account});
      return true;
    }
    if (rng_.chance(0.008 * perTick)) {
      b.limit = roundToTick(static_cast<double>(b.limit) * 1.03);  // chase the market
      out.emplace_back(AmendRequest{b.id, b.account, b.limit, std::nullopt});
    }
    return false;
  });
  std::erase_if(listings_, [&](const Listing& l) {
    if (l.end <= now_ + 1) return true;
    if (rng_.chance(0.01 * perTick)) {
      out.emplace_back(CancelRequest{l.id, l.account});
      return true;
    }
    return false;
  });
}

void SimulatedMarket::failNodes(std::vector<InputEvent>& out) {
  // A node failure: the provider withdraws whatever it listed for the next day on that cluster.
  const Cluster& c = clusters_[static_cast<std::size_t>(rng_.between(0, static_cast<std::int64_t>(firmCount_) - 1))];
  std::erase_if(listings_, [&](const Listing& l) {
    if (l.cluster != c.id || l.start >= now_ + kHoursPerDay) return false;
    out.emplace_back(CancelRequest{l.id, l.account});
    return true;
  });
  // One node down for 2 to 6 hours. Derived from the step count, not drawn from the generator,
  // so the inputs stay what they were before outages existed.
  const Hour hours = 2 + static_cast<Hour>(steps_ % 5);
  outages_.push_back(SimulatedOutage{providers_[c.id - 1], c.id, now_, now_ + hours, c.gpusPerNode});
}

std::vector<SimulatedOutage> SimulatedMarket::takeOutages() { return std::exchange(outages_, {}); }

std::vector<SimulatedReclaim> SimulatedMarket::takeReclaims() { return std::exchange(reclaims_, {}); }

void SimulatedMarket::tradeInterruptible(std::vector<InputEvent>& out, bool opening) {
  const std::span<const Cluster> books(clusters_.data() + firmCount_, clusters_.size() - firmCount_);
  if (books.empty()) return;
  auto pick = [&]() -> const Cluster& {
    return books[static_cast<std::size_t>(spotRng_.between(0, static_cast<std::int64_t>(books.size()) - 1))];
  };
  if (opening) {
    for (const Cluster& c : books)
      for (int i = 0; i < 6; ++i) addInterruptibleListing(out, c, true);
    return;
  }
  const double perTick = config_.activity / config_.ticksPerHour;
  for (std::int64_t n = arrivalsFrom(spotRng_, config_.interruptibleListingsPerHour * perTick); n > 0; --n)
    addInterruptibleListing(out, pick(), false);
  for (std::int64_t n = arrivalsFrom(spotRng_, config_.interruptibleBidsPerHour * perTick * demandCycle(now_)); n > 0;
       --n)
    addInterruptibleBid(out, pick());
  // Reclaims: a provider needs some of its machines back (a firm customer, maintenance) and
  // takes one or two nodes' worth for a few hours, with the notice it promised.
  for (const Cluster& c : books) {
    if (!spotRng_.chance(config_.reclaimsPerDay / kHoursPerDay / config_.ticksPerHour)) continue;
    SimulatedReclaim r;
    r.provider = providers_[c.id - 1];
    r.cluster = c.id;
    r.start = now_ + c.noticeHours + spotRng_.between(0, 2);
    r.end = r.start + spotRng_.between(2, 8);
    r.gpus = c.gpusPerNode * static_cast<GpuCount>(spotRng_.between(1, 2));
    reclaims_.push_back(r);
  }
}

void SimulatedMarket::addInterruptibleListing(std::vector<InputEvent>& out, const Cluster& c, bool opening) {
  static constexpr std::array<Hour, 6> kLengths = {4, 8, 12, 24, 24, 48};
  const Hour len = kLengths[static_cast<std::size_t>(spotRng_.between(0, kLengths.size() - 1))];
  const Hour start = now_ + c.noticeHours + spotRng_.between(0, std::max<Hour>(1, 72 - len));
  const GpuCount free = unlisted(c.id, start, start + len);
  const int nodes = granted_[c.id - 1] / c.gpusPerNode;  // the nodes set aside for the book
  GpuCount gpus = c.gpusPerNode * static_cast<GpuCount>(spotRng_.between(1, std::max(1, nodes / 2)));
  gpus = std::min(gpus, free - free % c.gpusPerNode);
  if (gpus <= 0) return;
  markListed(c.id, start, start + len, gpus);
  OrderRequest o;
  o.id = nextOrder_++;
  o.account = providers_[c.id - 1];
  o.side = Side::Sell;
  o.cluster = c.id;
  o.interruptible = true;
  o.gpus = gpus;
  o.start = start;
  o.end = start + len;
  o.limit = roundToTick(static_cast<double>(fairPrice(c.id, o.start, o.end)) * (1.0 - config_.interruptibleDiscount) *
                        spotRng_.uniform(opening ? 1.0 : 0.97, opening ? 1.12 : 1.08));
  o.fill = FillStyle::Divisible;
  out.emplace_back(o);
}

void SimulatedMarket::addInterruptibleBid(std::vector<InputEvent>& out, const Cluster& c) {
  OrderRequest o;
  o.id = nextOrder_++;
  o.side = Side::Buy;
  o.cluster = c.id;
  o.interruptible = true;
  o.start = now_ + c.noticeHours + spotRng_.between(0, 36);
  const double discount = 1.0 - config_.interruptibleDiscount;
  if (spotRng_.chance(0.25)) {
    // A training run that checkpoints every one to four hours: all-or-none, whole nodes.
    o.account = trainingBuyers_[static_cast<std::size_t>(spotRng_.between(0, trainingBuyers_.size() - 1))];
    o.gpus =
        c.gpusPerNode * static_cast<GpuCount>(spotRng_.between(1, std::max(1, granted_[c.id - 1] / c.gpusPerNode / 3)));
    o.end = o.start + spotRng_.between(8, 24);
    o.fill = FillStyle::AllOrNone;
    o.tif = TimeInForce::GTD;
    o.expireAt = o.start;
    o.checkpointHours = spotRng_.between(1, 4);
  } else {
    o.account = inferenceBuyers_[static_cast<std::size_t>(spotRng_.between(0, inferenceBuyers_.size() - 1))];
    o.gpus = std::min<GpuCount>(granted_[c.id - 1], static_cast<GpuCount>(spotRng_.between(2, 32)));
    o.end = o.start + spotRng_.between(2, 24);
    o.fill = FillStyle::Divisible;
    o.tif = spotRng_.chance(0.2) ? TimeInForce::IOC : TimeInForce::GTC;
  }
  o.limit = roundToTick(static_cast<double>(fairPrice(c.id, o.start, o.end)) * discount * spotRng_.uniform(0.88, 1.10));
  out.emplace_back(o);
}

}  // namespace tessera::backtest
