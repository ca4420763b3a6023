// Reclaims of interruptible capacity (docs/protocol.md, "Interruptible capacity"): the part of
// SettlementDesk that checks who may take GPUs back and with what notice, journals the reclaim
// and refunds the buyer through ContractSettlement.
#include "core/engine/MarketLimits.h"
#include "core/net/SettlementDesk.h"
#include "core/settlement/ReclaimRule.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace tessera::net {

void SettlementDesk::registerReclaimEntry() {
  journal_.registerEntry("reclaim", [this](const nlohmann::json& j) {
    ReclaimRequest m;
    m.contract = j.at("contract").get<ContractId>();
    m.start = j.at("start").get<Hour>();
    m.end = j.at("end").get<Hour>();
    m.gpus = j.at("gpus").get<GpuCount>();
    const AccountId provider = accounts_.named(j.at("account").get<std::string>()).id;
    // The clock a replay reaches this entry at is the one it was accepted at, so it passes again.
    const auto done = reclaim(provider, m, nullptr);
    if (const auto* err = std::get_if<std::string>(&done))
      throw std::runtime_error("reclaim is refused on replay (" + *err + ")");
  });
}

std::variant<Money, std::string> SettlementDesk::reclaim(AccountId provider, const ReclaimRequest& m, Outbox* out) {
  // Its own fields first, then the contract, the cluster's kind and notice, then the hours.
  if (m.gpus <= 0 || m.gpus > limits::kMaxClusterGpus || m.start >= m.end || m.end - m.start > kMaxOutageHours)
    return std::string("invalid_reclaim");
  // Someone else's contract is refused exactly like a missing one.
  const auto k = engine_.contract(m.contract);
  if (!k || k->seller != provider) return std::string("unknown_contract");
  const Cluster* cluster = engine_.cluster(k->cluster);
  if (!cluster || !cluster->interruptible()) return std::string("not_interruptible");
  // Only the cluster's provider takes its machines back (a cluster that names none: its seller);
  // a holder who resold interruptible hours has no machines to reclaim.
  if (!cluster->provider.empty() && cluster->provider != directory_.name(provider))
    return std::string("not_your_cluster");
  if (m.start < engine_.now() + cluster->noticeHours) return std::string("notice_too_short");
  auto refused = [](SettlementError e) {
    return std::string(e == SettlementError::InvalidReport ? "invalid_reclaim" : toString(e));
  };
  if (auto err = settlement_.checkReclaim(m.contract, m.start, m.end, m.gpus)) return refused(*err);
  // The reclaim takes the hours out of the buyer's holding (an engine input the caller sends
  // after this): hours the buyer has sold on are someone else's, and are not taken from it.
  for (Hour h = m.start; h < m.end; ++h)
    if (engine_.holding(k->buyer, k->cluster, h).held < m.gpus) return std::string("resold");
  const auto refund = settlement_.reclaim(m.contract, m.start, m.end, m.gpus);
  if (const auto* err = std::get_if<SettlementError>(&refund)) return refused(*err);
  appendEntry({{"type", "reclaim"},
               {"account", directory_.name(provider)},
               {"contract", m.contract},
               {"start", m.start},
               {"end", m.end},
               {"gpus", m.gpus}});
  const Money refunded = std::get<Money>(refund);
  notify({k->id, *settlement_.state(k->id),
          "provider reclaimed " + std::to_string(m.gpus) + " of " + std::to_string(k->gpus) + " GPUs in hours " +
              std::to_string(m.start) + ".." + std::to_string(m.end) + "; refunded buyer " + toDollars(refunded)},
         out);
  return refunded;
}

void SettlementDesk::feederReclaims(FeederReports& reports, Outbox& out,
                                    const std::function<void(AccountId, const ReclaimRequest&)>& accepted) {
  for (const FeederReclaim& f : reports.takeReclaims()) {
    const Cluster* cluster = engine_.cluster(f.cluster);
    if (!cluster || !cluster->interruptible()) continue;
    const AccountId provider = accounts_.named(f.provider).id;
    const Hour from = std::max(f.start, engine_.now() + cluster->noticeHours);
    std::vector<Contract> sold;
    for (const Contract& k : engine_.contractsOf(provider))
      if (k.seller == provider && k.buyer != provider && k.cluster == f.cluster && k.start < f.end && k.end > from)
        sold.push_back(k);
    // What each contract can give: its GPUs less earlier reclaims, and what its buyer holds.
    auto takeable = [&](const Contract& k, Hour s, Hour e) {
      std::map<Hour, GpuCount> taken;
      for (const auto& run : settlement_.reclaimedRuns(k.id))
        for (Hour h = run.start; h < run.end; ++h) taken[h] += run.gpus;
      GpuCount most = k.gpus;
      for (Hour h = s; h < e; ++h)
        most = std::min({most, k.gpus - taken[h], engine_.holding(k.buyer, k.cluster, h).held});
      return most;
    };
    for (const ReclaimShare& share : spreadReclaim(std::move(sold), f.gpus, from, f.end, takeable)) {
      const ReclaimRequest m{share.contract, share.start, share.end, share.gpus};
      if (std::holds_alternative<Money>(reclaim(provider, m, &out))) accepted(provider, m);
    }
  }
}

}  // namespace tessera::net
