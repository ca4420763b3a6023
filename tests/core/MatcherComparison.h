#pragma once
// Helpers shared by the engine tests: run a script through a matcher, print events readably.
#include "core/engine/Matcher.h"

#include <string>
#include <vector>

namespace tessera::testing {

std::string describe(const Event& e);
std::string describe(const InputEvent& e);
// Applies every input; returns the events of each input in order.
std::vector<std::vector<Event>> run(Matcher& m, const std::vector<InputEvent>& script);

}  // namespace tessera::testing
