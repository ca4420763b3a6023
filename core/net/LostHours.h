#pragma once
// A contract's hours its buyer does not have: GPUs reported missing (a delivery report or an
// outage) and not made good by a replacement contract (docs/protocol.md, positions' "lost").
// The exchange writes them and the client reads them here, one form for both.
#include "core/settlement/ContractSettlement.h"

#include <nlohmann/json_fwd.hpp>

#include <vector>

namespace tessera::net {

using LostRun = ContractSettlement::LostRun;

// [{"start":S,"end":E,"gpus":G}, ...]
[[nodiscard]] nlohmann::json lostHoursJson(const std::vector<LostRun>& runs);
// The runs of a positions entry's "lost" (none, or anything but such an array: empty), or of
// another field of that form ("reclaimed": interruptible GPUs its provider took back).
[[nodiscard]] std::vector<LostRun> lostHoursFrom(const nlohmann::json& contract, const char* field = "lost");

}  // namespace tessera::net
