#pragma once
// The journal's text of an input event: exactly the JSON of core/engine/EventJson.h's
// toJson(InputEvent), so inputEventFromJson() replays it, but written straight into a string
// for the common inputs (orders without constraints, cancels), because building a JSON tree
// per order costs the matching thread more than the match itself.
#include "core/domain/AccountDirectory.h"
#include "core/engine/Events.h"

#include <string>

namespace tessera::net {

void writeJournalForm(std::string& out, const InputEvent& in, const AccountDirectory& accounts);

}  // namespace tessera::net
