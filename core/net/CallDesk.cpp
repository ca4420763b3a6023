#include "core/net/CallDesk.h"

#include "core/engine/EventJson.h"
#include "core/engine/MarketLimits.h"
#include "core/engine/SnapshotCodec.h"
#include "core/net/ExchangeLog.h"
#include "core/net/ServerMessage.h"
#include "core/settlement/ContractSettlement.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <tuple>

namespace tessera::net {
namespace {

using nlohmann::json;

std::int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// A call's result as the "call" journal entry holds it (auction::toJson's form).
auction::CallResult resultFromJson(const json& j) {
  auction::CallResult r;
  r.welfare = j.at("welfare").get<Money>();
  r.firstRoundWelfare = j.at("first_round_welfare").get<Money>();
  r.bound = j.at("bound").get<double>();
  r.gap = j.at("gap").get<double>();
  r.optimal = j.at("optimal").get<bool>();
  r.stoppedOnTime = j.at("stopped_on_time").get<bool>();
  r.rounds = j.at("rounds").get<int>();
  for (const json& p : j.at("prices"))
    r.prices.push_back({p.at("cluster").get<ClusterId>(), p.at("hour").get<Hour>(), p.at("price").get<Price>(),
                        p.at("volume").get<GpuCount>()});
  for (const json& b : j.at("blocks"))
    r.blocks.push_back({b.at("order").get<OrderId>(), b.at("cluster").get<ClusterId>(), b.at("start").get<Hour>(),
                        b.at("end").get<Hour>(), b.at("gpus").get<GpuCount>()});
  for (const json& f : j.at("fills"))
    r.fills.push_back({f.at("order").get<OrderId>(), f.at("account").get<AccountId>(),
                       f.at("side") == "sell" ? Side::Sell : Side::Buy, f.at("cluster").get<ClusterId>(),
                       f.at("start").get<Hour>(), f.at("end").get<Hour>(), f.at("gpus").get<GpuCount>(),
                       f.at("price").get<Price>()});
  r.expired = j.at("expired").get<std::vector<OrderId>>();
  return r;
}

// One trade of a call between one bid and one ask over consecutive hours at one price.
struct Pairing {
  ClusterId cluster = 0;
  OrderId buy = 0, sell = 0;
  AccountId buyer = 0, seller = 0;
  GpuCount gpus = 0;
  Price price = 0;
  Hour start = 0, end = 0;
};

// The call's fills paired hour by hour (bids and asks in the result's order), then merged into
// runs of hours with the same pair, size and price: the contracts the call makes.
std::vector<Pairing> pairFills(const std::vector<auction::CallFill>& fills) {
  struct Part {
    OrderId order;
    AccountId account;
    GpuCount gpus;
    Price price;
  };
  std::map<std::pair<ClusterId, Hour>, std::pair<std::vector<Part>, std::vector<Part>>> rows;
  for (const auction::CallFill& f : fills)
    for (Hour h = f.start; h < f.end; ++h) {
      auto& row = rows[{f.cluster, h}];
      (f.side == Side::Buy ? row.first : row.second).push_back({f.order, f.account, f.gpus, f.price});
    }
  std::vector<Pairing> hours;
  for (auto& [key, row] : rows) {
    auto& [bids, asks] = row;
    for (std::size_t b = 0, a = 0; b < bids.size() && a < asks.size();) {
      const GpuCount q = std::min(bids[b].gpus, asks[a].gpus);
      hours.push_back({key.first, bids[b].order, asks[a].order, bids[b].account, asks[a].account, q, bids[b].price,
                       key.second, key.second + 1});
      bids[b].gpus -= q;
      asks[a].gpus -= q;
      if (bids[b].gpus == 0) ++b;
      if (asks[a].gpus == 0) ++a;
    }
  }
  auto key = [](const Pairing& p) { return std::tie(p.cluster, p.buy, p.sell, p.gpus, p.price, p.start); };
  std::sort(hours.begin(), hours.end(), [&](const Pairing& x, const Pairing& y) { return key(x) < key(y); });
  std::vector<Pairing> runs;
  for (const Pairing& p : hours) {
    if (!runs.empty()) {
      Pairing& last = runs.back();
      if (last.cluster == p.cluster && last.buy == p.buy && last.sell == p.sell && last.gpus == p.gpus &&
          last.price == p.price && last.end == p.start) {
        last.end = p.end;
        continue;
      }
    }
    runs.push_back(p);
  }
  std::sort(runs.begin(), runs.end(), [](const Pairing& x, const Pairing& y) {
    return std::tie(x.cluster, x.start, x.buy, x.sell) < std::tie(y.cluster, y.start, y.buy, y.sell);
  });
  return runs;
}

}  // namespace

CallDesk::CallDesk(const Matcher& engine, ExchangeAccounts& accounts, MarketDataFeed& marketData,
                   JournalReplay& journal, const CallModeConfig& config, LegExecutor execute)
    : engine_(engine),
      accounts_(accounts),
      marketData_(marketData),
      journal_(journal),
      config_(config),
      execute_(std::move(execute)) {
  auction::CallOptions options;
  options.solver.nodes = config.nodeLimit;
  options.solver.seconds = config.seconds;
  market_ = auction::CallMarket(options);
  scheduleNext(unixNow());
}

void CallDesk::registerJournalEntries() {
  journal_.registerEntry("call_order", [this](const json& j) {
    ExchangeAccount& a = accounts_.named(j.at("account").get<std::string>());
    auto parsed = orderFromJson(j.at("order"), a.id);
    if (auto* e = std::get_if<JsonError>(&parsed)) throw std::runtime_error("call_order: " + e->message);
    const OrderRequest& o = std::get<OrderRequest>(parsed);
    const std::string clOrdId = j.at("cl_ord_id").get<std::string>();
    accounts_.recordReplayed(o, clOrdId);
    accept(o, clOrdId, nullptr);
  });
  journal_.registerEntry("call_amend", [this](const json& j) {
    (void)applyAmend(j.at("id").get<OrderId>(), j.at("limit").get<Price>(), j.at("gpus").get<GpuCount>());
  });
  journal_.registerEntry("call_cancel", [this](const json& j) {
    cancel(j.at("id").get<OrderId>(), j.at("reason") == "expired" ? CancelReason::Expired : CancelReason::User,
           nullptr);
  });
  journal_.registerEntry("call", [this](const json& j) {
    market_.setClock(j.at("clock").get<Hour>());
    syncClusters();
    record(resultFromJson(j.at("result")), j.at("call").get<std::uint64_t>());
    legsOf_ = calls_;
  });
  journal_.registerEntry("call_legs", [this](const json&) { legsOf_ = 0; });
}

bool CallDesk::replayingLeg(std::string_view clOrdId) {
  if (legsOf_ == 0) return false;
  const std::string prefix = "call-" + std::to_string(legsOf_) + "-";
  if (clOrdId.substr(0, prefix.size()) == prefix) return true;
  legsOf_ = 0;
  return false;
}

bool CallDesk::inCallMode(ClusterId c) const {
  if (config_.allClusters) return true;
  const Cluster* k = engine_.cluster(c);
  return k && std::find(config_.clusters.begin(), config_.clusters.end(), k->name) != config_.clusters.end();
}

bool CallDesk::inCallMode(const OrderRequest& o) const {
  if (!enabled()) return false;
  if (config_.allClusters) return true;
  return o.cluster && inCallMode(*o.cluster);
}

std::optional<Refusal> CallDesk::check(const OrderRequest& o) const { return check(auction::CallEntry{o, {}}, {}); }

std::optional<Refusal> CallDesk::checkContinuous(const OrderRequest& o) const {
  if (!enabled() || config_.allClusters || o.cluster || !o.constraints) return std::nullopt;
  ClusterConstraints candidates = *o.constraints;
  candidates.acceptsInterruptible = o.interruptible;  // as the engine's validation reads them
  for (const Cluster& c : engine_.clusters())
    if (inCallMode(c.id) && candidates.matches(c))
      return Refusal{std::string(codeOf(RejectReason::Unsupported)),
                     "the constraints include " + c.name +
                         ", which trades in calls: name a cluster, or narrow the constraints to clusters that "
                         "trade continuously"};
  return std::nullopt;
}

std::optional<Refusal> CallDesk::check(const auction::CallEntry& entry, std::optional<OrderId> except) const {
  const OrderRequest& o = entry.request;
  auto refuse = [](RejectReason r, std::string d) { return Refusal{std::string(codeOf(r)), std::move(d)}; };
  const Hour now = engine_.now();
  if (o.tif == TimeInForce::IOC || o.tif == TimeInForce::FOK)
    return refuse(RejectReason::InvalidTimeInForce,
                  "an order for a call waits for it: immediate-or-cancel and fill-or-kill do not apply");
  if (o.postOnly || o.sellBack)
    return refuse(RejectReason::Unsupported, "post-only and sell-back orders trade continuously only");
  if (o.gpus <= 0 || o.gpus > limits::kMaxClusterGpus)
    return refuse(RejectReason::InvalidGpuCount, "gpus must be between 1 and 1000000");
  if (o.limit <= 0 || o.limit > limits::kMaxPrice)
    return refuse(RejectReason::InvalidPrice, "the limit must be above $0 and at most $100 per GPU-hour");
  if (o.start >= o.end || o.end - o.start > limits::kMaxWindowHours ||
      (o.duration && (*o.duration <= 0 || *o.duration > o.end - o.start)))
    return refuse(RejectReason::InvalidWindow, "the window must satisfy start < end and hold the duration");
  if (o.end <= now || (o.fill == FillStyle::AllOrNone && o.start < now && !o.duration))
    return refuse(RejectReason::WindowInPast, "the window has passed the exchange clock");
  if (o.tif == TimeInForce::GTD && (!o.expireAt || *o.expireAt <= now))
    return refuse(RejectReason::InvalidTimeInForce, "a GTD order expires after the exchange clock");
  if (!o.cluster && !o.constraints) return refuse(RejectReason::Unsupported, "an order names a cluster or constraints");
  if (o.cluster) {
    const Cluster* c = engine_.cluster(*o.cluster);
    if (!c) return refuse(RejectReason::UnknownCluster, "no cluster " + std::to_string(*o.cluster));
    if (o.gpus > c->totalGpus()) return refuse(RejectReason::ExceedsClusterSize, "more GPUs than the cluster has");
    if (o.interruptible != c->interruptible())
      return refuse(RejectReason::CapacityMismatch,
                    "the order's capacity (firm or interruptible) is not the cluster's");
  }
  if (o.side == Side::Sell) {
    if (!o.cluster || o.duration)
      return refuse(RejectReason::Unsupported, "an ask for a call names its cluster and a fixed window");
    for (Hour h = std::max(o.start, now); h < o.end; ++h) {
      const Holding held = engine_.holding(o.account, *o.cluster, h);
      auto want = [h](const auction::CallEntry& e) {
        return e.remaining.empty() ? e.request.gpus : e.remaining[static_cast<std::size_t>(h - e.request.start)];
      };
      GpuCount waiting = 0;
      for (const auction::CallEntry& e : market_.working()) {
        const OrderRequest& w = e.request;
        if (w.side != Side::Sell || w.account != o.account || w.cluster != o.cluster || h < w.start || h >= w.end ||
            w.id == except)
          continue;
        waiting += want(e);
      }
      if (held.held - held.offered - waiting < want(entry))
        return refuse(RejectReason::InsufficientHoldings, "you do not hold " + std::to_string(o.gpus) +
                                                              " GPUs free of offers in hour " + std::to_string(h));
    }
  }
  return std::nullopt;
}

std::int64_t CallDesk::leavesOf(const auction::CallEntry& e) const {
  const OrderRequest& o = e.request;
  if (o.fill == FillStyle::AllOrNone) return std::int64_t{o.gpus} * o.hours();
  std::int64_t n = 0;
  for (Hour h = std::max(o.start, engine_.now()); h < o.end; ++h)
    n += e.remaining.empty() ? o.gpus : e.remaining[static_cast<std::size_t>(h - o.start)];
  return n;
}

void CallDesk::accept(const OrderRequest& o, const std::string& clOrdId, Outbox* out) {
  OrderRequest request = o;
  // As the engine's validation does: constraints offer interruptible clusters to an order that accepts them.
  if (request.constraints) request.constraints->acceptsInterruptible = request.interruptible;
  if (!journal_.replaying())
    journal_.append(json{{"type", "call_order"},
                         {"account", accounts_.at(request.account).name},
                         {"cl_ord_id", clOrdId},
                         {"order", toJson(request)}}
                        .dump());
  market_.setClock(engine_.now());
  (void)market_.apply(request);
  OrderRecord& info = accounts_.order(request.id);
  accounts_.opened(request.id, info);
  accounts_.syncCallReservation(info, leavesOf(*market_.find(request.id)));
  indicative_.reset();
  if (!out) return;
  std::string line;
  appendAccepted(line, request.id, clOrdId);
  accounts_.toAccount(request.account, *out, line);
}

void CallDesk::cancel(OrderId id, CancelReason why, Outbox* out) {
  const auction::CallEntry* e = market_.find(id);
  if (!e) return;
  const AccountId account = e->request.account;
  const std::int64_t leaves = leavesOf(*e);
  if (!journal_.replaying())
    journal_.append(
        json{{"type", "call_cancel"}, {"id", id}, {"reason", why == CancelReason::Expired ? "expired" : "user"}}
            .dump());
  const OrderRequest request = e->request;
  const std::string clOrdId = accounts_.order(id).clOrdId;
  (void)market_.apply(CancelRequest{id, account});
  finish(request, OrderStatus::Cancelled);
  indicative_.reset();
  if (!out) return;
  std::string line;
  appendCancelled(line, OrderCancelled{id, account, why, leaves, 0}, clOrdId);
  accounts_.toAccount(account, *out, line);
}

std::optional<Refusal> CallDesk::amend(const ExchangeAccount& a, OrderId id, const AmendOrder& m, Outbox* out) {
  const auction::CallEntry* e = market_.find(id);
  if (!e || e->request.account != a.id) return Refusal{"unknown_order", "no such order of yours"};
  auto refuse = [](RejectReason r, std::string d) { return Refusal{std::string(codeOf(r)), std::move(d)}; };
  const auction::CallEntry after = auction::CallMarket::amended(*e, m.limit, m.gpus);
  if (after.request.limit == e->request.limit && after.request.gpus == e->request.gpus)
    return refuse(RejectReason::NothingToAmend, "the amend changes nothing");
  if (auto refused = check(after, id)) return refused;
  const std::int64_t leaves = leavesOf(after);
  if (leaves == 0)
    return refuse(RejectReason::InvalidGpuCount, "the amended order would want nothing in any hour still ahead");
  OrderRecord& info = accounts_.order(id);
  if (info.side == Side::Buy) {
    // Exactly the reservation the amended bid will hold; what it holds now counts as available.
    const Money needed = after.request.limit * leaves;
    const Money available = info.reserved + accounts_.spendable(a);
    if (needed > available)
      return Refusal{"insufficient_cash", "the amended bid needs " + toDollars(needed) + ", " +
                                              toDollars(std::max<Money>(available, 0)) + " is available"};
  }
  const Price limit = after.request.limit;
  const GpuCount gpus = after.request.gpus;
  journal_.append(json{{"type", "call_amend"}, {"id", id}, {"limit", limit}, {"gpus", gpus}}.dump());
  const bool kept = applyAmend(id, limit, gpus);
  if (!out) return std::nullopt;
  std::string line;
  appendAmended(line, OrderAmended{id, a.id, limit, gpus, kept}, info.clOrdId);
  accounts_.toAccount(a.id, *out, line);
  return std::nullopt;
}

bool CallDesk::applyAmend(OrderId id, std::optional<Price> limit, std::optional<GpuCount> gpus) {
  const auction::CallEntry* e = market_.find(id);
  if (!e) throw std::runtime_error("call_amend: order " + std::to_string(id) + " is not waiting for a call");
  const OrderRequest before = e->request;
  (void)market_.apply(AmendRequest{id, before.account, limit, gpus});
  const auction::CallEntry* after = market_.find(id);
  OrderRecord& info = accounts_.order(id);
  info.limit = after->request.limit;
  accounts_.syncCallReservation(info, leavesOf(*after));
  indicative_.reset();
  return auction::CallMarket::keepsPlace(before, after->request);
}

void CallDesk::withdrawStranded() {
  std::vector<OrderId> stranded;
  for (const auction::CallEntry& e : market_.working())
    if (!inCallMode(e.request)) stranded.push_back(e.request.id);
  for (OrderId id : stranded) cancel(id, CancelReason::Expired, nullptr);
}

void CallDesk::finish(const OrderRequest& request, OrderStatus status) {
  const OrderId id = request.id;
  const auto f = filled_.find(id);
  const std::int64_t filled = f == filled_.end() ? 0 : f->second;
  filled_.erase(id);
  OrderRecord& info = accounts_.order(id);
  accounts_.close(info);
  accounts_.syncCallReservation(info, 0);
  // Nothing still works: leaves 0, as the engine describes a finished order.
  if (archive_ && archive_->archive(OrderView{request, status, filled, 0}, info.clOrdId)) accounts_.retire(id);
}

std::optional<OrderView> CallDesk::view(OrderId id) const {
  const auction::CallEntry* e = market_.find(id);
  if (!e) return std::nullopt;
  const auto f = filled_.find(id);
  return OrderView{e->request, OrderStatus::Working, f == filled_.end() ? 0 : f->second, leavesOf(*e)};
}

std::vector<OrderId> CallDesk::waitingOf(AccountId account, std::optional<ClusterId> cluster) const {
  std::vector<OrderId> ids;
  for (const auction::CallEntry& e : market_.working())
    if (e.request.account == account && (!cluster || e.request.cluster == cluster)) ids.push_back(e.request.id);
  return ids;
}

CallSchedule CallDesk::schedule() const {
  CallSchedule s{config_.allClusters, {}, config_.periodSeconds, config_.atEachHour && enabled(), nextCallUnix_};
  if (!config_.allClusters)
    for (const Cluster& c : engine_.clusters())
      if (inCallMode(c.id)) s.clusters.push_back(c.id);
  return s;
}

void CallDesk::scheduleNext(std::int64_t nowUnix) {
  // Calls fall on multiples of the period (every quarter hour on the quarter hour).
  nextCallUnix_ =
      config_.periodSeconds > 0 && enabled() ? (nowUnix / config_.periodSeconds + 1) * config_.periodSeconds : 0;
}

void CallDesk::syncClusters() {
  for (const Cluster& c : engine_.clusters()) (void)market_.apply(c);
}

std::vector<OrderId> CallDesk::uncoveredAsks() const {
  std::map<std::tuple<AccountId, ClusterId, Hour>, GpuCount> used;
  std::vector<OrderId> uncovered;
  const Hour now = engine_.now();
  for (const auction::CallEntry& e : market_.working()) {
    const OrderRequest& o = e.request;
    if (o.side != Side::Sell || !o.cluster) continue;
    auto want = [&](Hour h) {
      return e.remaining.empty() ? o.gpus : e.remaining[static_cast<std::size_t>(h - o.start)];
    };
    bool covered = true;
    for (Hour h = std::max(o.start, now); h < o.end && covered; ++h) {
      const Holding held = engine_.holding(o.account, *o.cluster, h);
      covered = held.held - held.offered - used[{o.account, *o.cluster, h}] >= want(h);
    }
    if (!covered) {
      uncovered.push_back(o.id);
      continue;
    }
    for (Hour h = std::max(o.start, now); h < o.end; ++h) used[{o.account, *o.cluster, h}] += want(h);
  }
  return uncovered;
}

CallReport CallDesk::reportOf(const auction::CallResult& r) const {
  CallReport report;
  report.clock = market_.now();
  report.orders = static_cast<std::int64_t>(market_.workingOrders());
  report.welfare = r.welfare;
  report.gap = r.gap;
  report.optimal = r.optimal;
  report.prices = r.prices;
  for (const auction::AcceptedBlock& b : r.blocks) {
    const auction::CallEntry* e = market_.find(b.order);
    report.blocks.push_back({b.cluster, b.start, b.end, b.gpus, e ? e->request.side : Side::Buy});
  }
  return report;
}

CallReport CallDesk::record(const auction::CallResult& r, std::uint64_t call) {
  CallReport report = reportOf(r);
  report.call = call;
  calls_ = call;
  std::map<OrderId, std::int64_t> traded;  // GPU-hours each order trades in this call
  for (const auction::CallFill& f : r.fills) traded[f.order] += std::int64_t{f.gpus} * (f.end - f.start);
  for (const auto& [id, n] : traded) filled_[id] += n;
  // Every order that waited, as it stood, with what it wanted at the call's clock.
  std::vector<std::pair<OrderRequest, std::int64_t>> touched;
  for (const auction::CallEntry& e : market_.working()) touched.emplace_back(e.request, leavesOf(e));
  market_.carry(r);
  // Every order that waited: its reservation follows what it still wants (the clock may have
  // moved too); one the call finished is archived, filled if the call traded all it still
  // wanted, else cancelled (expired, or its window passed).
  for (const auto& [request, leaves] : touched) {
    const OrderId id = request.id;
    if (const auction::CallEntry* e = market_.find(id)) {
      accounts_.syncCallReservation(accounts_.order(id), leavesOf(*e));
      continue;
    }
    const auto t = traded.find(id);
    const bool expired = std::find(r.expired.begin(), r.expired.end(), id) != r.expired.end();
    const bool filled = !expired && t != traded.end() && t->second >= leaves;
    finish(request, filled ? OrderStatus::Filled : OrderStatus::Cancelled);
  }
  last_ = report;
  indicative_.reset();
  return report;
}

std::optional<CallReport> CallDesk::runCall(Outbox* out, std::int64_t nowUnix) {
  scheduleNext(nowUnix);
  if (!enabled() || market_.workingOrders() == 0) return std::nullopt;
  syncClusters();
  market_.setClock(engine_.now());
  // GTD orders whose time has come, and asks their sellers no longer cover, expire first.
  std::vector<OrderId> gone;
  for (const auction::CallEntry& e : market_.working())
    if (e.request.expireAt && *e.request.expireAt <= engine_.now()) gone.push_back(e.request.id);
  for (OrderId id : gone) cancel(id, CancelReason::Expired, out);
  for (OrderId id : uncoveredAsks()) cancel(id, CancelReason::Expired, out);
  if (market_.workingOrders() == 0) return std::nullopt;
  auction::CallResult r;
  try {
    r = market_.clear();
  } catch (const std::exception& e) {
    exchangeLog()->error("the call cannot be cleared: {}", e.what());
    return std::nullopt;
  }
  std::map<OrderId, std::pair<OrderRequest, std::int64_t>> before;
  for (const auction::CallEntry& e : market_.working()) before[e.request.id] = {e.request, leavesOf(e)};
  journal_.append(json{
      {"type", "call"}, {"call", calls_ + 1}, {"clock", market_.now()}, {"result", json::parse(auction::toJson(r))}}
                      .dump());
  CallReport report = record(r, calls_ + 1);
  executeLegs(r, before, out);
  if (out) {
    json body = report;
    body["type"] = "md_call_result";
    body["next_call"] = nextCallUnix_;
    marketData_.publishUnnumbered({body.dump()}, out);
  }
  exchangeLog()->info("call {}: {} orders, welfare {}, {} prices, {} blocks, gap {}, {:.3f} s", report.call,
                      report.orders, toDollars(report.welfare), report.prices.size(), report.blocks.size(), r.gap,
                      r.seconds);
  return report;
}

void CallDesk::executeLegs(const auction::CallResult& r,
                           const std::map<OrderId, std::pair<OrderRequest, std::int64_t>>& before, Outbox* out) {
  std::map<OrderId, std::int64_t> leaves;
  for (const auto& [id, b] : before) leaves[id] = b.second;
  auto report = [&](Fill f, OrderId order, AccountId account) {
    f.order = order;
    f.account = account;
    f.aggressor = false;  // nobody takes liquidity in a call
    f.leavesGpuHours = leaves[order] -= std::int64_t{f.gpus} * (f.end - f.start);
    if (!out) return;
    std::string line;
    appendFill(line, f, accounts_.clOrdIdOf(order), calls_);
    accounts_.toAccount(account, *out, line);
  };
  std::size_t k = 0;
  legsOf_ = calls_;
  bool legs = false;  // whether any leg was journaled (then "call_legs" ends them)
  for (const Pairing& p : pairFills(r.fills)) {
    ++k;
    Fill f{0, 0, 0, 0, Side::Buy, false, p.cluster, p.gpus, p.start, p.end, p.price, 0};
    if (p.buyer == p.seller) {
      // An account meeting itself in a call trades nothing: no contract, the fills only.
      report(f, p.buy, p.buyer);
      f.side = Side::Sell;
      report(f, p.sell, p.seller);
      continue;
    }
    const OrderRequest& ask = before.at(p.sell).first;
    const Cluster* cluster = engine_.cluster(p.cluster);
    OrderRequest sell;
    sell.account = p.seller;
    sell.side = Side::Sell;
    sell.cluster = p.cluster;
    sell.gpus = p.gpus;
    sell.limit = p.price;
    sell.start = p.start;
    sell.end = p.end;
    sell.terms = ask.terms;
    sell.interruptible = cluster && cluster->interruptible();
    OrderRequest buy = sell;
    buy.account = p.buyer;
    buy.side = Side::Buy;
    buy.tif = TimeInForce::IOC;
    buy.terms = {};
    const std::string leg = "call-" + std::to_string(calls_) + "-" + std::to_string(k);
    InputEvent sellIn = sell;
    legs = true;
    auto sold = execute_(sellIn, leg + "s", out);
    if (!sold) {
      exchangeLog()->error("call {}: the ask leg of orders {} and {} was rejected; no contract", calls_, p.buy, p.sell);
      continue;
    }
    const OrderId sellLeg = std::get<OrderRequest>(sellIn).id;
    InputEvent buyIn = buy;
    auto bought = execute_(buyIn, leg + "b", out);
    std::optional<Fill> buyFill, sellFill;
    if (bought)
      for (const Event& e : *bought)
        if (const auto* fill = std::get_if<Fill>(&e)) (fill->side == Side::Buy ? buyFill : sellFill) = *fill;
    if (!buyFill || !sellFill || buyFill->gpus != p.gpus) {
      exchangeLog()->error("call {}: the bid leg of orders {} and {} did not trade; no contract", calls_, p.buy,
                           p.sell);
      InputEvent withdraw = CancelRequest{sellLeg, p.seller};
      (void)execute_(withdraw, leg + "s", out);
      continue;
    }
    report(*buyFill, p.buy, p.buyer);
    report(*sellFill, p.sell, p.seller);
  }
  legsOf_ = 0;
  if (legs) journal_.append(json{{"type", "call_legs"}, {"call", calls_}}.dump());
  if (!out) return;
  for (OrderId id : r.expired) {
    const auto it = before.find(id);
    if (it == before.end()) continue;
    std::string line;
    appendCancelled(line, OrderCancelled{id, it->second.first.account, CancelReason::Expired, leaves[id], 0},
                    accounts_.clOrdIdOf(id));
    accounts_.toAccount(it->second.first.account, *out, line);
  }
}

CallReport CallDesk::indicative() {
  if (indicative_ && indicative_->clock == engine_.now()) return *indicative_;
  syncClusters();
  market_.setClock(engine_.now());
  CallReport report;
  report.clock = engine_.now();
  if (market_.workingOrders() > 0) {
    try {
      report = reportOf(market_.clear());
    } catch (const std::exception& e) {
      exchangeLog()->error("the indicative clearing failed: {}", e.what());
    }
  }
  indicative_ = report;
  return report;
}

namespace {

// The state a restart rebuilds. With `withClock`, the call market's clock too (the snapshot's
// form): the digest leaves it out, since an indicative query moves it live and a replay does
// not, and every call moves it to the exchange clock before it clears.
json stateJson(const auction::CallMarket& market, const std::map<OrderId, std::int64_t>& filled, std::uint64_t calls,
               const std::optional<CallReport>& last, bool withClock) {
  json waiting = json::array();
  for (const auction::CallEntry& e : market.working()) {
    const auto f = filled.find(e.request.id);
    waiting.push_back({{"account", e.request.account},
                       {"order", toJson(e.request)},
                       {"remaining", e.remaining},
                       {"filled", f == filled.end() ? 0 : f->second}});
  }
  json j = {{"calls", calls}, {"waiting", waiting}};
  if (withClock) j["clock"] = market.now();
  if (last) j["last"] = *last;
  return j;
}

}  // namespace

std::string CallDesk::digestText() const { return stateJson(market_, filled_, calls_, last_, false).dump(); }

void CallDesk::save(SnapshotWriter& w) const { w.str(stateJson(market_, filled_, calls_, last_, true).dump()); }

void CallDesk::load(SnapshotReader& r) {
  const json j = json::parse(r.str());
  std::vector<auction::CallEntry> waiting;
  filled_.clear();
  for (const json& e : j.at("waiting")) {
    auto parsed = orderFromJson(e.at("order"), e.at("account").get<AccountId>());
    if (auto* err = std::get_if<JsonError>(&parsed)) throw SnapshotCorrupt("call order: " + err->message);
    waiting.push_back({std::get<OrderRequest>(parsed), e.at("remaining").get<std::vector<GpuCount>>()});
    if (const auto f = e.at("filled").get<std::int64_t>()) filled_[waiting.back().request.id] = f;
  }
  market_.restore(j.at("clock").get<Hour>(), std::move(waiting));
  calls_ = j.at("calls").get<std::uint64_t>();
  last_.reset();
  if (j.contains("last")) last_ = j.at("last").get<CallReport>();
}

}  // namespace tessera::net
