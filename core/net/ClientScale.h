#pragma once
// `tessera-cli --connect ... scale`: keep N GPUs of a kind held in every hour of a rolling
// horizon, one round now and then one every `--every` (docs/cli.md, "scale"). Each round reads
// the account's contracts from the exchange (so a restart loses nothing), plans with
// core/procure/Procurement, prints what it does and why, and sends immediate-or-cancel orders.
#include "core/net/ExchangeClient.h"
#include "core/procure/Procurement.h"

#include <chrono>
#include <iosfwd>
#include <map>
#include <vector>

namespace tessera::net {

struct ScaleSettings {
  ProcurementTarget target;
  std::chrono::seconds every{0};  // 0: one round
  int rounds = 0;                 // stop after this many rounds (0: one round without `every`, else forever)
  bool json = false;
  std::chrono::seconds timeout{10};
};

// The account's contracts as the exchange lists them (positions and their status), for
// heldShape: bought or sold, and the contract a replacement makes good.
[[nodiscard]] std::vector<HeldContract> heldContracts(const std::vector<Contract>& contracts,
                                                      const std::map<ContractId, ContractStatus>& status);

// The client order id of a round's order: "scale-" and a hash of the account, the order and what
// it was decided from (the exchange hour, `held`, the resting orders it would meet), so that a
// run restarted before the exchange had its order decides the same and the exchange refuses
// the copy instead of trading twice.
[[nodiscard]] std::string scaleClOrdId(const std::string& account, const ProcurementOrder& order,
                                       const std::vector<HeldContract>& held, const BookMirror& book, Hour now);

// Returns the exit code: 0 every round ran, 1 no logon or a single round that got no answer.
int runScale(const ClientOptions& options, const ScaleSettings& settings, std::ostream& out, std::ostream& err);

}  // namespace tessera::net
