#pragma once
// Contract settlement states as the terminal reads and shows them: the exchange names a state
// ("partly_delivered"), people read "partly delivered", and some states are trouble.
#include "core/settlement/ContractSettlement.h"

#include <QString>

#include <optional>
#include <string_view>

namespace tessera::ui {

std::optional<ContractState> parseContractState(std::string_view name);
// For a person: "pending start", "partly delivered"; a name this terminal does not know is
// shown as sent.
QString contractStateLabel(std::optional<ContractState> state, const QString& sentName);
// Failed or partly delivered: the buyer did not get everything it paid for.
bool isShortfall(std::optional<ContractState> state);
QString deliveryProblemLabel(DeliveryProblem p);

}  // namespace tessera::ui
