#include "core/net/ExchangeCore.h"
#include "core/net/ExchangeLog.h"

#include <spdlog/spdlog.h>

#include <iostream>

#include "core/domain/Fnv1a.h"
#include "core/engine/CashReservation.h"
#include "core/engine/EventJson.h"
#include "core/engine/MatchingEngine.h"
#include "core/engine/SnapshotCodec.h"
#include "core/net/SnapshotStore.h"
#include "core/engine/MarketLimits.h"
#include "core/net/JournalForm.h"
#include "core/net/ServerMessage.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>
#include <chrono>
#include <stdexcept>

namespace tessera::net {
namespace {

constexpr std::size_t kPublishedLevels = 20;
constexpr Hour kIndexHistoryHours = 30 * kHoursPerDay;
// A `subscribe` with `from_seq` replays at most this many bytes of kept market data; beyond it
// the answer is a snapshot.
constexpr std::size_t kMaxResumeBytes = 1 << 20;
// One outage report covers at most a month; a longer one is several reports.
constexpr Hour kMaxOutageHours = 31 * kHoursPerDay;
constexpr const char* kFeeAccount = "exchange";

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// Cash a resting bid holds: limit x GPUs x hours. Orders outside the engine's bounds are
// rejected by the engine anyway, so they reserve nothing rather than overflowing.
Hour currentUtcHour() {
  using namespace std::chrono;
  return duration_cast<hours>(system_clock::now().time_since_epoch()).count();
}

std::string_view statusName(OrderStatus s) {
  switch (s) {
    case OrderStatus::Working: return "working";
    case OrderStatus::Filled: return "filled";
    case OrderStatus::Cancelled: return "cancelled";
  }
  return "unknown";
}

void appendReq(std::string& out, std::optional<std::uint64_t> req) {
  if (req) {
    out += ",\"req\":";
    out += std::to_string(*req);
  }
}

}  // namespace

void Outbox::clear() {
  toSession.clear();
  marketData.clear();
  subscribers.clear();
  disconnect.clear();
}

ExchangeCore::ExchangeCore(const ExchangeConfig& config, Journal& journal, const SnapshotStart* from)
    : limits_(config.limits), journal_(journal), engine_(makeMatchingEngine(static_cast<std::size_t>(config.enginePrefaultMb) << 20)) {
  epoch_ = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(
          std::chrono::system_clock::now().time_since_epoch())
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
      Account& a = accountNamed(ac.name);
      a.house = ac.house;
      a.creditLimit = ac.creditLimit;
      a.configured = true;
      if (ac.cash > 0) ledger_.postChecked({a.id, Book::External}, {a.id, Book::Cash}, ac.cash, "deposit");
    }
  }
  feederReports_ = config.feederReports;
  if (config.feePpm > 0) settlement_.chargeFees(config.feePpm, accountNamed(kFeeAccount).id);
  // An uptime credit never takes cash a working bid has reserved.
  // A house account's bids backed by its credit line hold none of its cash.
  settlement_.setHeldCash([this](AccountId id) {
    auto it = accounts_.find(id);
    const Money creditLine = it == accounts_.end() ? 0 : it->second.creditLimit;
    return std::max<Money>(0, reserved(id) - creditLine) + forwards_.marginHeld(id) + options_.held(id);
  });
  for (const char* type : {"forward_order", "forward_cancel"}) {
    registerJournalEntry(type, [this](const nlohmann::json& j) {
      const Account& a = accountNamed(j.at("account").get<std::string>());
      forwards_.replay(j, engine_->now(), cashFreeOfBids(a) - options_.held(a.id));
    });
  }
  for (const char* type : {"option_order", "option_cancel"}) {
    registerJournalEntry(type, [this](const nlohmann::json& j) {
      const Account& a = accountNamed(j.at("account").get<std::string>());
      options_.replay(j, engine_->now(), cashFreeOfBids(a) - forwards_.marginHeld(a.id));
    });
  }
  registerJournalEntry("delivery_report", [this](const nlohmann::json& j) {
    DeliveryReport r;
    r.contract = j.at("contract").get<ContractId>();
    r.start = j.at("start").get<Hour>();
    r.end = j.at("end").get<Hour>();
    r.usableGpus = j.at("usable_gpus").get<GpuCount>();
    r.problem = parseDeliveryProblem(j.at("problem").get<std::string>()).value();
    const AccountId provider = accountNamed(j.at("account").get<std::string>()).id;
    if (auto err = applyDeliveryReport(provider, r, nullptr))
      throw std::runtime_error("delivery report is refused on replay (" + *err + ")");
  });
  registerJournalEntry("outage", [this](const nlohmann::json& j) {
    OutageRequest m;
    m.cluster = j.at("cluster").get<ClusterId>();
    m.start = j.at("start").get<Hour>();
    m.end = j.at("end").get<Hour>();
    m.lostGpus = j.at("lost_gpus").get<GpuCount>();
    m.problem = parseDeliveryProblem(j.at("problem").get<std::string>()).value();
    const AccountId provider = accountNamed(j.at("account").get<std::string>()).id;
    // A journaled outage was accepted when it was written; one that reached no contract
    // (possible in journals written before outages were bounded) changes nothing again.
    if (auto err = applyOutage(provider, m, nullptr, nullptr); err && *err != "nothing_sold")
      throw std::runtime_error("outage report is refused on replay (" + *err + ")");
  });
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
  dirtyBalances_.clear();  // nobody is connected yet: there is nobody to tell
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

ExchangeCore::Account& ExchangeCore::accountNamed(const std::string& name) {
  const AccountId id = directory_.intern(name);
  auto [it, inserted] = accounts_.try_emplace(id);
  if (inserted) {
    it->second.id = id;
    it->second.name = name;
    it->second.house = true;  // an account only a feeder or the journal knows of
  }
  return it->second;
}

ExchangeCore::Account* ExchangeCore::accountOf(SessionId s) {
  auto it = sessions_.find(s);
  if (it == sessions_.end() || it->second.account == 0) return nullptr;
  return &accounts_.at(it->second.account);
}

Money ExchangeCore::cash(AccountId a) const { return ledger_.balance({a, Book::Cash}); }

Money ExchangeCore::escrow(AccountId a) const { return ledger_.balance({a, Book::Escrow}); }

void ExchangeCore::registerJournalEntry(std::string type, JournalEntryHandler replay) {
  journalEntries_[std::move(type)] = std::move(replay);
}

void ExchangeCore::appendJournalEntry(const nlohmann::json& entry) {
  if (replaying_) return;
  journal_.append("", entry.dump());
}

BalanceFigures ExchangeCore::balanceOf(const Account& a) const {
  // Reserved covers both holds on cash: working bids and the margin of resting forward orders.
  return BalanceFigures{cash(a.id), a.reserved + forwards_.marginHeld(a.id) + options_.held(a.id), escrow(a.id),
                        settlement_.creditsReceived(a.id)};
}

void ExchangeCore::fundFromOutside(AccountId a, Money amount, const char* memo) {
  if (amount > 0) ledger_.postChecked({a, Book::External}, {a, Book::Cash}, amount, memo);
}

Money ExchangeCore::reserved(AccountId a) const {
  auto it = accounts_.find(a);
  return it == accounts_.end() ? 0 : it->second.reserved;
}

void ExchangeCore::replay(std::uint64_t afterSeq) {
  replaying_ = true;
  replayed_ = journal_.replay([this](const JournalEntry& e) {
    const nlohmann::json j = nlohmann::json::parse(e.input, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      throw std::runtime_error("journal entry " + std::to_string(e.seq) + " is not JSON");
    }
    // The one place non-engine entries are dispatched: by their "type".
    if (auto type = j.find("type"); type != j.end() && type->is_string()) {
      if (auto h = journalEntries_.find(type->get_ref<const std::string&>()); h != journalEntries_.end()) {
        try {
          h->second(j);
        } catch (const std::exception& x) {
          throw std::runtime_error("journal entry " + std::to_string(e.seq) + ": " + x.what());
        }
        return;
      }
    }
    auto parsed = inputEventFromJson(j, directory_);
    if (auto* err = std::get_if<JsonError>(&parsed)) {
      throw std::runtime_error("journal entry " + std::to_string(e.seq) + ": " + err->message);
    }
    InputEvent in = std::get<InputEvent>(std::move(parsed));
    // Every account the journal names gets its bookkeeping, whatever the config says now.
    std::visit(
        [this](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, CapacityGrant> || std::is_same_v<T, CancelRequest> ||
                        std::is_same_v<T, AmendRequest>) {
            accountNamed(directory_.name(x.account));
          }
        },
        in);
    if (auto* o = std::get_if<OrderRequest>(&in)) {
      if (e.clOrdId.size() > kMaxClOrdIdLength) {
        throw std::runtime_error("journal entry " + std::to_string(e.seq) + ": cl_ord_id longer than " +
                                 std::to_string(kMaxClOrdIdLength) + " characters");
      }
      Account& a = accountNamed(directory_.name(o->account));
      OrderInfo info;
      info.account = a.id;
      info.clOrdId = e.clOrdId;
      info.limit = o->limit;
      info.side = o->side;
      orders_.put(o->id, std::move(info));
      if (!a.byClOrdId.claim(e.clOrdId, o->id)) {
        a.byClOrdId.erase(e.clOrdId);  // the later entry names it, as it did when it was written
        a.byClOrdId.claim(e.clOrdId, o->id);
      }
      nextOrderId_ = std::max(nextOrderId_, o->id + 1);
    }
    if (auto rej = applyInput(in, e.clOrdId, nullptr)) {
      throw std::runtime_error("journal entry " + std::to_string(e.seq) +
                               " is rejected on replay (" + rej->detail +
                               "): the journal does not match this engine");
    }
  }, afterSeq);
  replaying_ = false;
  std::erase_if(touched_, [now = engine_->now()](const CellKey& k) { return k.hour < now; });
  publishCells(nullptr);
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
    must(CapacityGrant{accountNamed(g.account).id, *cluster, g.gpus, g.start, g.end},
         "grant to '" + g.account + "'");
  }
  journal_.commit();
}

void ExchangeCore::sessionOpened(SessionId s, std::string address) {
  Session session;
  session.address = std::move(address);
  sessions_[s] = std::move(session);
}

bool ExchangeCore::loggedOn(SessionId s) const {
  auto it = sessions_.find(s);
  return it != sessions_.end() && it->second.account != 0;
}

void ExchangeCore::sessionClosed(SessionId s) {
  auto it = sessions_.find(s);
  if (it == sessions_.end()) return;
  if (it->second.account != 0) {
    auto& list = accounts_.at(it->second.account).sessions;
    list.erase(std::remove(list.begin(), list.end(), s), list.end());
  }
  sessions_.erase(it);
}

void ExchangeCore::handleParseError(SessionId s, const ParseError& e, Outbox& out) {
  replyError(s, out, e.code, e.reason, e.type, e.req);
}

void ExchangeCore::handleRejectedLine(SessionId s, std::string_view code, std::string_view reason,
                                      Outbox& out) {
  replyError(s, out, code, reason, "", std::nullopt);
}

void ExchangeCore::replyError(SessionId s, Outbox& out, std::string_view code, std::string_view reason,
                              std::string_view type, std::optional<std::uint64_t> req) {
  const Account* a = accountOf(s);
  logReject(a ? std::string_view(a->name) : std::string_view("(not logged on)"), code);
  appendError(out.toSession[s], code, reason, type, req);
}

std::optional<OrderId> ExchangeCore::resolve(const Account& a, const OrderRef& ref) const {
  if (ref.clOrdId) {
    return a.byClOrdId.find(*ref.clOrdId);
  }
  const OrderInfo* info = orders_.find(*ref.orderId);
  // Another account's order is reported exactly like a missing one: accounts must not learn
  // about each other's orders.
  if (!info || info->account != a.id) return std::nullopt;
  return *ref.orderId;
}

void ExchangeCore::handle(SessionId s, const ClientMessage& m, Outbox& out) {
  auto sit = sessions_.find(s);
  if (sit == sessions_.end()) return;  // closed while the message was queued
  Session& session = sit->second;
  const std::string_view type = typeName(m.request);

  if (auto* logon = std::get_if<Logon>(&m.request)) {
    std::string& o = out.toSession[s];
    if (session.account != 0) {
      appendError(o, "already_logged_on", "this session is already logged on", type, m.req);
      return;
    }
    auto id = directory_.find(logon->account);
    auto found = id ? accounts_.find(*id) : accounts_.end();
    const Account* a = found == accounts_.end() ? nullptr : &found->second;
    if (logon->check == LogonCheck::Throttled) {
      appendThrottled(o, logon->retryAfterMs, m.req);
      logFailedLogon(logon->account, session.address, "throttled after failed logons");
      return;
    }
    // The key was checked off this thread (LogonGate): an Argon2id check takes milliseconds.
    if (!a || !a->configured || logon->check != LogonCheck::Verified) {
      appendError(o, "auth_failed", "unknown account or wrong key", type, m.req);
      logFailedLogon(logon->account, session.address,
                     !a ? "unknown account"
                        : !a->configured ? "account cannot log on" : "wrong key");
      if (++session.failedLogons >= 3) out.disconnect.push_back(s);
      return;
    }
    logLogon(a->name, session.address);
    session.account = a->id;
    accounts_.at(a->id).sessions.push_back(s);
    nlohmann::json clusters = nlohmann::json::array();
    for (const Cluster& c : engine_->clusters()) clusters.push_back(toJson(c));
    o += "{\"type\":\"logon_ack\",\"account\":";
    o += jsonString(a->name);
    o += ",\"epoch\":" + std::to_string(epoch_) + ",\"now\":" + std::to_string(engine_->now()) +
         ",\"md_seq\":" + std::to_string(mdSeq_) + ",\"clusters\":" + clusters.dump();
    appendReq(o, m.req);
    o += "}\n";
    return;
  }
  if (std::holds_alternative<Heartbeat>(m.request)) {
    std::string& o = out.toSession[s];
    o += "{\"type\":\"heartbeat\"";
    appendReq(o, m.req);
    o += "}\n";
    return;
  }
  if (std::holds_alternative<Logout>(m.request)) {
    std::string& o = out.toSession[s];
    o += "{\"type\":\"logout_ack\"";
    appendReq(o, m.req);
    o += "}\n";
    out.disconnect.push_back(s);
    return;
  }
  Account* a = accountOf(s);
  if (!a) {
    replyError(s, out, "not_logged_on", "log on first", type, m.req);
    return;
  }
  std::visit(
      Overloaded{
          // Every session is cash-checked, house accounts too (against their credit line).
          [&](const NewOrder& n) { onNewOrder(s, *a, n, out, true); },
          [&](const CancelOrder& c) {
            auto id = resolve(*a, c.ref);
            if (!id) {
              replyError(s, out, "unknown_order", "no such order of yours", type, m.req);
              return;
            }
            onCancel(s, *a, *id, m.req, out);
          },
          [&](const AmendOrder& am) { onAmend(s, *a, am, m.req, out); },
          [&](const MassCancel& mc) {
            int n = 0;
            for (const OrderView& v : engine_->workingOrders(a->id)) {
              if (mc.cluster && v.request.cluster != mc.cluster) continue;
              const auto& info = orders_.at(v.request.id);
              if (!applyInput(CancelRequest{v.request.id, a->id}, info.clOrdId, &out)) ++n;
            }
            std::string& o = out.toSession[s];
            o += "{\"type\":\"mass_cancel_ack\",\"cancelled\":" + std::to_string(n);
            appendReq(o, m.req);
            o += "}\n";
          },
          [&](const OrderStatusQuery& q) {
            auto id = resolve(*a, q.ref);
            auto view = id ? engine_->order(*id) : std::nullopt;
            std::string& o = out.toSession[s];
            if (!view) {
              replyError(s, out, "unknown_order", "no such order of yours", type, m.req);
              return;
            }
            o += "{\"type\":\"order_status\",\"order_id\":" + std::to_string(*id) +
                 ",\"cl_ord_id\":" + jsonString(orders_.at(*id).clOrdId) + ",\"status\":\"" +
                 std::string(statusName(view->status)) +
                 "\",\"filled_gpu_hours\":" + std::to_string(view->filledGpuHours) +
                 ",\"leaves_gpu_hours\":" + std::to_string(view->leavesGpuHours) +
                 ",\"order\":" + toJson(view->request).dump();
            appendReq(o, m.req);
            o += "}\n";
          },
          [&](const OrdersQuery&) {
            nlohmann::json list = nlohmann::json::array();
            for (const OrderView& v : engine_->workingOrders(a->id)) {
              list.push_back({{"order_id", v.request.id},
                              {"cl_ord_id", orders_.at(v.request.id).clOrdId},
                              {"status", statusName(v.status)},
                              {"filled_gpu_hours", v.filledGpuHours},
                              {"leaves_gpu_hours", v.leavesGpuHours},
                              {"order", toJson(v.request)}});
            }
            std::string& o = out.toSession[s];
            o += "{\"type\":\"orders\",\"orders\":" + list.dump();
            appendReq(o, m.req);
            o += "}\n";
          },
          [&](const PositionsQuery& q) {
            std::vector<Contract> all = engine_->contractsOf(a->id);
            std::sort(all.begin(), all.end(), [](const Contract& x, const Contract& y) { return x.id < y.id; });
            auto from = q.after ? std::upper_bound(all.begin(), all.end(), *q.after,
                                                   [](ContractId id, const Contract& c) { return id < c.id; })
                                : all.begin();
            const std::size_t limit = q.limit.value_or(kPositionsPage);
            const auto to = static_cast<std::size_t>(all.end() - from) > limit ? from + static_cast<std::ptrdiff_t>(limit)
                                                                               : all.end();
            nlohmann::json list = nlohmann::json::array();
            for (auto it = from; it != to; ++it) {
              const Contract& c = *it;
              list.push_back({{"contract", c.id},
                              {"trade", c.trade},
                              {"side", c.buyer == a->id ? "buy" : "sell"},
                              {"buy_order", c.buyer == a->id ? c.buyOrder : 0},
                              {"sell_order", c.seller == a->id ? c.sellOrder : 0},
                              {"cluster", c.cluster},
                              {"gpus", c.gpus},
                              {"start", c.start},
                              {"end", c.end},
                              {"price", c.price},
                              {"state", settlement_.state(c.id)
                                            ? std::string(toString(*settlement_.state(c.id)))
                                            : std::string("unknown")},
                              {"delivered_gpu_hours", settlement_.deliveredGpuHours(c.id)},
                              {"escrow", settlement_.escrow(c.id)},
                              {"replaces", c.replaces},
                              {"aggressor", c.trade != 0 && c.id <= buyerTook_.size() &&
                                                buyerTook_[c.id - 1] == (c.buyer == a->id)}});
            }
            std::string& o = out.toSession[s];
            o += "{\"type\":\"positions\",\"contracts\":" + list.dump();
            if (to != all.end()) o += ",\"next_after\":" + std::to_string(std::prev(to)->id);
            appendReq(o, m.req);
            o += "}\n";
          },
          [&](const BalanceQuery&) { appendBalance(out.toSession[s], balanceOf(*a), m.req); },
          [&](const DeliveryReportRequest& r) { onDeliveryReport(s, *a, r, m.req, out); },
          [&](const ForwardRequest& f) { onForward(*a, f, m.req, out); },
          [&](const OptionRequest& r) { onOption(*a, r, m.req, out); },
          [&](const OutageRequest& r) { onOutage(s, *a, r, m.req, out); },
          [&](const IndexHistoryQuery&) {
            std::string& o = out.toSession[s];
            o += "{\"type\":\"index_history\",\"points\":[";
            bool first = true;
            for (const IndexPublication& p : indexHistory_) {
              if (!first) o += ',';
              first = false;
              appendIndexObject(o, p);
            }
            o += ']';
            appendReq(o, m.req);
            o += "}\n";
          },
          [&](const Subscribe& sub) { onSubscribe(s, sub, out); },
          [&](const Unsubscribe&) {
            session.subscribed = false;
            std::string& o = out.toSession[s];
            o += "{\"type\":\"unsubscribe_ack\"";
            appendReq(o, m.req);
            o += "}\n";
          },
          [&](const auto&) {},
      },
      m.request);
}

void ExchangeCore::onNewOrder(SessionId, Account& a, const NewOrder& m, Outbox& out, bool checks) {
  auto reject = [&](std::string_view code, std::string_view reason) {
    logReject(a.name, code);
    std::string line;
    appendRejected(line, m.clOrdId, code, reason);
    toAccount(a.id, out, line);
  };
  // One lookup claims the client order id for the id the order will get; every early return
  // below gives it back.
  if (!a.byClOrdId.claim(m.clOrdId, nextOrderId_)) {
    reject("duplicate_cl_ord_id", "cl_ord_id '" + m.clOrdId + "' was already used by this account");
    return;
  }
  if (a.openOrders >= limits_.maxOpenOrdersPerAccount) {
    a.byClOrdId.erase(m.clOrdId);
    reject("too_many_open_orders",
           "at most " + std::to_string(limits_.maxOpenOrdersPerAccount) + " open orders");
    return;
  }
  const Money reservation = reservationFor(m.order);
  const Money available = spendable(a);
  if (checks && reservation > available) {
    a.byClOrdId.erase(m.clOrdId);
    reject("insufficient_cash", "the bid needs " + toDollars(reservation) + ", " +
                                    toDollars(std::max<Money>(available, 0)) + " is available");
    return;
  }
  OrderRequest o = m.order;
  o.id = nextOrderId_++;
  o.account = a.id;
  OrderInfo info;
  info.account = a.id;
  info.clOrdId = m.clOrdId;
  info.limit = o.limit;
  info.side = o.side;
  orders_.put(o.id, std::move(info));
  if (auto rej = applyInput(o, m.clOrdId, &out)) {
    orders_.erase(o.id);
    a.byClOrdId.erase(m.clOrdId);
    reject(codeOf(rej->reason), rej->detail);
  }
}

void ExchangeCore::onCancel(SessionId s, Account& a, OrderId id, std::optional<std::uint64_t> req,
                            Outbox& out) {
  if (auto rej = applyInput(CancelRequest{id, a.id}, orders_.at(id).clOrdId, &out)) {
    replyError(s, out, codeOf(rej->reason), rej->detail, "cancel", req);
  }
}

void ExchangeCore::onAmend(SessionId s, Account& a, const AmendOrder& m,
                           std::optional<std::uint64_t> req, Outbox& out) {
  auto id = resolve(a, m.ref);
  auto view = id ? engine_->order(*id) : std::nullopt;
  if (!view) {
    replyError(s, out, "unknown_order", "no such order of yours", "amend", req);
    return;
  }
  OrderInfo& info = orders_.at(*id);
  if (info.side == Side::Buy && !view->request.sellBack) {
    const Price limit = m.limit.value_or(view->request.limit);
    const GpuCount gpus = m.gpus.value_or(view->request.gpus);
    if (limit <= limits::kMaxPrice && gpus <= limits::kMaxClusterGpus && view->request.gpus > 0) {
      // What the bid may still buy after the amend, never less than the engine will rest: a
      // divisible order adds the new GPUs to every remaining hour, filled ones included
      // (docs/matching.md, "Cancel and amend"); an all-or-none one wants gpus x its hours.
      const OrderRequest& r = view->request;
      const Hour hours = r.fill == FillStyle::Divisible ? r.end - std::max(r.start, engine_->now()) : r.hours();
      const std::int64_t leaves =
          view->leavesGpuHours + std::max<std::int64_t>(0, gpus - r.gpus) * std::max<Hour>(0, hours);
      const Money needed = limit * leaves;
      if (needed - info.reserved > spendable(a)) {
        replyError(s, out, "insufficient_cash",
                    "the amended bid needs " + toDollars(needed) + ", " +
                        toDollars(std::max<Money>(info.reserved + spendable(a), 0)) + " is available",
                    "amend", req);
        return;
      }
    }
  }
  if (auto rej = applyInput(AmendRequest{*id, a.id, m.limit, m.gpus}, info.clOrdId, &out)) {
    replyError(s, out, codeOf(rej->reason), rej->detail, "amend", req);
  }
}

void ExchangeCore::onSubscribe(SessionId s, const Subscribe& m, Outbox& out) {
  sessions_.at(s).subscribed = true;
  std::string& o = out.toSession[s];
  if (m.fromSeq && *m.fromSeq <= mdSeq_ + 1) {
    // A resume is answered only while the missed lines fit kMaxResumeBytes; a longer gap costs
    // the client less as a snapshot, and one short request can never ask for megabytes.
    std::size_t bytes = 0;
    auto first = recent_.end();
    while (first != recent_.begin() && std::prev(first)->first >= *m.fromSeq &&
           bytes + std::prev(first)->second.size() <= kMaxResumeBytes) {
      --first;
      bytes += first->second.size();
    }
    const std::uint64_t resumesAt = first == recent_.end() ? mdSeq_ + 1 : first->first;
    if (resumesAt == *m.fromSeq) {
      o += "{\"type\":\"md_resume\",\"from_seq\":" + std::to_string(*m.fromSeq) +
           ",\"seq\":" + std::to_string(mdSeq_) + "}\n";
      for (; first != recent_.end(); ++first) o += first->second;
      return;
    }
  }
  o += "{\"type\":\"md_snapshot\",\"seq\":" + std::to_string(mdSeq_) +
       ",\"epoch\":" + std::to_string(epoch_) + ",\"now\":" + std::to_string(engine_->now()) +
       ",\"cells\":[";
  bool first = true;
  for (const auto& [key, levels] : published_) {
    if (!first) o += ',';
    first = false;
    o += "{\"cluster\":" + std::to_string(key.cluster) + ",\"hour\":" + std::to_string(key.hour) +
         ",\"side\":\"" + (key.side == Side::Buy ? "buy" : "sell") + "\",\"levels\":";
    appendLevels(o, levels);
    o += '}';
  }
  o += "],\"index\":[";
  first = true;
  for (const auto& [series, p] : indexNow_) {
    if (!first) o += ',';
    first = false;
    appendIndexObject(o, p);
  }
  o += "],\"forward_books\":" + forwards_.booksJson() + ",\"option_books\":" + options_.booksJson() + "}\n";
}

Money ExchangeCore::spendable(const Account& a) const {
  return cashFreeOfBids(a) - forwards_.marginHeld(a.id) - options_.held(a.id);
}

Money ExchangeCore::cashFreeOfBids(const Account& a) const {
  return cash(a.id) + a.creditLimit - a.reserved;
}

void ExchangeCore::onForward(Account& a, const ForwardRequest& f, std::optional<std::uint64_t> req, Outbox& out) {
  ForwardDeskOutput d;
  // The desk subtracts the margin its own resting orders hold.
  forwards_.handle(a.id, f, req, engine_->now(), cashFreeOfBids(a) - options_.held(a.id), d);
  if (d.journal && !replaying_) journal_.append("", *d.journal);
  sendForward(d, &out);
}

void ExchangeCore::onOption(Account& a, const OptionRequest& r, std::optional<std::uint64_t> req, Outbox& out) {
  OptionDeskOutput d;
  // The desk subtracts the holds of its own resting orders.
  options_.handle(a.id, r, req, engine_->now(), cashFreeOfBids(a) - forwards_.marginHeld(a.id), d);
  if (d.journal && !replaying_) journal_.append("", *d.journal);
  sendForward(d, &out);
}

void ExchangeCore::sendForward(const ForwardDeskOutput& d, Outbox* out) {
  for (const auto& [account, line] : d.toAccount) {
    dirtyBalances_.insert(account);
    if (out) toAccount(account, *out, line);
  }
  if (!out) return;
  for (const std::string& body : d.marketData) {
    // The desk writes objects without a sequence number: number them like every md line.
    std::string line = "{\"seq\":" + std::to_string(++mdSeq_) + "," + body.substr(1) + "\n";
    publish(out, std::move(line));
  }
}

void ExchangeCore::inject(const InputEvent& e, const std::string& accountName, Outbox& out) {
  applyFeederOutages(out);
  auto accountFor = [&](AccountId id) -> Account& {
    return accountNamed(accountName.empty() ? "feed-" + std::to_string(id) : accountName);
  };
  std::visit(Overloaded{
                 [&](const OrderRequest& o) {
                   Account& a = accountFor(o.account);
                   onNewOrder(0, a, NewOrder{std::to_string(o.id), o}, out, !a.house);
                 },
                 [&](const CancelRequest& c) {
                   Account& a = accountFor(c.account);
                   if (auto id = resolve(a, OrderRef{std::nullopt, std::to_string(c.id)})) {
                     applyInput(CancelRequest{*id, a.id}, std::to_string(c.id), &out);
                   }
                 },
                 [&](const AmendRequest& am) {
                   Account& a = accountFor(am.account);
                   if (auto id = resolve(a, OrderRef{std::nullopt, std::to_string(am.id)})) {
                     applyInput(AmendRequest{*id, a.id, am.limit, am.gpus}, std::to_string(am.id),
                                &out);
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
}

std::optional<OrderRejected> ExchangeCore::applyInput(const InputEvent& in,
                                                      const std::string& clOrdId, Outbox* out) {
  events_.clear();
  engine_->apply(in, events_);
  for (const Event& e : events_) {
    if (auto* r = std::get_if<OrderRejected>(&e)) return *r;
  }
  if (!replaying_) {
    writeJournalForm(scratch_, in, directory_);
    journal_.append(clOrdId, scratch_);
    if (recorder_) {
      const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
      recorder_->record(micros, in, events_);
    }
  }
  // Copy: account() may query the engine, never apply, but keep events_ free for reuse.
  const std::vector<Event> events = std::move(events_);
  events_.clear();
  for (const Event& e : events) account(e, out);
  // Replay publishes nothing to anyone: the cells it touches are brought up to date once, at
  // its end (a depth query per touched cell per entry would make restarts several times slower).
  if (!replaying_) publishCells(out);
  events_ = std::move(events);
  return std::nullopt;
}

void ExchangeCore::toAccount(AccountId a, Outbox& out, const std::string& line) {
  for (SessionId s : accounts_.at(a).sessions) out.toSession[s] += line;
}

void ExchangeCore::touch(const OrderRequest& o, Hour from, Hour to) {
  if (o.fill != FillStyle::Divisible || !o.cluster) return;
  const Hour horizon = engine_->now() + limits_.mdHorizonHours;
  for (Hour h = std::max(from, engine_->now()); h < std::min(to, horizon); ++h)
    touched_.insert({*o.cluster, h, o.side});
}

// The one place a bid's reservation changes. It is derived from the engine's view of the order
// after the whole input (limit x GPU-hours still working), never accumulated from events, so
// however the engine orders an input's events (an amend before the fills it causes, a fill
// before a cancel) the hold equals what the bid can still spend.
void ExchangeCore::syncReservation(OrderId id, OrderInfo& info) {
  Money target = 0;
  if (info.open && info.side == Side::Buy) {
    if (auto v = engine_->order(id); v && v->status == OrderStatus::Working && !v->request.sellBack)
      target = v->request.limit * v->leavesGpuHours;
  }
  if (target == info.reserved) return;
  Account& a = accounts_.at(info.account);
  a.reserved += target - info.reserved;
  info.reserved = target;
  dirtyBalances_.insert(a.id);
}

void ExchangeCore::account(const Event& ev, Outbox* out) {
  auto closeOrder = [this](OrderInfo& info) {
    if (!info.open) return;
    Account& a = accounts_.at(info.account);
    info.open = false;
    --a.openOrders;
    dirtyBalances_.insert(a.id);
  };
  std::visit(
      Overloaded{
          [&](const OrderAccepted& e) {
            OrderInfo& info = orders_.at(e.order);
            Account& a = accounts_.at(info.account);
            info.open = true;
            ++a.openOrders;
            syncReservation(e.order, info);
            if (auto v = engine_->order(e.order)) touch(v->request, v->request.start, v->request.end);
            if (out) {
              scratch_.clear();
              appendAccepted(scratch_, e.order, info.clOrdId);
              toAccount(a.id, *out, scratch_);
            }
          },
          [&](const Fill& f) {
            OrderInfo& info = orders_.at(f.order);
            Account& a = accounts_.at(f.account);
            const Hour hours = f.end - f.start;
            // Money moves with the contract (ContractCreated: escrow) and its delivery, not here.
            if (f.side == Side::Buy) {
              if (f.contract > 0) {
                if (buyerTook_.size() < f.contract) buyerTook_.resize(f.contract, false);
                buyerTook_[f.contract - 1] = f.aggressor;
              }
              if (const Cluster* cl = engine_->cluster(f.cluster)) {
                index_.record(TradePrint{engine_->now(), cl->accelerator, f.start,
                                         static_cast<std::int64_t>(f.gpus) * hours, f.price});
                indexedAccelerators_.insert(cl->accelerator);
              }
            }
            dirtyBalances_.insert(a.id);
            if (auto v = engine_->order(f.order)) touch(v->request, f.start, f.end);
            if (f.leavesGpuHours == 0) closeOrder(info);
            syncReservation(f.order, info);
            if (out) {
              scratch_.clear();
              appendFill(scratch_, f, info.clOrdId);
              toAccount(a.id, *out, scratch_);
              if (f.side == Side::Buy) {
                std::string line;
                const std::uint64_t seq = ++mdSeq_;
                appendTrade(line, seq, f, f.aggressor ? Side::Buy : Side::Sell);
                publish(out, std::move(line));
              }
            }
          },
          [&](const OrderCancelled& c) {
            OrderInfo& info = orders_.at(c.order);
            dirtyBalances_.insert(info.account);
            if (auto v = engine_->order(c.order)) touch(v->request, v->request.start, v->request.end);
            if (c.leavesGpuHours == 0) closeOrder(info);
            syncReservation(c.order, info);
            if (out) {
              scratch_.clear();
              appendCancelled(scratch_, c, info.clOrdId);
              toAccount(info.account, *out, scratch_);
            }
          },
          [&](const OrderAmended& am) {
            OrderInfo& info = orders_.at(am.order);
            Account& a = accounts_.at(info.account);
            info.limit = am.limit;
            syncReservation(am.order, info);
            if (auto v = engine_->order(am.order)) touch(v->request, v->request.start, v->request.end);
            if (out) {
              scratch_.clear();
              appendAmended(scratch_, am, info.clOrdId);
              toAccount(a.id, *out, scratch_);
            }
          },
          [&](const ClockAdvanced& c) {
            // Cells before the new hour cannot trade any more: clear them everywhere.
            for (auto it = published_.begin(); it != published_.end();) {
              if (it->first.hour < c.now) {
                if (out) {
                  std::string line;
                  appendCell(line, ++mdSeq_, BookCell{it->first, {}});
                  publish(out, std::move(line));
                }
                it = published_.erase(it);
              } else {
                ++it;
              }
            }
            // Hours that came within the market-data horizon are published as they stand.
            const Hour horizon = c.now + limits_.mdHorizonHours;
            for (Hour h = std::max(publishedThrough_, c.now); h < horizon; ++h)
              for (const Cluster& cl : engine_->clusters())
                for (Side side : {Side::Buy, Side::Sell}) touched_.insert({cl.id, h, side});
            publishedThrough_ = horizon;
            if (out) {
              std::string line;
              appendClock(line, ++mdSeq_, c.now);
              publish(out, std::move(line));
            }
            for (const SettlementEvent& se : settlement_.advance(c.now)) notify(se, out);
            publishIndex(c.now, out);
            // Forwards are marked (and weeks settled) against the next-day index just published.
            std::map<Accelerator, Price> nextDay;
            for (const auto& [series, p] : indexNow_)
              if (series.second == Tenor::NextDay) nextDay[series.first] = p.value.price;
            ForwardDeskOutput forwardOut;
            forwards_.advance(c.now, nextDay, forwardOut);
            sendForward(forwardOut, out);
            // Options are re-margined (and periods settled) on the same index and forward books.
            OptionDeskOutput optionOut;
            options_.advance(c.now, optionIndexInputs(indexNow_, forwards_.market(), c.now), optionOut);
            sendForward(optionOut, out);
          },
          [&](const ContractCreated& cc) {
            const Contract& k = cc.contract;
            const Hour now = engine_->now();
            if (k.replaces) {
              std::vector<SettlementEvent> notes;
              if (auto err = settlement_.openReplacement(k, now, notes))
                throw std::logic_error("replacement contract " + std::to_string(k.id) +
                                       " cannot take over contract " + std::to_string(k.replaces) +
                                       ": " + std::string(toString(*err)));
              for (const SettlementEvent& se : notes) notify(se, out);
              return;
            }
            // House accounts trade without cash checks: they are funded from outside for exactly
            // what they spend, so the ledger stays conserved. A checked account always has it
            // (its bid reserved it), unless credits it paid took it: then it is funded the same
            // way and the memo says so.
            const Money shortBy = k.notional() - cash(k.buyer);
            if (shortBy > 0) {
              const Account& buyer = accounts_.at(k.buyer);
              fundFromOutside(k.buyer, shortBy, buyer.house ? "house funding" : "overdraft funding");
            }
            if (auto err = settlement_.open(k, k.terms, Book::Cash, now))
              throw std::logic_error("contract " + std::to_string(k.id) + " cannot open: " +
                                     std::string(toString(*err)));
            notify({k.id, *settlement_.state(k.id), "escrow " + toDollars(k.notional()) + " for " +
                                                        std::to_string(k.gpus * (k.end - k.start)) +
                                                        " GPU-hours"},
                   out);
          },
          [&](const ClusterAdded& c) {
            if (!out) return;
            const Cluster* cl = engine_->cluster(c.cluster);
            if (!cl) return;
            std::string line = "{\"type\":\"md_cluster\",\"seq\":" + std::to_string(++mdSeq_) +
                               ",\"cluster\":" + toJson(*cl).dump() + "}\n";
            publish(out, std::move(line));
          },
          [&](const auto&) {},
      },
      ev);
}

void ExchangeCore::publishCells(Outbox* out) {
  if (touched_.empty()) return;
  // touched_ is ordered by cluster, hour, side: one side's cells of one cluster come in hour
  // order, so one pass per side finds the runs of consecutive hours, and each run's depth comes
  // from one engine query (an order over a week touches 168 cells). The cells are then
  // published in touched_'s order, as they would be one by one.
  touchedCells_.assign(touched_.begin(), touched_.end());
  touchedDepth_.resize(touchedCells_.size());
  std::vector<std::size_t>& run = scratchRun_;  // positions in touchedCells_
  auto readRun = [&] {
    if (run.empty()) return;
    const CellKey& first = touchedCells_[run.front()];
    engine_->depthRange(first.cluster, first.hour, touchedCells_[run.back()].hour + 1, first.side,
                        kPublishedLevels, scratchDepth_);
    for (std::size_t k = 0; k < run.size(); ++k) touchedDepth_[run[k]] = std::move(scratchDepth_[k]);
    run.clear();
  };
  for (Side side : {Side::Buy, Side::Sell}) {
    for (std::size_t i = 0; i < touchedCells_.size(); ++i) {
      const CellKey& key = touchedCells_[i];
      if (key.side != side) continue;
      if (!run.empty()) {
        const CellKey& last = touchedCells_[run.back()];
        if (last.cluster != key.cluster || last.hour + 1 != key.hour) readRun();
      }
      run.push_back(i);
    }
    readRun();
  }
  for (std::size_t i = 0; i < touchedCells_.size(); ++i) {
    const CellKey& key = touchedCells_[i];
    std::vector<BookLevel> levels = std::move(touchedDepth_[i]);
    auto it = published_.find(key);
    if (it == published_.end() ? levels.empty() : it->second == levels) continue;
    if (out) {
      std::string line;
      appendCell(line, ++mdSeq_, BookCell{key, levels});
      publish(out, std::move(line));
    }
    if (levels.empty()) published_.erase(it);
    else published_[key] = std::move(levels);
  }
  touched_.clear();
}

void ExchangeCore::publish(Outbox* out, std::string line) {
  out->marketData += line;
  recent_.emplace_back(mdSeq_, std::move(line));
  while (recent_.size() > limits_.mdReplayDepth) recent_.pop_front();
}

void ExchangeCore::finishBatch(Outbox& out) {
  applyFeederOutages(out);
  // The recorder writes a transaction every few thousand inputs by itself; on a quiet market
  // write at least once a second, so the file is never far behind.
  if (recorder_ && std::chrono::steady_clock::now() - lastHistoryFlush_ > std::chrono::seconds(1)) {
    lastHistoryFlush_ = std::chrono::steady_clock::now();
    if (auto e = recorder_->flush()) stopRecording(e->message);
  }
  for (AccountId id : dirtyBalances_) {
    const Account& a = accounts_.at(id);
    if (a.sessions.empty()) continue;
    std::string line;
    appendBalance(line, balanceOf(a), std::nullopt);
    toAccount(id, out, line);
  }
  dirtyBalances_.clear();
  for (const auto& [id, s] : sessions_) {
    if (s.subscribed) out.subscribers.push_back(id);
  }
}

// ---- settlement ----

void ExchangeCore::notify(const SettlementEvent& e, Outbox* out) {
  // The engine's copy: a contract that has just settled has already left the settlement's books.
  const auto k = engine_->contract(e.contract);
  if (!k) return;
  dirtyBalances_.insert(k->buyer);
  dirtyBalances_.insert(k->seller);
  if (!out) return;
  // House accounts of a simulated market settle thousands of contracts nobody watches.
  if (accounts_.at(k->buyer).sessions.empty() && accounts_.at(k->seller).sessions.empty()) return;
  std::string line;
  appendSettlement(line, e, engine_->now());
  toAccount(k->buyer, *out, line);
  if (k->seller != k->buyer) toAccount(k->seller, *out, line);
}

void ExchangeCore::publishIndex(Hour now, Outbox* out) {
  // The clock reached `now`: hour now - 1 is over, so the index as of its end is final.
  const Hour asOf = now - 1;
  if (indexAsOf_ && asOf <= *indexAsOf_) return;
  // After a long jump of the clock only the hours the history keeps are computed.
  Hour from = indexAsOf_ ? *indexAsOf_ + 1 : asOf;
  from = std::max(from, asOf - kIndexHistoryHours + 1);
  indexAsOf_ = asOf;
  for (Hour h = from; h <= asOf; ++h) {
    for (Accelerator a : indexedAccelerators_) {
      for (Tenor t : kTenors) {
        auto v = index_.value(a, t, h);
        if (!v) continue;
        IndexPublication p{a, t, h, *v};
        indexNow_[{a, t}] = p;
        indexHistory_.push_back(p);
        if (h == asOf && out) {
          std::string line;
          appendIndex(line, ++mdSeq_, p);
          publish(out, std::move(line));
        }
      }
    }
  }
  while (!indexHistory_.empty() && indexHistory_.front().asOf <= asOf - kIndexHistoryHours)
    indexHistory_.pop_front();
}

void ExchangeCore::onDeliveryReport(SessionId s, Account& a, const DeliveryReportRequest& m,
                                    std::optional<std::uint64_t> req, Outbox& out) {
  const DeliveryReport r{m.contract, m.start, m.end, m.usableGpus, m.problem};
  std::string& o = out.toSession[s];
  if (auto err = applyDeliveryReport(a.id, r, &out)) {
    replyError(s, out, *err,
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

void ExchangeCore::onOutage(SessionId s, Account& a, const OutageRequest& m,
                            std::optional<std::uint64_t> req, Outbox& out) {
  std::vector<ContractId> affected;
  std::string& o = out.toSession[s];
  if (auto err = applyOutage(a.id, m, &out, &affected)) {
    replyError(s, out, *err,
                *err == "unknown_cluster"       ? "no such cluster"
                : *err == "hours_already_settled" ? "those hours are already over"
                : *err == "not_your_cluster"      ? "only the cluster's provider reports outages on it"
                : *err == "nothing_sold"          ? "you sold nothing on this cluster in those hours"
                                                  : "an outage needs 0 <= start < end, at most " +
                                                        std::to_string(kMaxOutageHours) +
                                                        " hours, and lost_gpus > 0 (or a link/power problem)",
                "outage", req);
    return;
  }
  o += "{\"type\":\"outage_ack\",\"cluster\":" + std::to_string(m.cluster) + ",\"contracts\":[";
  for (std::size_t i = 0; i < affected.size(); ++i) {
    if (i) o += ',';
    o += std::to_string(affected[i]);
  }
  o += ']';
  appendReq(o, req);
  o += "}\n";
}

std::optional<std::string> ExchangeCore::applyDeliveryReport(AccountId provider,
                                                             const DeliveryReport& r, Outbox* out) {
  // Someone else's contract is reported exactly like a missing one. The engine knows every
  // contract; settlement only the ones not yet settled.
  const auto owned = engine_->contract(r.contract);
  if (!owned || owned->seller != provider) return std::string("unknown_contract");
  if (auto err = settlement_.report(r)) return std::string(toString(*err));
  const Contract* k = settlement_.contract(r.contract);
  appendJournalEntry({{"type", "delivery_report"},
                      {"account", directory_.name(provider)},
                      {"contract", r.contract},
                      {"start", r.start},
                      {"end", r.end},
                      {"usable_gpus", r.usableGpus},
                      {"problem", std::string(toString(r.problem))}});
  const Contract contract = *k;
  notify({contract.id, *settlement_.state(contract.id),
          "provider reported " + std::string(toString(r.problem)) + ": " +
              std::to_string(r.usableGpus) + " of " + std::to_string(contract.gpus) +
              " GPUs usable in hours " + std::to_string(r.start) + ".." + std::to_string(r.end)},
         out);
  // Remedies are inputs of their own in the journal (CapacityTransfer): replay applies those.
  if (!replaying_) applyRemedy(contract, r.start, r.end, std::nullopt, out);
  return std::nullopt;
}

// The outage rule (docs/settlement.md): in every hour the lost GPUs are spread over all the
// GPUs the provider has on the cluster, its contracts' and its unsold holding, in proportion
// to their size (largest remainder, ties to the lower contract id, the holding last), so a
// provider can neither dump a failure on its buyers nor hide it in idle capacity.
std::optional<std::string> ExchangeCore::applyOutage(AccountId provider, const OutageRequest& m,
                                                     Outbox* out, std::vector<ContractId>* affected) {
  const Cluster* cluster = engine_->cluster(m.cluster);
  if (!cluster) return std::string("unknown_cluster");
  const bool degraded = m.problem != DeliveryProblem::MissingGpus;
  if (m.start < 0 || m.start >= m.end || m.lostGpus < 0 || (m.lostGpus == 0 && !degraded))
    return std::string("invalid_report");
  // Who may report, and how much at once. A replayed entry was accepted under the rules of the
  // version that wrote it, so replay applies it whatever these say now; the work below is
  // bounded by the reporter's contracts' hours either way.
  if (!replaying_) {
    // Only the cluster's provider reports on it (a cluster that names none: whoever sold on it).
    if (!cluster->provider.empty() && cluster->provider != directory_.name(provider))
      return std::string("not_your_cluster");
    if (m.end - m.start > kMaxOutageHours || m.lostGpus > limits::kMaxClusterGpus)
      return std::string("invalid_report");
  }
  const Hour from = std::max(m.start, engine_->now());
  if (from >= m.end) return std::string("hours_already_settled");
  // The report covers only hours the provider sold: the work below is bounded by its contracts'
  // hours inside [from, end).
  std::vector<Contract> contracts;
  Hour first = m.end;
  Hour last = from;
  for (ContractId id : settlement_.openContractsOf(provider, m.cluster)) {
    const Contract* k = settlement_.contract(id);
    if (k->start < m.end && k->end > from) {
      contracts.push_back(*k);
      first = std::min(first, std::max(k->start, from));
      last = std::max(last, std::min(k->end, m.end));
    }
  }
  if (contracts.empty()) return std::string("nothing_sold");
  appendJournalEntry({{"type", "outage"},
                      {"account", directory_.name(provider)},
                      {"cluster", m.cluster},
                      {"start", m.start},
                      {"end", m.end},
                      {"lost_gpus", m.lostGpus},
                      {"problem", std::string(toString(m.problem))}});
  std::map<ContractId, std::vector<GpuCount>> missing;  // per hour of [first, last)
  const Hour hours = last - first;
  for (Hour h = first; h < last; ++h) {
    std::vector<std::pair<std::size_t, GpuCount>> shares;  // (index into contracts or npos, weight)
    std::int64_t total = 0;
    for (std::size_t i = 0; i < contracts.size(); ++i) {
      if (contracts[i].start <= h && h < contracts[i].end) {
        shares.emplace_back(i, contracts[i].gpus);
        total += contracts[i].gpus;
      }
    }
    if (shares.empty()) continue;
    const GpuCount unsold = engine_->holding(provider, m.cluster, h).held;
    total += unsold;
    const std::int64_t lost = std::min<std::int64_t>(m.lostGpus, total);
    std::vector<std::int64_t> got(shares.size());
    std::vector<std::pair<std::int64_t, std::size_t>> remainders;  // (-remainder, order)
    std::int64_t given = 0;
    for (std::size_t j = 0; j < shares.size(); ++j) {
      got[j] = lost * shares[j].second / total;
      given += got[j];
      remainders.emplace_back(-(lost * shares[j].second % total), j);
    }
    const std::int64_t unsoldShare = lost * unsold / total;
    given += unsoldShare;
    remainders.emplace_back(-(lost * unsold % total), shares.size());  // the holding ranks last
    std::stable_sort(remainders.begin(), remainders.end());
    for (std::size_t r = 0; given < lost && r < remainders.size(); ++r, ++given) {
      if (remainders[r].second < shares.size()) ++got[remainders[r].second];
    }
    for (std::size_t j = 0; j < shares.size(); ++j) {
      auto& v = missing[contracts[shares[j].first].id];
      if (v.empty()) v.assign(static_cast<std::size_t>(hours), -1);
      v[static_cast<std::size_t>(h - first)] = static_cast<GpuCount>(got[j]);
    }
  }
  // Runs of equal loss become one report per contract.
  std::vector<std::pair<Contract, std::pair<Hour, Hour>>> reported;
  for (const Contract& k : contracts) {
    auto it = missing.find(k.id);
    if (it == missing.end()) continue;
    const std::vector<GpuCount>& v = it->second;
    bool any = false;
    for (std::size_t i = 0; i < v.size();) {
      std::size_t j = i;
      while (j < v.size() && v[j] == v[i]) ++j;
      if (v[i] > 0 || (v[i] == 0 && degraded)) {
        const DeliveryReport r{k.id, first + static_cast<Hour>(i), first + static_cast<Hour>(j),
                               k.gpus - v[i], m.problem};
        if (!settlement_.report(r)) {
          any = true;
          notify({k.id, *settlement_.state(k.id),
                  "outage on cluster " + std::to_string(m.cluster) + " (" +
                      std::string(toString(m.problem)) + "): " + std::to_string(v[i]) + " of " +
                      std::to_string(k.gpus) + " GPUs lost in hours " + std::to_string(r.start) +
                      ".." + std::to_string(r.end)},
                 out);
          if (v[i] > 0) reported.push_back({k, {r.start, r.end}});
        }
      }
      i = j;
    }
    if (any && affected) affected->push_back(k.id);
  }
  if (!replaying_) {
    for (const auto& [k, window] : reported) applyRemedy(k, window.first, window.second, m.cluster, out);
  }
  return std::nullopt;
}

void ExchangeCore::applyRemedy(const Contract& k, Hour start, Hour end,
                               std::optional<ClusterId> excluded, Outbox* out) {
  const OfferTerms* terms = settlement_.terms(k.id);
  if (!terms || terms->remedy != Remedy::Replacement) return;
  const Hour from = std::max(start, engine_->now());
  auto say = [&](const std::string& what) {
    if (auto st = settlement_.state(k.id)) notify({k.id, *st, what}, out);
  };
  if (from >= end) return say("no replacement for hours already over: the credit applies");
  GpuCount gpus = k.gpus;
  for (Hour h = from; h < end; ++h) gpus = std::min(gpus, settlement_.unreplacedShortfall(k.id, h));
  if (gpus <= 0) return;
  const Cluster* original = engine_->cluster(k.cluster);
  if (!original) return;
  std::vector<const Cluster*> candidates;
  for (const Cluster& c : engine_->clusters()) {
    const Cluster* cl = engine_->cluster(c.id);
    if (excluded && c.id == *excluded) continue;
    if (c.accelerator != original->accelerator || c.gpuMemoryGb < original->gpuMemoryGb ||
        c.fabric < original->fabric)
      continue;
    if (terms->guaranteesLocation && c.region != original->region) continue;
    candidates.push_back(cl);
  }
  // Earliest start first, then the lowest cluster id: the buyer waits as little as possible.
  const Hour latest = std::min<Hour>(start + terms->replacementWithinHours, end - 1);
  for (Hour begin = from; begin <= latest; ++begin) {
    for (const Cluster* c : candidates) {
      bool fits = true;
      for (Hour h = begin; h < end && fits; ++h) {
        const Holding hold = engine_->holding(k.seller, c->id, h);
        fits = hold.held - hold.offered >= gpus;
      }
      if (!fits) continue;
      if (!applyInput(CapacityTransfer{k.id, k.seller, k.buyer, c->id, gpus, begin, end, k.price}, "", out))
        return;
    }
  }
  say("no replacement capacity for " + std::to_string(gpus) + " GPUs within " +
      std::to_string(terms->replacementWithinHours) + " hours: the credit applies");
}

void ExchangeCore::applyFeederOutages(Outbox& out) {
  if (!feederReports_) return;
  for (const FeederOutage& f : feederReports_->take()) {
    OutageRequest m{f.cluster, f.start, f.end, f.lostGpus, f.problem};
    // An outage the market cannot apply (its hours are over) is dropped: a feeder has no one
    // to tell.
    applyOutage(accountNamed(f.provider).id, m, &out, nullptr);
  }
}

}  // namespace tessera::net

namespace tessera::net {

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
  // Not nextOrderId_ itself: an order the engine rejects uses up an id live but is not
  // journaled, so a replay may hand out ids a live core skipped (no reply ever showed them).
  add(engine.now(), directory_.size());
  for (const Cluster& c : engine.clusters()) addJson(toJson(c));
  // Orders: the engine's view of each (working or finished) and the exchange's record of it.
  for (OrderId id = 1; id < nextOrderId_; ++id) {
    if (const auto v = engine.order(id)) {
      addJson(toJson(v->request));
      add(v->request.account, static_cast<int>(v->status), v->filledGpuHours, v->leavesGpuHours);
    }
    if (const OrderInfo* info = orders_.find(id)) {
      h.add(info->clOrdId);
      add(info->account, info->limit, static_cast<int>(info->side), info->reserved, info->open);
      // Which order the client's id names now (a later order may have taken it over).
      const auto named = accounts_.at(info->account).byClOrdId.find(info->clOrdId);
      add(named.value_or(0), accounts_.at(info->account).byClOrdId.size());
    }
  }
  // Who took liquidity in each contract's trade (the positions reply says it).
  for (bool took : buyerTook_) h.add(took ? "t" : "m");
  h.add("\n");
  Hour lastHour = engine.now();
  for (AccountId a = 1; a <= directory_.size(); ++a) {
    h.add(directory_.name(a));
    if (auto it = accounts_.find(a); it != accounts_.end()) {
      const Account& acc = it->second;
      add(acc.reserved, acc.house, acc.creditLimit, acc.configured, acc.openOrders);
    }
    for (const OrderView& v : engine.workingOrders(a)) add(v.request.id);
    for (const Contract& k : engine.contractsOf(a)) {
      addJson(toJson(k, directory_));
      lastHour = std::max(lastHour, k.end);
      if (const auto st = settlement_.state(k.id))
        add(static_cast<int>(*st), settlement_.escrow(k.id), settlement_.deliveredGpuHours(k.id));
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
  add(indexAsOf_.value_or(-1), indexHistory_.size());
  for (const auto& [key, p] : indexNow_)
    add(static_cast<int>(key.first), static_cast<int>(key.second), p.asOf, p.value.price, p.value.gpuHours,
        p.value.trades, p.value.stale);
  for (const IndexPublication& p : indexHistory_)
    add(static_cast<int>(p.accelerator), static_cast<int>(p.tenor), p.asOf, p.value.price, p.value.gpuHours,
        p.value.trades, p.value.stale);
  add(publishedThrough_, published_.size());
  for (const auto& [cell, levels] : published_) {
    add(cell.cluster, cell.hour, static_cast<int>(cell.side));
    for (const BookLevel& l : levels) {
      add(l.price, l.gpus, l.orders);
      addJson(toJson(l.terms));
    }
  }
  return h.value();
}

}  // namespace tessera::net

namespace tessera::net {

namespace {
std::uint64_t entryDigest(const JournalEntry& e) {
  Fnv1a h;
  h.add(e.clOrdId);
  h.add("\n");
  h.add(e.input);
  return h.value();
}
}  // namespace

std::uint64_t ExchangeCore::configFingerprint(const ExchangeConfig& config) {
  Fnv1a h;
  for (const AccountConfig& a : config.accounts)
    h.add(a.name + " " + std::to_string(a.cash) + " " + std::to_string(a.house) + " " + std::to_string(a.creditLimit) + "\n");
  h.add("fee " + std::to_string(config.feePpm));
  return h.value();
}

std::string ExchangeCore::snapshot() const {
  const auto* engine = dynamic_cast<const MatchingEngine*>(engine_.get());
  if (!engine) throw std::logic_error("snapshots need the fast matching engine");
  if (journal_.inTransaction()) throw std::logic_error("a snapshot is taken after the journal's commit");
  std::string out;
  // Room for about what the last one took: growing by doubling would copy it all again.
  out.reserve(lastSnapshotBytes_ + lastSnapshotBytes_ / 8);
  SnapshotWriter w(out);
  w.str(kSnapshotFormat);
  const std::uint64_t seq = journal_.lastSeq();
  w.pod(seq);
  const auto last = seq ? journal_.entry(seq) : std::nullopt;
  w.pod<std::uint64_t>(last ? entryDigest(*last) : 0);
  w.pod(journal_.id());
  w.pod(fingerprint_);
  const std::size_t engineAt = w.reserve();
  engine->saveSnapshot(out);
  w.fill(engineAt);

  w.pod<std::uint64_t>(directory_.size());
  for (AccountId a = 1; a <= directory_.size(); ++a) {
    w.str(directory_.name(a));
    const auto it = accounts_.find(a);
    w.pod(it != accounts_.end());
    if (it == accounts_.end()) continue;
    const Account& acc = it->second;
    w.pod(acc.reserved);
    w.pod(acc.house);
    w.pod(acc.creditLimit);
    w.pod(acc.configured);
    w.pod(acc.openOrders);
  }
  std::vector<OrderId> ids;
  for (OrderId id = 1; id < nextOrderId_; ++id)
    if (orders_.find(id)) ids.push_back(id);
  w.pod<std::uint64_t>(ids.size());
  for (OrderId id : ids) {
    const OrderInfo& o = orders_.at(id);
    w.pod(id);
    w.pod(o.account);
    w.str(o.clOrdId);
    w.pod(o.limit);
    w.pod(o.side);
    w.pod(o.reserved);
    w.pod(o.open);
  }
  w.pod(nextOrderId_);
  w.pod<std::uint64_t>(buyerTook_.size());
  for (bool took : buyerTook_) w.pod(took);
  ledger_.save(w);
  settlement_.save(w);
  forwards_.save(w);
  options_.save(w);
  index_.save(w);
  w.pod<std::uint64_t>(indexedAccelerators_.size());
  for (Accelerator a : indexedAccelerators_) w.pod(a);
  w.pod(indexAsOf_.has_value());
  w.pod(indexAsOf_.value_or(0));
  w.pod<std::uint64_t>(indexNow_.size());
  for (const auto& [key, p] : indexNow_) w.pod(p);
  w.pod<std::uint64_t>(indexHistory_.size());
  for (const IndexPublication& p : indexHistory_) w.pod(p);
  w.pod(publishedThrough_);
  w.pod<std::uint64_t>(published_.size());
  for (const auto& [cell, levels] : published_) {
    w.pod(cell.cluster);
    w.pod(cell.hour);
    w.pod(cell.side);
    w.pod<std::uint64_t>(levels.size());
    for (const BookLevel& l : levels) {
      w.pod(l.price);
      w.pod(l.gpus);
      w.pod(l.orders);
      w.terms(l.terms);
    }
  }
  lastSnapshotBytes_ = out.size();
  return out;
}

void ExchangeCore::loadSnapshot(const SnapshotStart& from) {
  SnapshotReader r(from.bytes);
  if (r.str() != kSnapshotFormat) throw SnapshotCorrupt("not a snapshot of this version");
  const auto seq = r.pod<std::uint64_t>();
  const auto digest = r.pod<std::uint64_t>();
  if (seq != from.journalSeq) throw SnapshotCorrupt("its bytes name another journal entry than its record");
  const auto last = seq ? journal_.entry(seq) : std::nullopt;
  if (seq && !last) throw SnapshotCorrupt("taken after journal entry " + std::to_string(seq) + ", which this journal does not have");
  if ((last ? entryDigest(*last) : 0) != digest || r.pod<std::uint64_t>() != journal_.id())
    throw SnapshotCorrupt("taken from another journal");
  if (r.pod<std::uint64_t>() != fingerprint_)
    throw SnapshotCorrupt("the configured accounts or fee changed since it was taken");
  auto* engine = dynamic_cast<MatchingEngine*>(engine_.get());
  if (!engine) throw std::logic_error("snapshots need the fast matching engine");
  engine->loadSnapshot(r.bytes(r.count(1)));

  const std::size_t names = r.count(8);
  for (AccountId a = 1; a <= names; ++a) {
    const std::string name = r.str();
    if (directory_.intern(name) != a) throw SnapshotCorrupt("account names out of order");
    if (!r.pod<bool>()) continue;
    Account& acc = accounts_[a];
    acc.id = a;
    acc.name = name;
    acc.reserved = r.pod<Money>();
    acc.house = r.pod<bool>();
    acc.creditLimit = r.pod<Money>();
    acc.configured = r.pod<bool>();
    acc.openOrders = r.pod<int>();
  }
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto id = r.pod<OrderId>();
    OrderInfo o;
    o.account = r.pod<AccountId>();
    o.clOrdId = r.str();
    o.limit = r.pod<Price>();
    o.side = r.pod<Side>();
    o.reserved = r.pod<Money>();
    o.open = r.pod<bool>();
    auto acc = accounts_.find(o.account);
    if (acc == accounts_.end()) throw SnapshotCorrupt("an order of an unknown account");
    // As a replay names them: a later order with the same client id takes it over.
    if (!acc->second.byClOrdId.claim(o.clOrdId, id)) {
      acc->second.byClOrdId.erase(o.clOrdId);
      acc->second.byClOrdId.claim(o.clOrdId, id);
    }
    orders_.put(id, std::move(o));
  }
  nextOrderId_ = r.pod<OrderId>();
  for (std::size_t n = r.count(1); n > 0; --n) buyerTook_.push_back(r.pod<bool>());
  ledger_.load(r);
  settlement_.load(r);
  forwards_.load(r);
  options_.load(r);
  index_.load(r);
  for (std::size_t n = r.count(1); n > 0; --n) indexedAccelerators_.insert(r.pod<Accelerator>());
  const bool asOf = r.pod<bool>();
  const auto asOfHour = r.pod<Hour>();
  if (asOf) indexAsOf_ = asOfHour;
  for (std::size_t n = r.count(sizeof(IndexPublication)); n > 0; --n) {
    const auto p = r.pod<IndexPublication>();
    indexNow_[{p.accelerator, p.tenor}] = p;
  }
  for (std::size_t n = r.count(sizeof(IndexPublication)); n > 0; --n) indexHistory_.push_back(r.pod<IndexPublication>());
  publishedThrough_ = r.pod<Hour>();
  for (std::size_t n = r.count(8); n > 0; --n) {
    CellKey cell;
    cell.cluster = r.pod<ClusterId>();
    cell.hour = r.pod<Hour>();
    cell.side = r.pod<Side>();
    auto& levels = published_[cell];
    for (std::size_t k = r.count(8); k > 0; --k) {
      BookLevel l;
      l.price = r.pod<Price>();
      l.gpus = r.pod<GpuCount>();
      l.orders = r.pod<int>();
      l.terms = r.terms();
      levels.push_back(l);
    }
  }
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
