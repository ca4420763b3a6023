#include "core/net/SettlementDesk.h"

#include "core/settlement/OutageRule.h"

#include "core/engine/MarketLimits.h"
#include "core/engine/SnapshotCodec.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace tessera::net {
SettlementDesk::SettlementDesk(const Matcher& engine, AccountDirectory& directory, SettlementLedger& ledger,
                               ContractSettlement& settlement, ForwardDesk& forwards, ExchangeAccounts& accounts,
                               MarketDataFeed& marketData, JournalReplay& journal, ApplyTransfer applyTransfer)
    : engine_(engine),
      directory_(directory),
      ledger_(ledger),
      settlement_(settlement),
      forwards_(forwards),
      accounts_(accounts),
      marketData_(marketData),
      journal_(journal),
      applyTransfer_(std::move(applyTransfer)) {}

void SettlementDesk::registerJournalEntries() {
  for (const char* type : {"forward_order", "forward_cancel"}) {
    journal_.registerEntry(type, [this](const nlohmann::json& j) {
      const ExchangeAccount& a = accounts_.named(j.at("account").get<std::string>());
      forwards_.replay(j, engine_.now(), accounts_.cashFreeOfBids(a) - optionsHeld(a.id));
    });
  }
  if (options_) {
    for (const char* type : {"option_order", "option_cancel"}) {
      journal_.registerEntry(type, [this](const nlohmann::json& j) {
        const ExchangeAccount& a = accounts_.named(j.at("account").get<std::string>());
        options_->replay(j, engine_.now(), accounts_.cashFreeOfBids(a) - forwards_.marginHeld(a.id));
      });
    }
  }
  journal_.registerEntry("delivery_report", [this](const nlohmann::json& j) {
    DeliveryReport r;
    r.contract = j.at("contract").get<ContractId>();
    r.start = j.at("start").get<Hour>();
    r.end = j.at("end").get<Hour>();
    r.usableGpus = j.at("usable_gpus").get<GpuCount>();
    r.problem = parseDeliveryProblem(j.at("problem").get<std::string>()).value();
    const AccountId provider = accounts_.named(j.at("account").get<std::string>()).id;
    if (auto err = deliveryReport(provider, r, nullptr))
      throw std::runtime_error("delivery report is refused on replay (" + *err + ")");
  });
  journal_.registerEntry("outage", [this](const nlohmann::json& j) {
    OutageRequest m;
    m.cluster = j.at("cluster").get<ClusterId>();
    m.start = j.at("start").get<Hour>();
    m.end = j.at("end").get<Hour>();
    m.lostGpus = j.at("lost_gpus").get<GpuCount>();
    m.problem = parseDeliveryProblem(j.at("problem").get<std::string>()).value();
    const AccountId provider = accounts_.named(j.at("account").get<std::string>()).id;
    // A journaled outage was accepted when it was written; one that reached no contract
    // (possible in journals written before outages were bounded) changes nothing again.
    if (auto err = outage(provider, m, nullptr, nullptr); err && *err != "nothing_sold")
      throw std::runtime_error("outage report is refused on replay (" + *err + ")");
  });
  registerReclaimEntry();
}

void SettlementDesk::contractCreated(const Contract& k, Outbox* out) {
  const Hour now = engine_.now();
  if (k.replaces) {
    std::vector<SettlementEvent> notes;
    if (auto err = settlement_.openReplacement(k, now, notes))
      throw std::logic_error("replacement contract " + std::to_string(k.id) + " cannot take over contract " +
                             std::to_string(k.replaces) + ": " + std::string(toString(*err)));
    for (const SettlementEvent& se : notes) notify(se, out);
    return;
  }
  // House accounts trade without cash checks: they are funded from outside for exactly
  // what they spend, so the ledger stays conserved. A checked account always has it
  // (its bid reserved it), unless credits it paid took it: then it is funded the same
  // way and the memo says so.
  const Money shortBy = k.notional() - accounts_.cash(k.buyer);
  if (shortBy > 0) {
    const ExchangeAccount& buyer = accounts_.at(k.buyer);
    fundFromOutside(k.buyer, shortBy, buyer.house ? "house funding" : "overdraft funding");
  }
  if (auto err = settlement_.open(k, k.terms, Book::Cash, now))
    throw std::logic_error("contract " + std::to_string(k.id) + " cannot open: " + std::string(toString(*err)));
  notify({k.id, *settlement_.state(k.id),
          "escrow " + toDollars(k.notional()) + " for " + std::to_string(k.gpus * (k.end - k.start)) + " GPU-hours"},
         out);
}

void SettlementDesk::recordTaker(const Fill& f, bool inCall) {
  if (f.contract == 0) return;
  if (takers_.size() < f.contract) takers_.resize(f.contract, Taker::Seller);
  takers_[f.contract - 1] = inCall ? Taker::Nobody : f.aggressor ? Taker::Buyer : Taker::Seller;
}

bool SettlementDesk::tookLiquidity(const Contract& c, AccountId viewer) const {
  return c.trade != 0 && c.id <= takers_.size() &&
         takers_[c.id - 1] == (c.buyer == viewer ? Taker::Buyer : Taker::Seller);
}

bool SettlementDesk::madeByCall(const Contract& c) const {
  return c.trade != 0 && c.id <= takers_.size() && takers_[c.id - 1] == Taker::Nobody;
}

void SettlementDesk::settleTo(Hour now, Outbox* out) {
  for (const SettlementEvent& se : settlement_.advance(now)) notify(se, out);
}

void SettlementDesk::markForwards(Hour now, const std::map<Accelerator, Price>& nextDay, Outbox* out) {
  ForwardDeskOutput forwardOut;
  forwards_.advance(now, nextDay, forwardOut);
  sendForward(forwardOut, out);
  if (options_) {
    // Options are re-margined (and periods settled) on the same index and forward books.
    OptionDeskOutput optionOut;
    options_->advance(now, optionIndexInputs(marketData_.indexNow(), forwards_.market(), now), optionOut);
    sendForward(optionOut, out);
  }
}

void SettlementDesk::forwardRequest(const ExchangeAccount& a, const ForwardRequest& f, std::optional<std::uint64_t> req,
                                    Outbox& out) {
  ForwardDeskOutput d;
  // The desk subtracts the margin its own resting orders hold.
  forwards_.handle(a.id, f, req, engine_.now(), accounts_.cashFreeOfBids(a) - optionsHeld(a.id), d);
  if (d.journal) journal_.append(*d.journal);
  sendForward(d, &out);
}

void SettlementDesk::optionRequest(const ExchangeAccount& a, const OptionRequest& r, std::optional<std::uint64_t> req,
                                   Outbox& out) {
  OptionDeskOutput d;
  // The desk subtracts the holds of its own resting orders.
  options_->handle(a.id, r, req, engine_.now(), accounts_.cashFreeOfBids(a) - forwards_.marginHeld(a.id), d);
  if (d.journal) journal_.append(*d.journal);
  sendForward(d, &out);
}

void SettlementDesk::sendForward(const ForwardDeskOutput& d, Outbox* out) {
  for (const auto& [account, line] : d.toAccount) {
    accounts_.markDirty(account);
    if (out) accounts_.toAccount(account, *out, line);
  }
  // The desk writes objects without a sequence number: they are numbered like every md line.
  marketData_.publishUnnumbered(d.marketData, out);
}

void SettlementDesk::fundFromOutside(AccountId a, Money amount, const char* memo) {
  if (amount > 0) ledger_.postChecked({a, Book::External}, {a, Book::Cash}, amount, memo);
}

std::vector<std::pair<AccountId, OutageRequest>> SettlementDesk::feederOutages(FeederReports& reports, Outbox& out) {
  std::vector<std::pair<AccountId, OutageRequest>> applied;
  for (const FeederOutage& f : reports.take()) {
    const OutageRequest m{f.cluster, f.start, f.end, f.lostGpus, f.problem};
    const AccountId provider = accounts_.named(f.provider).id;
    if (!outage(provider, m, &out, nullptr)) applied.emplace_back(provider, m);
  }
  return applied;
}

void SettlementDesk::save(SnapshotWriter& w) const {
  w.pod<std::uint64_t>(takers_.size());
  for (Taker t : takers_) w.pod(static_cast<std::uint8_t>(t));
  ledger_.save(w);
  settlement_.save(w);
  forwards_.save(w);
  if (options_) options_->save(w);
}

void SettlementDesk::load(SnapshotReader& r) {
  for (std::size_t n = r.count(1); n > 0; --n) {
    const auto t = r.pod<std::uint8_t>();
    if (t > static_cast<std::uint8_t>(Taker::Nobody)) throw SnapshotCorrupt("a contract's taker is out of range");
    takers_.push_back(static_cast<Taker>(t));
  }
  ledger_.load(r);
  settlement_.load(r);
  forwards_.load(r);
  if (options_) options_->load(r);
}

std::optional<std::string> SettlementDesk::deliveryReport(AccountId provider, const DeliveryReport& r, Outbox* out) {
  // Someone else's contract is reported exactly like a missing one. The engine knows every
  // contract it keeps, settlement the ones not yet settled, the archive the retired ones.
  const auto owned = engine_.contract(r.contract);
  if (!owned) {
    // Retired to the archive: settled, as settlement would say of one it kept.
    const auto archived = settled_ ? settled_->find(r.contract) : std::nullopt;
    return std::string(archived && archived->contract.seller == provider ? "hours_already_settled"
                                                                         : "unknown_contract");
  }
  if (owned->seller != provider) return std::string("unknown_contract");
  if (auto err = settlement_.report(r)) return std::string(toString(*err));
  const Contract* k = settlement_.contract(r.contract);
  appendEntry({{"type", "delivery_report"},
               {"account", directory_.name(provider)},
               {"contract", r.contract},
               {"start", r.start},
               {"end", r.end},
               {"usable_gpus", r.usableGpus},
               {"problem", std::string(toString(r.problem))}});
  const Contract contract = *k;
  notify({contract.id, *settlement_.state(contract.id),
          "provider reported " + std::string(toString(r.problem)) + ": " + std::to_string(r.usableGpus) + " of " +
              std::to_string(contract.gpus) + " GPUs usable in hours " + std::to_string(r.start) + ".." +
              std::to_string(r.end)},
         out);
  // Remedies are inputs of their own in the journal (CapacityTransfer): replay applies those.
  if (!journal_.replaying()) applyRemedy(contract, r.start, r.end, std::nullopt, out);
  return std::nullopt;
}

// The outage rule (docs/settlement.md, core/settlement/OutageRule): the lost GPUs are spread
// over the provider's contracts on the cluster (lowest id first) and its unsold holding.
std::optional<std::string> SettlementDesk::outage(AccountId provider, const OutageRequest& m, Outbox* out,
                                                  std::vector<ContractId>* affected) {
  const Cluster* cluster = engine_.cluster(m.cluster);
  if (!cluster) return std::string("unknown_cluster");
  const bool degraded = m.problem != DeliveryProblem::MissingGpus;
  if (m.start < 0 || m.start >= m.end || m.lostGpus < 0 || (m.lostGpus == 0 && !degraded))
    return std::string("invalid_report");
  // Who may report, and how much at once. A replayed entry was accepted under the rules of the
  // version that wrote it, so replay applies it whatever these say now; the work below is
  // bounded by the reporter's contracts' hours either way.
  if (!journal_.replaying()) {
    // Only the cluster's provider reports on it (a cluster that names none: whoever sold on it).
    if (!cluster->provider.empty() && cluster->provider != directory_.name(provider))
      return std::string("not_your_cluster");
    if (m.end - m.start > kMaxOutageHours || m.lostGpus > limits::kMaxClusterGpus) return std::string("invalid_report");
  }
  const Hour from = std::max(m.start, engine_.now());
  if (from >= m.end) return std::string("hours_already_settled");
  // The report covers only hours the provider sold: the work below is bounded by its contracts'
  // hours inside [from, end).
  std::vector<Contract> contracts;  // lowest id first (a set of ids)
  for (ContractId id : settlement_.openContractsOf(provider, m.cluster)) {
    const Contract* k = settlement_.contract(id);
    if (k->start < m.end && k->end > from) contracts.push_back(*k);
  }
  if (contracts.empty()) return std::string("nothing_sold");
  appendEntry({{"type", "outage"},
               {"account", directory_.name(provider)},
               {"cluster", m.cluster},
               {"start", m.start},
               {"end", m.end},
               {"lost_gpus", m.lostGpus},
               {"problem", std::string(toString(m.problem))}});
  const std::vector<OutageShare> shares = spreadOutage(
      contracts, m.lostGpus, from, m.end, [&](Hour h) { return engine_.holding(provider, m.cluster, h).held; },
      degraded);
  std::vector<std::pair<Contract, std::pair<Hour, Hour>>> reported;
  for (const OutageShare& s : shares) {
    const Contract& k =
        *std::find_if(contracts.begin(), contracts.end(), [&](const Contract& c) { return c.id == s.contract; });
    const DeliveryReport r{k.id, s.start, s.end, k.gpus - s.lostGpus, m.problem};
    if (settlement_.report(r)) continue;
    notify({k.id, *settlement_.state(k.id),
            "outage on cluster " + std::to_string(m.cluster) + " (" + std::string(toString(m.problem)) +
                "): " + std::to_string(s.lostGpus) + " of " + std::to_string(k.gpus) + " GPUs lost in hours " +
                std::to_string(r.start) + ".." + std::to_string(r.end)},
           out);
    if (s.lostGpus > 0) reported.push_back({k, {r.start, r.end}});
    if (affected && (affected->empty() || affected->back() != k.id)) affected->push_back(k.id);
  }
  if (!journal_.replaying()) {
    for (const auto& [k, window] : reported) applyRemedy(k, window.first, window.second, m.cluster, out);
  }
  return std::nullopt;
}

std::vector<OrderId> SettlementDesk::asksDuring(AccountId provider, ClusterId cluster, Hour start, Hour end) const {
  const Hour from = std::max(start, engine_.now());
  std::vector<OrderId> ids;
  for (const OrderView& v : engine_.workingOrders(provider)) {
    const OrderRequest& o = v.request;
    if (o.side == Side::Sell && o.cluster == cluster && o.start < end && o.end > from) ids.push_back(o.id);
  }
  return ids;
}

void SettlementDesk::applyRemedy(const Contract& k, Hour start, Hour end, std::optional<ClusterId> excluded,
                                 Outbox* out) {
  const OfferTerms* terms = settlement_.terms(k.id);
  if (!terms || terms->remedy != Remedy::Replacement) return;
  const Hour from = std::max(start, engine_.now());
  auto say = [&](const std::string& what) {
    if (auto st = settlement_.state(k.id)) notify({k.id, *st, what}, out);
  };
  if (from >= end) return say("no replacement for hours already over: the credit applies");
  GpuCount gpus = k.gpus;
  for (Hour h = from; h < end; ++h) gpus = std::min(gpus, settlement_.unreplacedShortfall(k.id, h));
  if (gpus <= 0) return;
  const Cluster* original = engine_.cluster(k.cluster);
  if (!original) return;
  std::vector<const Cluster*> candidates;
  for (const Cluster& c : engine_.clusters()) {
    const Cluster* cl = engine_.cluster(c.id);
    if (excluded && c.id == *excluded) continue;
    // Firm capacity is never made good with capacity its provider may reclaim.
    if (c.interruptible() && !original->interruptible()) continue;
    if (c.accelerator != original->accelerator || c.gpuMemoryGb < original->gpuMemoryGb || c.fabric < original->fabric)
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
        const Holding hold = engine_.holding(k.seller, c->id, h);
        fits = hold.held - hold.offered >= gpus;
      }
      if (!fits) continue;
      if (applyTransfer_(CapacityTransfer{k.id, k.seller, k.buyer, c->id, gpus, begin, end, k.price}, out)) return;
    }
  }
  say("no replacement capacity for " + std::to_string(gpus) + " GPUs within " +
      std::to_string(terms->replacementWithinHours) + " hours: the credit applies");
}

void SettlementDesk::notify(const SettlementEvent& e, Outbox* out) {
  // The engine's copy: a contract that has just settled has already left the settlement's books.
  const auto k = engine_.contract(e.contract);
  if (!k) return;
  accounts_.markDirty(k->buyer);
  accounts_.markDirty(k->seller);
  if (!out) return;
  // House accounts of a simulated market settle thousands of contracts nobody watches.
  if (accounts_.at(k->buyer).sessions.empty() && accounts_.at(k->seller).sessions.empty()) return;
  std::string line;
  appendSettlement(line, e, engine_.now());
  accounts_.toAccount(k->buyer, *out, line);
  if (k->seller != k->buyer) accounts_.toAccount(k->seller, *out, line);
}

void SettlementDesk::appendEntry(const nlohmann::json& entry) { journal_.append(entry.dump()); }

}  // namespace tessera::net
