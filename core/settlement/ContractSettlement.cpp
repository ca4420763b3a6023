#include "core/settlement/ContractSettlement.h"
#include "core/engine/SnapshotCodec.h"
#include "core/settlement/CountText.h"
#include "core/settlement/ExchangeFee.h"

#include <algorithm>

namespace tessera {

std::string_view toString(ContractState s) {
  switch (s) {
    case ContractState::PendingStart: return "pending_start";
    case ContractState::Delivering: return "delivering";
    case ContractState::Completed: return "completed";
    case ContractState::PartlyDelivered: return "partly_delivered";
    case ContractState::Failed: return "failed";
    case ContractState::Settled: return "settled";
  }
  return "?";
}

std::string_view toString(DeliveryProblem p) {
  switch (p) {
    case DeliveryProblem::MissingGpus: return "missing_gpus";
    case DeliveryProblem::LinkDegraded: return "link_degraded";
    case DeliveryProblem::PowerCurtailed: return "power_curtailed";
  }
  return "?";
}

std::optional<DeliveryProblem> parseDeliveryProblem(std::string_view s) {
  for (DeliveryProblem p :
       {DeliveryProblem::MissingGpus, DeliveryProblem::LinkDegraded, DeliveryProblem::PowerCurtailed})
    if (toString(p) == s) return p;
  return std::nullopt;
}

std::string_view toString(SettlementError e) {
  switch (e) {
    case SettlementError::UnknownContract: return "unknown_contract";
    case SettlementError::AlreadyOpen: return "already_open";
    case SettlementError::InsufficientFunds: return "insufficient_funds";
    case SettlementError::HoursAlreadySettled: return "hours_already_settled";
    case SettlementError::InvalidReport: return "invalid_report";
  }
  return "?";
}

std::string toDollars(Money m) {
  // Rounded to the cent, half away from zero, from the integer micro-dollars, with thousands
  // separators: "-$1,224.50". An amount that rounds to zero cents has no sign.
  const bool negative = m < 0;
  // Unsigned, so the most negative Money has a magnitude too.
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(m) : static_cast<std::uint64_t>(m);
  const std::uint64_t cents = magnitude / 10'000 + (magnitude % 10'000 >= 5'000 ? 1 : 0);
  const std::string whole = withThousands(static_cast<std::int64_t>(cents / 100));
  const std::uint64_t c = cents % 100;
  return std::string(negative && cents > 0 ? "-$" : "$") + whole + "." + (c < 10 ? "0" : "") + std::to_string(c);
}

std::string withThousands(std::int64_t n) {
  const bool negative = n < 0;
  const std::string digits =
      std::to_string(negative ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n));
  std::string out = negative ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

namespace {
std::string dollars(Money m) { return toDollars(m); }
GpuCount hourValue(const std::map<Hour, GpuCount>& m, Hour h) {
  auto it = m.find(h);
  return it == m.end() ? 0 : it->second;
}
}  // namespace

std::optional<SettlementError> ContractSettlement::open(const Contract& k, const OfferTerms& terms, Book fundedFrom,
                                                        Hour now) {
  if (contracts_.count(k.id) || settled(k.id)) return SettlementError::AlreadyOpen;
  const Money notional = k.notional();
  if (ledger_.post({k.buyer, fundedFrom}, {k.buyer, Book::Escrow}, notional,
                   "escrow for contract " + std::to_string(k.id)))
    return SettlementError::InsufficientFunds;
  Open o;
  o.contract = k;
  o.terms = terms;
  o.state = now >= k.start ? ContractState::Delivering : ContractState::PendingStart;
  o.settledUntil = k.start;
  o.escrow = notional;
  contracts_.emplace(k.id, std::move(o));
  opened(k);
  return std::nullopt;
}

std::optional<SettlementError> ContractSettlement::openReplacement(const Contract& r, Hour now,
                                                                   std::vector<SettlementEvent>& out) {
  if (contracts_.count(r.id)) return SettlementError::AlreadyOpen;
  auto it = contracts_.find(r.replaces);
  if (it == contracts_.end()) return SettlementError::UnknownContract;
  Open& original = it->second;
  const Contract& k = original.contract;
  if (r.price != k.price || r.buyer != k.buyer || r.seller != k.seller || r.start < original.settledUntil ||
      r.start < k.start || r.end > k.end)
    return SettlementError::InvalidReport;
  for (Hour h = r.start; h < r.end; ++h)
    if (unreplacedShortfall(k.id, h) < r.gpus) return SettlementError::InvalidReport;
  for (Hour h = r.start; h < r.end; ++h) original.replaced[h] += r.gpus;
  const Money moved = r.notional();
  const std::int64_t gpuHours = static_cast<std::int64_t>(r.gpus) * (r.end - r.start);
  original.escrow -= moved;
  original.replacedGpuHours += gpuHours;
  Open o;
  o.contract = r;
  o.terms = original.terms;
  o.state = now >= r.start ? ContractState::Delivering : ContractState::PendingStart;
  o.settledUntil = r.start;
  o.escrow = moved;
  contracts_.emplace(r.id, std::move(o));
  opened(r);
  out.push_back({k.id, original.state,
                 "replacement contract " + std::to_string(r.id) + " for " + std::to_string(gpuHours) +
                     " GPU-hours; escrow " + dollars(moved) + " moved to it"});
  out.push_back({r.id, contracts_.at(r.id).state,
                 "opened as replacement of contract " + std::to_string(k.id) + " with escrow " + dollars(moved)});
  return std::nullopt;
}

GpuCount ContractSettlement::unreplacedShortfall(ContractId id, Hour h) const {
  auto it = contracts_.find(id);
  if (it == contracts_.end()) return 0;
  const Open& o = it->second;
  auto s = o.shortfall.find(h);
  if (s == o.shortfall.end()) return 0;
  auto r = o.replaced.find(h);
  const GpuCount replaced = r == o.replaced.end() ? 0 : r->second;
  // Reclaimed GPUs are not owed, so they are never lost either.
  return std::max<GpuCount>(0, std::min(s->second - replaced, o.contract.gpus - replaced - hourValue(o.reclaimed, h)));
}

std::vector<ContractSettlement::LostRun> ContractSettlement::unreplacedShortfallRuns(ContractId id) const {
  std::vector<LostRun> runs;
  const auto it = contracts_.find(id);
  if (it == contracts_.end()) return runs;
  for (const auto& [h, missing] : it->second.shortfall) {
    const GpuCount lost = unreplacedShortfall(id, h);
    if (lost <= 0) continue;
    if (!runs.empty() && runs.back().end == h && runs.back().gpus == lost)
      runs.back().end = h + 1;
    else
      runs.push_back({h, h + 1, lost});
  }
  return runs;
}

std::optional<SettlementError> ContractSettlement::checkReclaim(ContractId id, Hour start, Hour end,
                                                                GpuCount gpus) const {
  auto it = contracts_.find(id);
  if (it == contracts_.end())
    return settled(id) ? SettlementError::HoursAlreadySettled : SettlementError::UnknownContract;
  const Open& o = it->second;
  const Contract& k = o.contract;
  if (start >= end || start < k.start || end > k.end || gpus <= 0 || gpus > k.gpus)
    return SettlementError::InvalidReport;
  if (start < o.settledUntil) return SettlementError::HoursAlreadySettled;
  for (Hour h = start; h < end; ++h)
    if (hourValue(o.replaced, h) + hourValue(o.reclaimed, h) + gpus > k.gpus) return SettlementError::InvalidReport;
  return std::nullopt;
}

std::variant<Money, SettlementError> ContractSettlement::reclaim(ContractId id, Hour start, Hour end, GpuCount gpus) {
  if (auto err = checkReclaim(id, start, end, gpus)) return *err;
  Open& o = contracts_.find(id)->second;
  const Contract& k = o.contract;
  for (Hour h = start; h < end; ++h) o.reclaimed[h] += gpus;
  const std::int64_t gpuHours = static_cast<std::int64_t>(gpus) * (end - start);
  const Money refund = k.price * gpuHours;
  ledger_.postChecked({k.buyer, Book::Escrow}, {k.buyer, Book::Cash}, refund,
                      "refund of reclaimed hours, contract " + std::to_string(k.id));
  o.escrow -= refund;
  o.reclaimedGpuHours += gpuHours;
  return refund;
}

std::vector<ContractSettlement::LostRun> ContractSettlement::reclaimedRuns(ContractId id) const {
  std::vector<LostRun> runs;
  const auto it = contracts_.find(id);
  if (it == contracts_.end()) return runs;
  for (const auto& [h, gpus] : it->second.reclaimed) {
    if (!runs.empty() && runs.back().end == h && runs.back().gpus == gpus)
      runs.back().end = h + 1;
    else
      runs.push_back({h, h + 1, gpus});
  }
  return runs;
}

std::int64_t ContractSettlement::reclaimedGpuHours(ContractId id) const {
  const auto it = contracts_.find(id);
  return it == contracts_.end() ? 0 : it->second.reclaimedGpuHours;
}

std::optional<SettlementError> ContractSettlement::report(const DeliveryReport& r) {
  auto it = contracts_.find(r.contract);
  if (it == contracts_.end())
    return settled(r.contract) ? SettlementError::HoursAlreadySettled : SettlementError::UnknownContract;
  Open& o = it->second;
  const Contract& k = o.contract;
  if (r.start >= r.end || r.start < k.start || r.end > k.end || r.usableGpus < 0 || r.usableGpus > k.gpus ||
      (r.problem == DeliveryProblem::MissingGpus && r.usableGpus == k.gpus))
    return SettlementError::InvalidReport;
  if (r.start < o.settledUntil) return SettlementError::HoursAlreadySettled;
  for (Hour h = r.start; h < r.end; ++h) {
    GpuCount& missing = o.shortfall[h];
    missing = std::max(missing, k.gpus - r.usableGpus);
    if (r.problem != DeliveryProblem::MissingGpus) o.degraded[h] = true;
  }
  return std::nullopt;
}

void ContractSettlement::settleHours(Open& o, Hour until, std::vector<SettlementEvent>& out) {
  const Contract& k = o.contract;
  std::int64_t delivered = 0, missing = 0;
  for (Hour h = o.settledUntil; h < until; ++h) {
    GpuCount m = 0;
    GpuCount replaced = 0;
    if (auto r = o.replaced.find(h); r != o.replaced.end()) replaced = r->second;
    if (auto s = o.shortfall.find(h); s != o.shortfall.end()) m = s->second;
    if (o.terms.billing == BillingBasis::SuccessfulWork && o.degraded.count(h)) m = k.gpus;
    // Replaced GPUs are the replacement contract's business, never this one's; reclaimed ones
    // were refunded when they were reclaimed.
    const GpuCount owed = k.gpus - replaced - hourValue(o.reclaimed, h);
    m = std::min(std::max<GpuCount>(0, m - replaced), owed);
    delivered += owed - m;
    missing += m;
  }
  o.settledUntil = until;
  o.delivered += delivered;
  o.undelivered += missing;
  const bool payAll = o.terms.billing == BillingBasis::CommittedBlock;
  const Money pay = k.price * (payAll ? delivered + missing : delivered);
  const Money refund = payAll ? 0 : k.price * missing;
  if (pay > 0) {
    ledger_.postChecked({k.buyer, Book::Escrow}, {k.seller, Book::Cash}, pay,
                        "delivery of contract " + std::to_string(k.id));
    o.escrow -= pay;
    out.push_back({k.id, o.state,
                   "paid provider " + dollars(pay) + " for " +
                       std::to_string(payAll ? delivered + missing : delivered) + " GPU-hours"});
    const Money fee = exchangeFee(pay, feePpm_);
    if (fee > 0) {
      ledger_.postChecked({k.seller, Book::Cash}, {feeAccount_, Book::Fees}, fee,
                          "exchange fee, contract " + std::to_string(k.id));
      out.push_back({k.id, o.state, "exchange fee " + dollars(fee)});
    }
  }
  if (refund > 0) {
    ledger_.postChecked({k.buyer, Book::Escrow}, {k.buyer, Book::Cash}, refund,
                        "refund of undelivered hours, contract " + std::to_string(k.id));
    o.escrow -= refund;
    out.push_back({k.id, o.state,
                   "refunded buyer " + dollars(refund) + " for " + std::to_string(missing) + " undelivered GPU-hours"});
  }
}

void ContractSettlement::finish(Open& o, std::vector<SettlementEvent>& out) {
  const Contract& k = o.contract;
  const std::int64_t total =
      static_cast<std::int64_t>(k.gpus) * (k.end - k.start) - o.replacedGpuHours - o.reclaimedGpuHours;
  o.state = o.undelivered == 0 ? ContractState::Completed
            : o.delivered == 0 ? ContractState::Failed
                               : ContractState::PartlyDelivered;
  out.push_back({k.id, o.state, std::to_string(o.delivered) + " of " + std::to_string(total) + " GPU-hours delivered"});
  const bool promiseMissed = o.delivered * 1'000'000 < total * static_cast<std::int64_t>(o.terms.uptimePromisePpm);
  const Money credit = promiseMissed ? o.undelivered * o.terms.creditPerUndeliveredGpuHour : 0;
  if (credit > 0) {
    // The provider pays what it can; a shortfall is reported, never created out of nothing.
    const Money held = heldCash_ ? heldCash_(k.seller) : 0;
    const Money paid = std::clamp<Money>(ledger_.balance({k.seller, Book::Cash}) - held, 0, credit);
    if (paid > 0) {
      ledger_.postChecked({k.seller, Book::Cash}, {k.buyer, Book::Cash}, paid,
                          "uptime credit, contract " + std::to_string(k.id));
      credits_[k.buyer] += paid;
    }
    std::string what = "credit " + dollars(paid) + " for " + std::to_string(o.undelivered) + " undelivered GPU-hours";
    if (paid < credit) what += " (provider still owes " + dollars(credit - paid) + ")";
    out.push_back({k.id, o.state, what});
  }
  o.state = ContractState::Settled;
  out.push_back({k.id, o.state, "settled"});
}

std::vector<SettlementEvent> ContractSettlement::advance(Hour now) {
  std::vector<SettlementEvent> out;
  for (auto it = contracts_.begin(); it != contracts_.end();) {
    const ContractId id = it->first;
    Open& o = it->second;
    if (o.state == ContractState::PendingStart && now >= o.contract.start) {
      o.state = ContractState::Delivering;
      out.push_back({id, o.state, "delivery started"});
    }
    const Hour until = std::min(now, o.contract.end);
    if (until > o.settledUntil) settleHours(o, until, out);
    if (o.settledUntil == o.contract.end) finish(o, out);
    if (o.state == ContractState::Settled) {
      if (retire_) {
        retire_(id, o.delivered);
      } else {
        if (id >= settledDelivered_.size())
          settledDelivered_.resize(std::max<std::size_t>(id + 1, settledDelivered_.size() * 2), -1);
        settledDelivered_[id] = o.delivered;
      }
      const auto key = std::pair(o.contract.seller, o.contract.cluster);
      auto ids = bySellerCluster_.find(key);
      ids->second.erase(id);
      if (ids->second.empty()) bySellerCluster_.erase(ids);
      it = contracts_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::optional<ContractState> ContractSettlement::state(ContractId id) const {
  auto it = contracts_.find(id);
  if (it == contracts_.end()) return settled(id) ? std::optional(ContractState::Settled) : std::nullopt;
  return it->second.state;
}

const Contract* ContractSettlement::contract(ContractId id) const {
  auto it = contracts_.find(id);
  return it == contracts_.end() ? nullptr : &it->second.contract;
}

const OfferTerms* ContractSettlement::terms(ContractId id) const {
  auto it = contracts_.find(id);
  return it == contracts_.end() ? nullptr : &it->second.terms;
}

Money ContractSettlement::creditsReceived(AccountId a) const {
  auto it = credits_.find(a);
  return it == credits_.end() ? 0 : it->second;
}

std::vector<ContractId> ContractSettlement::openContracts() const {
  std::vector<ContractId> ids;
  ids.reserve(contracts_.size());
  for (const auto& [id, o] : contracts_) ids.push_back(id);
  return ids;
}

const std::set<ContractId>& ContractSettlement::openContractsOf(AccountId seller, ClusterId cluster) const {
  static const std::set<ContractId> kNone;
  auto it = bySellerCluster_.find({seller, cluster});
  return it == bySellerCluster_.end() ? kNone : it->second;
}

std::int64_t ContractSettlement::deliveredGpuHours(ContractId id) const {
  auto it = contracts_.find(id);
  if (it != contracts_.end()) return it->second.delivered;
  return settled(id) ? settledDelivered_[id] : 0;
}

Money ContractSettlement::escrow(ContractId id) const {
  auto it = contracts_.find(id);
  return it == contracts_.end() ? 0 : it->second.escrow;
}

namespace {
template <typename V>
void saveHours(SnapshotWriter& w, const std::map<Hour, V>& m) {
  w.pod<std::uint64_t>(m.size());
  for (const auto& [h, v] : m) {
    w.pod(h);
    w.pod(v);
  }
}
template <typename V>
void loadHours(SnapshotReader& r, std::map<Hour, V>& m) {
  for (std::size_t n = r.count(8); n > 0; --n) {
    const Hour h = r.pod<Hour>();
    m[h] = r.pod<V>();
  }
}
}  // namespace

void ContractSettlement::save(SnapshotWriter& w) const {
  w.pod<std::uint64_t>(contracts_.size());
  for (const auto& [id, o] : contracts_) {
    w.contract(o.contract);
    w.terms(o.terms);
    w.pod(o.state);
    w.pod(o.settledUntil);
    saveHours(w, o.shortfall);
    saveHours(w, o.degraded);
    saveHours(w, o.replaced);
    saveHours(w, o.reclaimed);
    w.pod(o.delivered);
    w.pod(o.undelivered);
    w.pod(o.replacedGpuHours);
    w.pod(o.reclaimedGpuHours);
    w.pod(o.escrow);
  }
  w.podVector(settledDelivered_);
  w.pod<std::uint64_t>(credits_.size());
  for (const auto& [a, m] : credits_) {
    w.pod(a);
    w.pod(m);
  }
}

void ContractSettlement::load(SnapshotReader& r) {
  for (std::size_t n = r.count(8); n > 0; --n) {
    Open o;
    o.contract = r.contract();
    const Contract& k = o.contract;
    o.terms = r.terms();
    o.state = r.pod<ContractState>();
    o.settledUntil = r.pod<Hour>();
    loadHours(r, o.shortfall);
    loadHours(r, o.degraded);
    loadHours(r, o.replaced);
    loadHours(r, o.reclaimed);
    o.delivered = r.pod<std::int64_t>();
    o.undelivered = r.pod<std::int64_t>();
    o.replacedGpuHours = r.pod<std::int64_t>();
    o.reclaimedGpuHours = r.pod<std::int64_t>();
    o.escrow = r.pod<Money>();
    opened(k);
    const ContractId id = k.id;
    contracts_.emplace(id, std::move(o));
  }
  r.podVector(settledDelivered_);
  for (std::size_t n = r.count(8); n > 0; --n) {
    const auto a = r.pod<AccountId>();
    credits_[a] = r.pod<Money>();
  }
}

}  // namespace tessera
