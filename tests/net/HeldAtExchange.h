#pragma once
// What an account holds, hour by hour, as the exchange itself says: its positions (bought and
// sold contracts, replacements, lost hours) through core/procure's heldShape. For the tests of
// tessera-cli scale and tessera-backtest live procure (link tessera_procure).
#include "CliTestSupport.h"

#include "core/net/LostHours.h"
#include "core/procure/Procurement.h"

#include <functional>
#include <string>
#include <vector>

namespace tessera::net::testing {

// GPUs `account` holds in each hour of [from, to) on the clusters `counted` accepts.
inline std::vector<GpuCount> heldAtExchange(std::uint16_t port, const std::string& account, Hour from, Hour to,
                                            const std::function<bool(ClusterId)>& counted) {
  std::vector<HeldContract> held;
  const nlohmann::json positions = ask(port, account, "positions");  // kept: the loop reads into it
  for (const nlohmann::json& c : positions["contracts"])
    held.push_back({c["contract"].get<ContractId>(), c["cluster"].get<ClusterId>(), c["gpus"].get<GpuCount>(),
                    c["start"].get<Hour>(), c["end"].get<Hour>(), c["side"] == "buy", c["replaces"].get<ContractId>(),
                    lostHoursFrom(c)});
  return heldShape(held, counted, from, to);
}

}  // namespace tessera::net::testing
