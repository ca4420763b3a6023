#include "core/net/ExchangeCore.h"
#include "core/net/ExchangeLog.h"
#include "core/net/LostHours.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "core/domain/Fnv1a.h"
#include "core/engine/EventJson.h"
#include "core/engine/MatchingEngine.h"
#include "core/engine/SnapshotCodec.h"
#include "core/net/SnapshotStore.h"
#include "core/net/JournalForm.h"
#include "core/net/ServerMessage.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <chrono>
#include <stdexcept>

namespace tessera::net {
namespace {

constexpr const char* kFeeAccount = "exchange";

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

Hour currentUtcHour() {
  using namespace std::chrono;
  return duration_cast<hours>(system_clock::now().time_since_epoch()).count();
}

constexpr auto statusName = orderStatusName;

}  // namespace

void Outbox::clear() {
  toSession.clear();
  marketData.clear();
  subscribers.clear();
  disconnect.clear();
}

ExchangeCore::ExchangeCore(const ExchangeConfig& config, Journal& journal, const SnapshotStart* from)
    : limits_(config.limits),
      callMode_(config.callMode),
      journal_(journal),
      engine_(makeMatchingEngine(static_cast<std::size_t>(config.enginePrefaultMb) << 20)),
      archive_(journal, config.retireFinishedOrders),
      settledContracts_(journal, config.retireSettledContracts) {
  // The parts that reach the archive and the option desk, before a snapshot loads into them.
  accounts_.useArchive(archive_);
  calls_.useArchive(archive_);
  settledContracts_.attach(settlement_);
  desk_.useSettledContracts(settledContracts_);
  accounts_.useOptions(options_);
  desk_.useOptions(options_);
  epoch_ = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
  fingerprint_ = configFingerprint(config);
  if (from) {
    // The configured accounts and their deposits are in the snapshot (its fingerprint says the
    // configuration is the same).
    loadSnapshot(*from);
    fromSnapshot_ = true;
    snapshotSeq_ = from->journalSeq;
  } else {
    for (const AccountConfig& ac : config.accounts) {
      ExchangeAccount& a = accounts_.named(ac.name);
      a.house = ac.house;
      a.creditLimit = ac.creditLimit;
      a.configured = true;
      if (ac.cash > 0) ledger_.postChecked({a.id, Book::External}, {a.id, Book::Cash}, ac.cash, "deposit");
    }
  }
  feederReports_ = config.feederReports;
  if (config.feePpm > 0) settlement_.chargeFees(config.feePpm, accounts_.named(kFeeAccount).id);
  // An uptime credit never takes cash a working bid has reserved.
  settlement_.setHeldCash([this](AccountId id) { return accounts_.heldCash(id); });
  desk_.registerJournalEntries();
  calls_.registerJournalEntries();
  // Recording starts before the market opens, so a fresh exchange's history has its clusters
  // and grants; inputs replayed from the journal on a restart were recorded the first time.
  if (!config.recordPath.empty()) {
    auto opened = store::MarketHistoryStore::open(config.recordPath, store::OpenMode::ReadWrite);
    if (auto* e = std::get_if<store::StoreError>(&opened))
      throw std::runtime_error("cannot record market history to " + config.recordPath + ": " + e->message);
    history_ = std::move(std::get<std::unique_ptr<store::MarketHistoryStore>>(opened));
    recorder_ = std::make_unique<store::HistoryRecorder>(*history_, directory_);
  }
  try {
    replay(from ? from->journalSeq : 0);
  } catch (const std::exception& e) {
    throw JournalUnreadable(std::string("the journal cannot be replayed: ") + e.what());
  }
  if (replayed_ == 0 && !from) openMarket(config);
  // Orders of the other mode, left by a run with another call_mode, are cancelled, journaled,
  // once: orders waiting for calls that no longer come (their cash released), and orders
  // resting in the book of a cluster that now trades in calls (they could trade with a call's
  // legs).
  calls_.withdrawStranded();
  if (calls_.enabled())
    for (AccountId a = 1; a <= directory_.size(); ++a)
      for (const OrderView& v : engine_->workingOrders(a))
        if (calls_.inCallMode(v.request))
          (void)applyInput(CancelRequest{v.request.id, a}, accounts_.clOrdIdOf(v.request.id), nullptr);
  journal_.commit();       // what the replay archived (nothing new unless the journal lacked it)
  accounts_.clearDirty();  // nobody is connected yet: there is nobody to tell
}

ExchangeCore::~ExchangeCore() {
  if (recorder_)
    if (auto e = recorder_->flush()) std::cerr << "tessera-exchange: market history: " << e->message << '\n';
}

void ExchangeCore::stopRecording(const std::string& why) {
  std::cerr << "tessera-exchange: market history recording stopped: " << why << '\n';
  recorder_.reset();
  history_.reset();
}

Money ExchangeCore::cash(AccountId a) const { return accounts_.cash(a); }

Money ExchangeCore::escrow(AccountId a) const { return accounts_.escrow(a); }

Money ExchangeCore::reserved(AccountId a) const { return accounts_.reserved(a); }

void ExchangeCore::registerJournalEntry(std::string type, JournalEntryHandler replay) {
  replay_.registerEntry(std::move(type), std::move(replay));
}

BalanceFigures ExchangeCore::balanceOf(const ExchangeAccount& a) const {
  return accounts_.balanceOf(a, settlement_.creditsReceived(a.id));
}

// ---- journal replay ----

void ExchangeCore::replay(std::uint64_t afterSeq) {
  replayed_ = replay_.run(afterSeq, [this](const JournalEntry& e, InputEvent&& in) { replayInput(e, std::move(in)); });
  marketData_.dropPastTouches();
  marketData_.publishCells(nullptr);
}

void ExchangeCore::replayInput(const JournalEntry& e, InputEvent&& in) {
  // Every account the journal names gets its bookkeeping, whatever the config says now.
  std::visit(
      [this](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, CapacityGrant> || std::is_same_v<T, CancelRequest> ||
                      std::is_same_v<T, AmendRequest>) {
          accounts_.named(directory_.name(x.account));
        }
      },
      in);
  if (auto* o = std::get_if<OrderRequest>(&in)) {
    if (e.clOrdId.size() > kMaxClOrdIdLength) {
      throw std::runtime_error("journal entry " + std::to_string(e.seq) + ": cl_ord_id longer than " +
                               std::to_string(kMaxClOrdIdLength) + " characters");
    }
    accounts_.recordReplayed(*o, e.clOrdId);
  }
  // A call's leg, as it was live: its trade is the call's (CallDesk::legsOf).
  legging_ = calls_.replayingLeg(e.clOrdId);
  auto rej = applyInput(in, e.clOrdId, nullptr);
  legging_ = false;
  if (rej) {
    throw std::runtime_error("journal entry " + std::to_string(e.seq) + " is rejected on replay (" + rej->detail +
                             "): the journal does not match this engine");
  }
}

void ExchangeCore::openMarket(const ExchangeConfig& config) {
  const Hour now = config.initialClock.value_or(currentUtcHour());
  auto must = [this](const InputEvent& in, const std::string& what) {
    if (auto rej = applyInput(in, "", nullptr)) {
      throw std::runtime_error("cannot open the market: " + what + ": " + rej->detail);
    }
  };
  must(ClockAdvance{now}, "clock");
  for (const Cluster& c : config.clusters) must(c, "cluster '" + c.name + "'");
  for (const GrantConfig& g : config.grants) {
    std::optional<ClusterId> cluster;
    for (const Cluster& c : engine_->clusters()) {
      if (c.name == g.cluster) cluster = c.id;
    }
    if (!cluster) throw std::runtime_error("grant names unknown cluster '" + g.cluster + "'");
    must(CapacityGrant{accounts_.named(g.account).id, *cluster, g.gpus, g.start, g.end},
         "grant to '" + g.account + "'");
  }
  journal_.commit();
}

// ---- sessions and requests ----

void ExchangeCore::sessionOpened(SessionId s, std::string address) { sessions_.opened(s, std::move(address)); }

bool ExchangeCore::loggedOn(SessionId s) const { return sessions_.loggedOn(s); }

void ExchangeCore::sessionClosed(SessionId s) { sessions_.closed(s); }

void ExchangeCore::handleParseError(SessionId s, const ParseError& e, Outbox& out) {
  sessions_.replyError(s, out, e.code, e.reason, e.type, e.req);
}

void ExchangeCore::handleRejectedLine(SessionId s, std::string_view code, std::string_view reason, Outbox& out) {
  sessions_.replyError(s, out, code, reason, "", std::nullopt);
}

void ExchangeCore::handle(SessionId s, const ClientMessage& m, Outbox& out) {
  ExchangeSession* session = sessions_.find(s);
  if (!session) return;  // closed while the message was queued
  if (auto* logon = std::get_if<Logon>(&m.request)) return onLogon(s, *session, *logon, m.req, out);
  if (std::holds_alternative<Heartbeat>(m.request)) return sessions_.heartbeat(s, m.req, out);
  if (std::holds_alternative<Logout>(m.request)) return sessions_.logout(s, m.req, out);
  ExchangeAccount* a = sessions_.accountOf(s);
  if (!a) return sessions_.replyError(s, out, "not_logged_on", "log on first", typeName(m.request), m.req);
  dispatch(s, *session, *a, m, out);
}

void ExchangeCore::dispatch(SessionId s, ExchangeSession& session, ExchangeAccount& a, const ClientMessage& m,
                            Outbox& out) {
  const std::optional<std::uint64_t> req = m.req;
  std::visit(Overloaded{
                 // Every session is cash-checked, house accounts too (against their credit line).
                 [&](const NewOrder& n) { onNewOrder(a, n, out, true); },
                 [&](const CancelOrder& c) { onCancel(s, a, c, req, out); },
                 [&](const AmendOrder& am) { onAmend(s, a, am, req, out); },
                 [&](const MassCancel& mc) { onMassCancel(s, a, mc, req, out); },
                 [&](const OrderStatusQuery& q) { onOrderStatus(s, a, q, req, out); },
                 [&](const OrdersQuery&) { onOrders(s, a, req, out); },
                 [&](const PositionsQuery& q) { onPositions(s, a, q, req, out); },
                 [&](const OrderHistoryQuery& q) { onOrderHistory(s, a, q, req, out); },
                 [&](const BalanceQuery&) { appendBalance(out.toSession[s], balanceOf(a), req); },
                 [&](const DeliveryReportRequest& r) { onDeliveryReport(s, a, r, req, out); },
                 [&](const ForwardRequest& f) { desk_.forwardRequest(a, f, req, out); },
                 [&](const OptionRequest& r) { desk_.optionRequest(a, r, req, out); },
                 [&](const OutageRequest& r) { onOutage(s, a, r, req, out); },
                 [&](const ReclaimRequest& r) { onReclaim(s, a, r, req, out); },
                 [&](const IndexHistoryQuery&) { onIndexHistory(s, req, out); },
                 [&](const IndicativeQuery&) { onIndicative(s, req, out); },
                 [&](const ReclaimRatesQuery&) { onReclaimRates(s, req, out); },
                 [&](const Subscribe& sub) { onSubscribe(s, session, sub, out); },
                 [&](const Unsubscribe&) { sessions_.unsubscribe(s, session, req, out); },
                 [&](const auto&) {},
             },
             m.request);
}

void ExchangeCore::onLogon(SessionId s, ExchangeSession& session, const Logon& logon, std::optional<std::uint64_t> req,
                           Outbox& out) {
  const ExchangeAccount* a = sessions_.logon(s, session, logon, req, out);
  if (!a) return;
  nlohmann::json clusters = nlohmann::json::array();
  for (const Cluster& c : engine_->clusters()) clusters.push_back(toJson(c));
  std::string& o = out.toSession[s];
  o += "{\"type\":\"logon_ack\",\"account\":";
  o += jsonString(a->name);
  o += ",\"epoch\":" + std::to_string(epoch_) + ",\"now\":" + std::to_string(engine_->now()) +
       ",\"md_seq\":" + std::to_string(marketData_.seq()) + ",\"clusters\":" + clusters.dump();
  if (calls_.enabled()) o += ",\"call_mode\":" + nlohmann::json(calls_.schedule()).dump();
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::onNewOrder(ExchangeAccount& a, const NewOrder& m, Outbox& out, bool checks) {
  auto reject = [&](std::string_view code, std::string_view reason) {
    logReject(a.name, code);
    std::string line;
    appendRejected(line, m.clOrdId, code, reason);
    accounts_.toAccount(a.id, out, line);
  };
  auto admitted = accounts_.admit(a, m, checks);
  if (const auto* refused = std::get_if<Refusal>(&admitted)) return reject(refused->code, refused->reason);
  const OrderRequest& o = std::get<OrderRequest>(admitted);
  if (calls_.inCallMode(o)) {
    if (auto refused = calls_.check(o)) {
      accounts_.withdraw(a, o.id, m.clOrdId);
      return reject(refused->code, refused->reason);
    }
    return calls_.accept(o, m.clOrdId, &out);
  }
  if (auto refused = calls_.checkContinuous(o)) {
    accounts_.withdraw(a, o.id, m.clOrdId);
    return reject(refused->code, refused->reason);
  }
  if (auto rej = applyInput(o, m.clOrdId, &out)) {
    accounts_.withdraw(a, o.id, m.clOrdId);
    reject(codeOf(rej->reason), rej->detail);
  }
}

void ExchangeCore::onCancel(SessionId s, ExchangeAccount& a, const CancelOrder& c, std::optional<std::uint64_t> req,
                            Outbox& out) {
  auto id = accounts_.resolve(a, c.ref);
  if (!id) return sessions_.replyError(s, out, "unknown_order", "no such order of yours", "cancel", req);
  if (calls_.waiting(*id)) return calls_.cancel(*id, CancelReason::User, &out);
  if (auto rej = applyInput(CancelRequest{*id, a.id}, accounts_.clOrdIdOf(*id), &out)) {
    sessions_.replyError(s, out, codeOf(rej->reason), rej->detail, "cancel", req);
  }
}

void ExchangeCore::onAmend(SessionId s, ExchangeAccount& a, const AmendOrder& m, std::optional<std::uint64_t> req,
                           Outbox& out) {
  auto id = accounts_.resolve(a, m.ref);
  auto view = id ? engine_->order(*id) : std::nullopt;
  if (!id) return sessions_.replyError(s, out, "unknown_order", "no such order of yours", "amend", req);
  if (calls_.waiting(*id)) {
    if (auto refused = calls_.amend(a, *id, m, &out))
      sessions_.replyError(s, out, refused->code, refused->reason, "amend", req);
    return;
  }
  if (!view || view->status != OrderStatus::Working) {
    // A finished order, in memory or retired to the archive: the engine says it does not work.
    if (auto rej = applyInput(AmendRequest{*id, a.id, m.limit, m.gpus}, accounts_.clOrdIdOf(*id), &out))
      sessions_.replyError(s, out, codeOf(rej->reason), rej->detail, "amend", req);
    return;
  }
  OrderRecord& info = accounts_.order(*id);
  if (auto refused = accounts_.checkAmend(a, info, *view, m))
    return sessions_.replyError(s, out, refused->code, refused->reason, "amend", req);
  if (auto rej = applyInput(AmendRequest{*id, a.id, m.limit, m.gpus}, info.clOrdId, &out)) {
    sessions_.replyError(s, out, codeOf(rej->reason), rej->detail, "amend", req);
  }
}

void ExchangeCore::onMassCancel(SessionId s, const ExchangeAccount& a, const MassCancel& mc,
                                std::optional<std::uint64_t> req, Outbox& out) {
  int n = 0;
  for (const OrderView& v : engine_->workingOrders(a.id)) {
    if (mc.cluster && v.request.cluster != mc.cluster) continue;
    const OrderRecord& info = accounts_.order(v.request.id);
    if (!applyInput(CancelRequest{v.request.id, a.id}, info.clOrdId, &out)) ++n;
  }
  for (OrderId id : calls_.waitingOf(a.id, mc.cluster)) {
    calls_.cancel(id, CancelReason::User, &out);
    ++n;
  }
  std::string& o = out.toSession[s];
  o += "{\"type\":\"mass_cancel_ack\",\"cancelled\":" + std::to_string(n);
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::onOrderStatus(SessionId s, const ExchangeAccount& a, const OrderStatusQuery& q,
                                 std::optional<std::uint64_t> req, Outbox& out) {
  auto id = accounts_.resolve(a, q.ref);
  auto view = id ? engine_->order(*id) : std::nullopt;
  if (id && !view) view = calls_.view(*id);
  // A finished order retired from memory answers from the archive, alike.
  auto found = view ? std::optional(FinishedOrderArchive::describe(*view, accounts_.order(*id).clOrdId))
               : id ? archive_.find(*id)
                    : std::nullopt;
  if (!found) return sessions_.replyError(s, out, "unknown_order", "no such order of yours", "order_status", req);
  std::string& o = out.toSession[s];
  o += "{\"type\":\"order_status\",";
  FinishedOrderArchive::appendFields(o, *found);
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::onOrderHistory(SessionId s, const ExchangeAccount& a, const OrderHistoryQuery& q,
                                  std::optional<std::uint64_t> req, Outbox& out) {
  std::string& o = out.toSession[s];
  archive_.appendHistory(o, a.id, q.after.value_or(0), q.limit.value_or(kOrderHistoryPage));
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::retireFinished(const std::vector<Event>& events) {
  FinishedOrderArchive::finishedIn(events, finishedScratch_);
  for (OrderId id : finishedScratch_) {
    const OrderRecord* info = accounts_.findOrder(id);
    if (!info || info->open || !archive_.archive(*engine_, id, info->account, info->clOrdId)) continue;
    accounts_.retire(id);
  }
}

void ExchangeCore::onOrders(SessionId s, const ExchangeAccount& a, std::optional<std::uint64_t> req, Outbox& out) {
  nlohmann::json list = nlohmann::json::array();
  std::vector<OrderView> working = engine_->workingOrders(a.id);
  for (OrderId id : calls_.waitingOf(a.id, std::nullopt)) working.push_back(*calls_.view(id));
  for (const OrderView& v : working) {
    list.push_back({{"order_id", v.request.id},
                    {"cl_ord_id", accounts_.order(v.request.id).clOrdId},
                    {"status", statusName(v.status)},
                    {"filled_gpu_hours", v.filledGpuHours},
                    {"leaves_gpu_hours", v.leavesGpuHours},
                    {"order", toJson(v.request)}});
  }
  std::string& o = out.toSession[s];
  o += "{\"type\":\"orders\",\"orders\":" + list.dump();
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::onPositions(SessionId s, const ExchangeAccount& a, const PositionsQuery& q,
                               std::optional<std::uint64_t> req, Outbox& out) {
  // Settled contracts retired from memory come from the archive, alike.
  const std::size_t limit = q.limit.value_or(kPositionsPage);
  const std::vector<ListedContract> page = settledContracts_.page(*engine_, a.id, q.after.value_or(0), limit);
  const auto to = page.size() > limit ? page.begin() + static_cast<std::ptrdiff_t>(limit) : page.end();
  nlohmann::json list = nlohmann::json::array();
  for (auto it = page.begin(); it != to; ++it) {
    const Contract& c = it->contract;
    const auto state = it->archivedDelivered ? std::optional(ContractState::Settled) : settlement_.state(c.id);
    list.push_back({{"contract", c.id},
                    {"trade", c.trade},
                    {"side", c.buyer == a.id ? "buy" : "sell"},
                    {"buy_order", c.buyer == a.id ? c.buyOrder : 0},
                    {"sell_order", c.seller == a.id ? c.sellOrder : 0},
                    {"cluster", c.cluster},
                    {"gpus", c.gpus},
                    {"start", c.start},
                    {"end", c.end},
                    {"price", c.price},
                    {"state", state ? std::string(toString(*state)) : std::string("unknown")},
                    {"delivered_gpu_hours", it->archivedDelivered.value_or(settlement_.deliveredGpuHours(c.id))},
                    {"escrow", settlement_.escrow(c.id)},
                    {"replaces", c.replaces},
                    {"aggressor", desk_.tookLiquidity(c, a.id)}});
    // A call's contract: nobody took liquidity (aggressor false on both sides).
    if (desk_.madeByCall(c)) list.back()["in_call"] = true;
    // The buyer's hours an outage took and nothing replaced: not held (tessera-cli scale buys them again).
    if (auto lost = settlement_.unreplacedShortfallRuns(c.id); !lost.empty() && c.buyer == a.id)
      list.back()["lost"] = lostHoursJson(lost);
    // Interruptible GPU-hours its provider took back (and refunded), on both sides.
    if (auto reclaimed = settlement_.reclaimedRuns(c.id); !reclaimed.empty())
      list.back()["reclaimed"] = lostHoursJson(reclaimed);
  }
  std::string& o = out.toSession[s];
  o += "{\"type\":\"positions\",\"contracts\":" + list.dump();
  if (to != page.end()) o += ",\"next_after\":" + std::to_string(std::prev(to)->contract.id);
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::onIndexHistory(SessionId s, std::optional<std::uint64_t> req, Outbox& out) {
  std::string& o = out.toSession[s];
  o += "{\"type\":\"index_history\",\"points\":[";
  marketData_.appendIndexHistory(o);
  o += ']';
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::onReclaimRates(SessionId s, std::optional<std::uint64_t> req, Outbox& out) {
  std::string& o = out.toSession[s];
  o += "{\"type\":\"reclaim_rates\",\"window\":\"open_contracts\",\"clusters\":" + reclaimRates().dump();
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::publishReclaimRates(Outbox* out) {
  // Market data carries them too (md_reclaim_rates), every hour and after each reclaim, so a
  // subscriber's planner prices interruptible capacity at what is observed without asking.
  if (!out) return;
  nlohmann::json rates = reclaimRates();
  if (rates.empty()) return;
  marketData_.publishUnnumbered(
      {nlohmann::json{{"type", "md_reclaim_rates"}, {"window", "open_contracts"}, {"clusters", std::move(rates)}}
           .dump()},
      out);
}

nlohmann::json ExchangeCore::reclaimRates() const {
  // Observed over the contracts not yet settled (the settlement keeps their reclaimed hours):
  // per interruptible cluster, what was sold there and what its provider took back.
  struct Seen {
    std::int64_t sold = 0, reclaimed = 0, contractedHours = 0, reclaimedContracts = 0;
  };
  std::map<ClusterId, Seen> seen;
  for (const Cluster& c : engine_->clusters())
    if (c.interruptible()) seen[c.id];
  for (ContractId id : settlement_.openContracts()) {
    const Contract* k = settlement_.contract(id);
    const auto it = k ? seen.find(k->cluster) : seen.end();
    if (it == seen.end()) continue;
    const std::int64_t taken = settlement_.reclaimedGpuHours(id);
    it->second.sold += static_cast<std::int64_t>(k->gpus) * (k->end - k->start);
    it->second.reclaimed += taken;
    it->second.contractedHours += k->end - k->start;
    it->second.reclaimedContracts += taken > 0 ? 1 : 0;
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [id, s] : seen) {
    const Cluster* c = engine_->cluster(id);
    list.push_back({{"cluster", id},
                    {"provider", c->provider},
                    {"sold_gpu_hours", s.sold},
                    {"reclaimed_gpu_hours", s.reclaimed},
                    {"rate", s.sold > 0 ? static_cast<double>(s.reclaimed) / static_cast<double>(s.sold) : 0.0},
                    {"contracted_hours", s.contractedHours},
                    {"reclaimed_contracts", s.reclaimedContracts}});
  }
  return list;
}

void ExchangeCore::onSubscribe(SessionId s, ExchangeSession& session, const Subscribe& m, Outbox& out) {
  session.subscribed = true;
  marketData_.answerSubscribe(out.toSession[s], m.fromSeq, epoch_, [this] {
    // md_snapshot's forward_books value, then the option books as a field of their own.
    return forwards_.booksJson() + ",\"option_books\":" + options_.booksJson();
  });
  // The reclaim rates observed so far follow the snapshot (as the reclaim_rates reply: they are
  // not part of the sequenced feed), so a new subscriber's planner has them before the next
  // md_reclaim_rates.
  if (!reclaimRates().empty()) onReclaimRates(s, std::nullopt, out);
}

void ExchangeCore::onDeliveryReport(SessionId s, const ExchangeAccount& a, const DeliveryReportRequest& m,
                                    std::optional<std::uint64_t> req, Outbox& out) {
  const DeliveryReport r{m.contract, m.start, m.end, m.usableGpus, m.problem};
  std::string& o = out.toSession[s];
  if (auto err = desk_.deliveryReport(a.id, r, &out)) {
    sessions_.replyError(s, out, *err,
                         *err == "unknown_contract" ? "no such contract of yours"
                         : *err == "hours_already_settled"
                             ? "those hours are already settled"
                             : "the report does not fit the contract (hours within it, usable GPUs 0 to its GPUs)",
                         "delivery_report", req);
    return;
  }
  o += "{\"type\":\"delivery_report_ack\",\"contract\":" + std::to_string(m.contract);
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::onOutage(SessionId s, const ExchangeAccount& a, const OutageRequest& m,
                            std::optional<std::uint64_t> req, Outbox& out) {
  std::vector<ContractId> affected;
  std::string& o = out.toSession[s];
  if (auto err = desk_.outage(a.id, m, &out, &affected)) {
    sessions_.replyError(s, out, *err,
                         *err == "unknown_cluster"         ? "no such cluster"
                         : *err == "hours_already_settled" ? "those hours are already over"
                         : *err == "not_your_cluster"      ? "only the cluster's provider reports outages on it"
                         : *err == "nothing_sold"          ? "you sold nothing on this cluster in those hours"
                                                           : "an outage needs 0 <= start < end, at most " +
                                                        std::to_string(SettlementDesk::kMaxOutageHours) +
                                                        " hours, and lost_gpus > 0 (or a link/power problem)",
                         "outage", req);
    return;
  }
  recordOutage(a.id, m);
  o += "{\"type\":\"outage_ack\",\"cluster\":" + std::to_string(m.cluster) + ",\"contracts\":[";
  for (std::size_t i = 0; i < affected.size(); ++i) {
    if (i) o += ',';
    o += std::to_string(affected[i]);
  }
  o += ']';
  appendReq(o, req);
  o += "}\n";
  // The outage rule (docs/settlement.md): what the provider still offers for those hours on the
  // cluster is cancelled, so nobody buys GPUs it has just reported lost.
  for (OrderId id : desk_.asksDuring(a.id, m.cluster, m.start, m.end))
    (void)applyInput(CancelRequest{id, a.id}, accounts_.clOrdIdOf(id), &out);
}

void ExchangeCore::onReclaim(SessionId s, const ExchangeAccount& a, const ReclaimRequest& m,
                             std::optional<std::uint64_t> req, Outbox& out) {
  const auto done = desk_.reclaim(a.id, m, &out);
  if (const auto* err = std::get_if<std::string>(&done)) {
    sessions_.replyError(s, out, *err,
                         *err == "unknown_contract"    ? "no such contract of yours"
                         : *err == "not_interruptible" ? "only interruptible capacity can be reclaimed"
                         : *err == "not_your_cluster"  ? "only the cluster's provider reclaims its capacity"
                         : *err == "notice_too_short" ? "a reclaim starts at least the cluster's notice after the clock"
                         : *err == "hours_already_settled" ? "those hours are already settled"
                         : *err == "resold" ? "the buyer has sold those GPU-hours on: they are not its to take back"
                                            : "a reclaim needs start < end inside the contract, at most " +
                                                  std::to_string(SettlementDesk::kMaxOutageHours) +
                                                  " hours, and 1 to the GPUs the contract still has",
                         "reclaim", req);
    return;
  }
  takeBackReclaimed(a.id, m, out);
  std::string& o = out.toSession[s];
  o += "{\"type\":\"reclaim_ack\",\"contract\":" + std::to_string(m.contract) +
       ",\"refunded\":" + std::to_string(std::get<Money>(done));
  appendReq(o, req);
  o += "}\n";
}

void ExchangeCore::takeBackReclaimed(AccountId provider, const ReclaimRequest& m, Outbox& out) {
  const Contract k = *engine_->contract(m.contract);
  // The buyer's asks that offer the reclaimed hours are cancelled first (each an engine input of
  // its own), but only when what it holds free of offers falls short in some hour.
  bool short_ = false;
  for (Hour h = m.start; h < m.end && !short_; ++h) {
    const Holding held = engine_->holding(k.buyer, k.cluster, h);
    short_ = held.held - held.offered < m.gpus;
  }
  if (short_)
    for (OrderId id : desk_.asksDuring(k.buyer, k.cluster, m.start, m.end))
      (void)applyInput(CancelRequest{id, k.buyer}, accounts_.clOrdIdOf(id), &out);
  // The settlement has refunded the hours: the engine must take them, or the two disagree.
  if (auto rej = applyInput(CapacityReclaim{k.id, provider, k.buyer, m.gpus, m.start, m.end}, "", &out))
    throw std::logic_error("the engine refuses the reclaim the settlement accepted: " + rej->detail);
  // The market history keeps it as a reclaim a backtest applies to its own contracts (the
  // capacity_reclaim input just recorded names this market's contract).
  if (recorder_ && !replay_.replaying()) {
    const auto micros =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    recorder_->recordReclaim({0, micros, provider, k.cluster, m.start, m.end, m.gpus, k.id});
  }
  publishReclaimRates(&out);
}

void ExchangeCore::inject(const InputEvent& e, const std::string& accountName, Outbox& out) {
  applyFeederOutages(out);
  auto accountFor = [&](AccountId id) -> ExchangeAccount& {
    return accounts_.named(accountName.empty() ? "feed-" + std::to_string(id) : accountName);
  };
  std::visit(Overloaded{
                 [&](const OrderRequest& o) {
                   ExchangeAccount& a = accountFor(o.account);
                   onNewOrder(a, NewOrder{std::to_string(o.id), o}, out, !a.house);
                 },
                 [&](const CancelRequest& c) {
                   ExchangeAccount& a = accountFor(c.account);
                   if (auto id = accounts_.resolve(a, OrderRef{std::nullopt, std::to_string(c.id)})) {
                     applyInput(CancelRequest{*id, a.id}, std::to_string(c.id), &out);
                   }
                 },
                 [&](const AmendRequest& am) {
                   ExchangeAccount& a = accountFor(am.account);
                   if (auto id = accounts_.resolve(a, OrderRef{std::nullopt, std::to_string(am.id)})) {
                     applyInput(AmendRequest{*id, a.id, am.limit, am.gpus}, std::to_string(am.id), &out);
                   }
                 },
                 [&](const CapacityGrant& g) {
                   CapacityGrant copy = g;
                   copy.account = accountFor(g.account).id;
                   applyInput(copy, "", &out);
                 },
                 [&](const auto& other) { applyInput(other, "", &out); },
             },
             e);
  if (callDue_) {
    callDue_ = false;
    runCall(out);
  }
}

void ExchangeCore::callTick(Outbox& out) {
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (calls_.due(now)) (void)calls_.runCall(&out, now);
}

void ExchangeCore::runCall(Outbox& out) {
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  (void)calls_.runCall(&out, now);
}

void ExchangeCore::onIndicative(SessionId s, std::optional<std::uint64_t> req, Outbox& out) {
  if (!calls_.enabled())
    return sessions_.replyError(s, out, "unsupported", "this exchange trades continuously only", "indicative", req);
  nlohmann::json j = calls_.indicative();
  j["type"] = "indicative";
  j["call_mode"] = calls_.schedule();
  if (calls_.lastCall()) j["last_call"] = *calls_.lastCall();
  if (req) j["req"] = *req;
  out.toSession[s] += j.dump() + "\n";
}

std::optional<std::vector<Event>> ExchangeCore::applyLeg(InputEvent& leg, const std::string& clOrdId, Outbox* out) {
  auto* order = std::get_if<OrderRequest>(&leg);
  if (order) {
    order->id = accounts_.nextOrderId();
    accounts_.recordReplayed(*order, clOrdId);
  }
  legging_ = true;
  auto rej = applyInput(leg, clOrdId, out);
  legging_ = false;
  if (rej) {
    if (order) accounts_.withdraw(accounts_.at(order->account), order->id, clOrdId);
    return std::nullopt;
  }
  return events_;
}

void ExchangeCore::finishBatch(Outbox& out) {
  applyFeederOutages(out);
  // The recorder writes a transaction every few thousand inputs by itself; on a quiet market
  // write at least once a second, so the file is never far behind.
  if (recorder_ && std::chrono::steady_clock::now() - lastHistoryFlush_ > std::chrono::seconds(1)) {
    lastHistoryFlush_ = std::chrono::steady_clock::now();
    if (auto e = recorder_->flush()) stopRecording(e->message);
  }
  for (AccountId id : accounts_.dirty()) {
    const ExchangeAccount& a = accounts_.at(id);
    if (a.sessions.empty()) continue;
    std::string line;
    appendBalance(line, balanceOf(a), std::nullopt);
    accounts_.toAccount(id, out, line);
  }
  accounts_.clearDirty();
  sessions_.appendSubscribers(out.subscribers);
}

void ExchangeCore::applyFeederOutages(Outbox& out) {
  if (!feederReports_) return;
  for (const auto& [provider, m] : desk_.feederOutages(*feederReports_, out)) recordOutage(provider, m);
  desk_.feederReclaims(*feederReports_, out,
                       [&](AccountId provider, const ReclaimRequest& m) { takeBackReclaimed(provider, m, out); });
}

void ExchangeCore::recordOutage(AccountId provider, const OutageRequest& m) {
  // The market history keeps lost GPUs (a backtest applies them by the same rule); a degraded
  // link or power loses none.
  if (!recorder_ || replay_.replaying() || m.problem != DeliveryProblem::MissingGpus) return;
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  recorder_->recordOutage({0, micros, provider, m.cluster, m.start, m.end, m.lostGpus});
}

// ---- engine inputs and their events ----

std::optional<OrderRejected> ExchangeCore::applyInput(const InputEvent& in, const std::string& clOrdId, Outbox* out) {
  events_.clear();
  engine_->apply(in, events_);
  for (const Event& e : events_) {
    if (auto* r = std::get_if<OrderRejected>(&e)) return *r;
  }
  const bool live = !replay_.replaying();
  if (live) {
    writeJournalForm(scratch_, in, directory_);
    journal_.append(clOrdId, scratch_);
    if (recorder_) {
      const auto micros =
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
              .count();
      recorder_->record(micros, in, events_);
    }
  }
  // Moved out: the events' handlers may query the engine, never apply, but events_ stays free
  // for reuse.
  const std::vector<Event> events = std::move(events_);
  events_.clear();
  for (const Event& e : events) onEvent(e, out);
  retireFinished(events);
  // Replay publishes nothing to anyone: the cells it touches are brought up to date once, at
  // its end (a depth query per touched cell per entry would make restarts several times slower).
  // A call's legs rest and trade within the call: subscribers never see their cells.
  if (live) marketData_.publishCells(legging_ ? nullptr : out);
  events_ = std::move(events);
  return std::nullopt;
}

void ExchangeCore::onEvent(const Event& ev, Outbox* out) {
  std::visit(Overloaded{
                 [&](const OrderAccepted& e) { onAccepted(e, out); },
                 [&](const Fill& f) { onFill(f, out); },
                 [&](const OrderCancelled& c) { onCancelled(c, out); },
                 [&](const OrderAmended& am) { onAmended(am, out); },
                 [&](const ClockAdvanced& c) { onClock(c.now, out); },
                 [&](const ContractCreated& cc) { desk_.contractCreated(cc.contract, out); },
                 [&](const ClusterAdded& c) {
                   if (const Cluster* cl = engine_->cluster(c.cluster)) marketData_.clusterAdded(*cl, out);
                 },
                 [&](const auto&) {},
             },
             ev);
}

void ExchangeCore::onAccepted(const OrderAccepted& e, Outbox* out) {
  OrderRecord& info = accounts_.order(e.order);
  accounts_.opened(e.order, info);
  if (auto v = engine_->order(e.order)) marketData_.touch(v->request, v->request.start, v->request.end);
  if (!out || legging_) return;
  scratch_.clear();
  appendAccepted(scratch_, e.order, info.clOrdId);
  accounts_.toAccount(info.account, *out, scratch_);
}

void ExchangeCore::onFill(const Fill& f, Outbox* out) {
  OrderRecord& info = accounts_.order(f.order);
  // Money moves with the contract (ContractCreated: escrow) and its delivery, not here.
  if (f.side == Side::Buy) {
    desk_.recordTaker(f, legging_);
    marketData_.recordPrint(f);
  }
  accounts_.markDirty(f.account);
  if (auto v = engine_->order(f.order)) marketData_.touch(v->request, f.start, f.end);
  if (f.leavesGpuHours == 0) accounts_.close(info);
  accounts_.syncReservation(f.order, info);
  if (!out) return;
  // A call's leg: CallDesk reports the fill to the order that traded in the call.
  if (!legging_) {
    scratch_.clear();
    appendFill(scratch_, f, info.clOrdId);
    accounts_.toAccount(f.account, *out, scratch_);
  }
  if (f.side == Side::Buy) marketData_.publishTrade(f, out, legging_ ? calls_.legsOf() : 0);
}

void ExchangeCore::onCancelled(const OrderCancelled& c, Outbox* out) {
  OrderRecord& info = accounts_.order(c.order);
  accounts_.markDirty(info.account);
  if (auto v = engine_->order(c.order)) marketData_.touch(v->request, v->request.start, v->request.end);
  if (c.leavesGpuHours == 0) accounts_.close(info);
  accounts_.syncReservation(c.order, info);
  if (!out || legging_) return;
  scratch_.clear();
  appendCancelled(scratch_, c, info.clOrdId);
  accounts_.toAccount(info.account, *out, scratch_);
}

void ExchangeCore::onAmended(const OrderAmended& am, Outbox* out) {
  OrderRecord& info = accounts_.order(am.order);
  info.limit = am.limit;
  accounts_.syncReservation(am.order, info);
  if (auto v = engine_->order(am.order)) marketData_.touch(v->request, v->request.start, v->request.end);
  if (!out) return;
  scratch_.clear();
  appendAmended(scratch_, am, info.clOrdId);
  accounts_.toAccount(info.account, *out, scratch_);
}

void ExchangeCore::onClock(Hour now, Outbox* out) {
  marketData_.clockAdvanced(now, out);
  desk_.settleTo(now, out);
  settledContracts_.retireSettled(*engine_);
  marketData_.publishIndex(now, out);
  publishReclaimRates(out);
  // Forwards are marked (and weeks settled) against the next-day index just published.
  desk_.markForwards(now, marketData_.nextDayPrices(), out);
  // A call at each clock step runs once the step's input is done (never on replay: the journal
  // holds the call).
  if (calls_.callsAtEachHour() && out && !replay_.replaying()) callDue_ = true;
}

// ---- state: digest, snapshot, start ----

std::uint64_t ExchangeCore::stateDigest() const {
  Fnv1a h;
  std::string line;
  auto add = [&](const auto&... values) {
    line.clear();
    ((line += std::to_string(values), line += ' '), ...);
    line += '\n';
    h.add(line);
  };
  auto addJson = [&](const nlohmann::json& j) {
    h.add(j.dump());
    h.add("\n");
  };
  const Matcher& engine = *engine_;
  // Not the next order id itself: an order the engine rejects uses up an id live but is not
  // journaled, so a replay may hand out ids a live core skipped (no reply ever showed them).
  add(engine.now(), directory_.size());
  for (const Cluster& c : engine.clusters()) addJson(toJson(c));
  // Orders: the engine's view of each (working or finished) and the exchange's record of it.
  // A finished order counts alike whether it is still in memory or retired to the archive, so
  // the digest does not depend on when orders retire.
  for (OrderId id = 1; id < accounts_.nextOrderId(); ++id) {
    const auto v = engine.order(id);
    const OrderRecord* info = accounts_.findOrder(id);
    if (v) {
      addJson(toJson(v->request));
      add(v->request.account, static_cast<int>(v->status), v->filledGpuHours, v->leavesGpuHours);
    }
    if (info) {
      h.add(info->clOrdId);
      add(info->account, info->limit, static_cast<int>(info->side), info->reserved, info->open);
      // Which order the client's id names now (a later order may have taken it over).
      const ExchangeAccount& acc = accounts_.at(info->account);
      auto named = acc.byClOrdId.find(info->clOrdId);
      if (!named)
        if (auto o = archive_.find(acc.id, info->clOrdId)) named = o->orderId;
      add(named.value_or(0));
    } else if (!v) {
      if (auto o = archive_.find(id)) {
        // As the engine and the exchange's record held it when it finished.
        h.add(o->order);
        h.add("\n");
        add(o->account, o->status, o->filledGpuHours, o->leavesGpuHours);
        h.add(o->clOrdId);
        const auto request = nlohmann::json::parse(o->order);
        add(o->account, request.at("limit").get<Price>(), static_cast<int>(request.at("side") == "sell"), 0, false);
        auto named = accounts_.at(o->account).byClOrdId.find(o->clOrdId);
        if (!named)
          if (auto newest = archive_.find(o->account, o->clOrdId)) named = newest->orderId;
        add(named.value_or(0));
      }
    }
  }
  // Who took liquidity in each contract's trade (the positions reply says it).
  for (SettlementDesk::Taker t : desk_.takers())
    h.add(t == SettlementDesk::Taker::Buyer ? "t" : t == SettlementDesk::Taker::Seller ? "m" : "c");
  h.add("\n");
  Hour lastHour = engine.now();
  for (AccountId a = 1; a <= directory_.size(); ++a) {
    h.add(directory_.name(a));
    if (const ExchangeAccount* found = accounts_.find(a)) {
      const ExchangeAccount& acc = *found;
      add(acc.reserved, acc.house, acc.creditLimit, acc.configured, acc.openOrders);
    }
    for (const OrderView& v : engine.workingOrders(a)) add(v.request.id);
    // Settled contracts count alike whether kept in memory or retired to the archive.
    for (const ListedContract& l : settledContracts_.page(engine, a, 0, SIZE_MAX)) {
      const Contract& k = l.contract;
      addJson(toJson(k, directory_));
      lastHour = std::max(lastHour, k.end);
      // A settled contract's reclaimed hours are paid out already and the archive does not keep
      // them, so they count while the contract is open only.
      if (l.archivedDelivered)
        add(static_cast<int>(ContractState::Settled), 0, *l.archivedDelivered, 0);
      else if (const auto st = settlement_.state(k.id))
        add(static_cast<int>(*st), settlement_.escrow(k.id), settlement_.deliveredGpuHours(k.id),
            *st == ContractState::Settled ? 0 : settlement_.reclaimedGpuHours(k.id));
    }
    add(settlement_.creditsReceived(a), forwards_.marginHeld(a));
    for (const ForwardOrder& o : forwards_.market().workingOrders(a))
      add(o.id, o.account, static_cast<int>(o.side), static_cast<int>(o.accelerator), o.weekStart, o.gpuHours, o.price);
    for (const ForwardPosition& p : forwards_.market().positionsOf(a))
      add(p.id, p.buyer, p.seller, static_cast<int>(p.terms.accelerator), p.terms.weekStart, p.terms.gpuHours,
          p.terms.price, static_cast<int>(p.status), p.buyerMargin, p.sellerMargin, p.lastMark);
    for (Book b : {Book::Cash, Book::Reserved, Book::Escrow, Book::Margin, Book::Fees, Book::External})
      add(ledger_.balance({a, b}));
  }
  // Holdings of every account on every cluster, from the clock to the last contracted hour.
  for (const Cluster& c : engine.clusters())
    for (AccountId a = 1; a <= directory_.size(); ++a)
      for (Hour hour = engine.now(); hour < lastHour; ++hour) {
        const Holding held = engine.holding(a, c.id, hour);
        if (held.held != 0 || held.offered != 0) add(c.id, a, hour, held.held, held.offered);
      }
  add(ledger_.postingCount());
  for (const Posting& p : ledger_.postings()) {
    add(p.id, p.from.account, static_cast<int>(p.from.book), p.to.account, static_cast<int>(p.to.book), p.amount);
    h.add(p.memo);
  }
  h.add(forwards_.booksJson());
  h.add(options_.stateDigestText());
  h.add(calls_.digestText());
  add(marketData_.indexAsOf().value_or(-1), marketData_.indexHistory().size());
  for (const auto& [key, p] : marketData_.indexNow())
    add(static_cast<int>(key.first), static_cast<int>(key.second), p.asOf, p.value.price, p.value.gpuHours,
        p.value.trades, p.value.stale);
  for (const IndexPublication& p : marketData_.indexHistory())
    add(static_cast<int>(p.accelerator), static_cast<int>(p.tenor), p.asOf, p.value.price, p.value.gpuHours,
        p.value.trades, p.value.stale);
  add(marketData_.publishedThrough(), marketData_.published().size());
  for (const auto& [cell, levels] : marketData_.published()) {
    add(cell.cluster, cell.hour, static_cast<int>(cell.side));
    for (const BookLevel& l : levels) {
      add(l.price, l.gpus, l.orders);
      addJson(toJson(l.terms));
    }
  }
  return h.value();
}

std::uint64_t ExchangeCore::configFingerprint(const ExchangeConfig& config) {
  Fnv1a h;
  for (const AccountConfig& a : config.accounts)
    h.add(a.name + " " + std::to_string(a.cash) + " " + std::to_string(a.house) + " " + std::to_string(a.creditLimit) +
          "\n");
  h.add("fee " + std::to_string(config.feePpm));
  return h.value();
}

std::string ExchangeCore::snapshotHeader() const {
  if (journal_.inTransaction()) throw std::logic_error("a snapshot is taken after the journal's commit");
  std::string out;
  SnapshotWriter w(out);
  replay_.writeHeader(w, fingerprint_);
  return out;
}

std::string ExchangeCore::snapshot(std::string out, std::size_t expectedBytes) const {
  const auto* engine = dynamic_cast<const MatchingEngine*>(engine_.get());
  if (!engine) throw std::logic_error("snapshots need the fast matching engine");
  out.reserve(expectedBytes + expectedBytes / 8);
  SnapshotWriter w(out);
  const std::size_t engineAt = w.reserve();
  engine->saveSnapshot(out);
  w.fill(engineAt);
  accounts_.save(w);
  desk_.save(w);
  marketData_.save(w);
  calls_.save(w);
  return out;
}

void ExchangeCore::loadSnapshot(const SnapshotStart& from) {
  SnapshotReader r(from.bytes);
  replay_.checkHeader(r, from.journalSeq, fingerprint_);
  auto* engine = dynamic_cast<MatchingEngine*>(engine_.get());
  if (!engine) throw std::logic_error("snapshots need the fast matching engine");
  engine->loadSnapshot(r.bytes(r.count(1)));
  accounts_.load(r);
  desk_.load(r);
  marketData_.load(r);
  calls_.load(r);
  if (!r.done()) throw SnapshotCorrupt("bytes after the exchange's state");
}

std::unique_ptr<ExchangeCore> ExchangeCore::start(const ExchangeConfig& config, Journal& journal,
                                                  SnapshotStore* store) {
  std::vector<SnapshotInfo> snapshots;
  if (store) {
    try {
      snapshots = store->list();
    } catch (const std::exception& e) {
      exchangeLog()->warn("snapshots cannot be listed ({}): replaying the whole journal", e.what());
    }
  }
  {
    const std::uint64_t fingerprint = configFingerprint(config);
    for (const SnapshotInfo& info : snapshots) {
      const std::string which = "snapshot " + std::to_string(info.id) + " (after journal entry " +
                                std::to_string(info.journalSeq) + ", written " + info.writtenAt + ")";
      if (info.format != kSnapshotFormat) {
        exchangeLog()->warn("{} is of another version ({}): not used", which, info.format);
        continue;
      }
      if (info.configFingerprint != fingerprint) {
        exchangeLog()->warn("{} was taken under other configured accounts or fee: not used", which);
        continue;
      }
      std::variant<std::string, std::string> bytes;
      try {
        bytes = store->read(info.id);
      } catch (const std::exception& e) {
        bytes.emplace<1>(e.what());
      }
      if (bytes.index() == 1) {
        exchangeLog()->warn("{} is damaged: {}; trying an older one", which, std::get<1>(bytes));
        continue;
      }
      try {
        const SnapshotStart from{info.journalSeq, std::get<0>(bytes)};
        auto core = std::make_unique<ExchangeCore>(config, journal, &from);
        exchangeLog()->info("started from {} and {} later journal entries", which, core->replayedEntries());
        return core;
      } catch (const SnapshotCorrupt& e) {
        exchangeLog()->warn("{} cannot be used: {}; trying an older one", which, e.what());
      }
    }
  }
  return std::make_unique<ExchangeCore>(config, journal);
}

}  // namespace tessera::net
