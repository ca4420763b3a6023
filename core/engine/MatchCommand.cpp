#include "core/engine/MatchCommand.h"

#include "core/engine/EventJson.h"
#include "core/engine/Matcher.h"

#include <iostream>
#include <string>
#include <string_view>

namespace tessera {

int runMatchCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  bool reference = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--reference") {
      reference = true;
    } else if (a == "--help" || a == "-h") {
      out << "usage: tessera-cli match [--reference] < inputs.jsonl > events.jsonl\n"
             "Reads one input per line (cluster, capacity, order, cancel, amend, clock) and writes\n"
             "every resulting engine event as one JSON object per line. A line that cannot be read\n"
             "gets a 'rejected' event with reason 'malformed' and processing goes on.\n"
             "  --reference   use the naive reference matcher instead of the fast engine\n"
             "Formats: docs/cli.md\n";
      return 0;
    } else {
      err << "tessera-cli match: unknown option '" << a << "'\n";
      return 2;
    }
  }
  auto matcher = reference ? makeReferenceMatcher() : makeMatchingEngine();
  AccountDirectory accounts;
  std::vector<Event> events;
  std::string line;
  std::size_t lineNo = 0;
  std::size_t malformed = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    auto reject = [&](const std::string& why) {
      ++malformed;
      nlohmann::json j{{"event", "rejected"}, {"reason", "malformed"}, {"line", lineNo}, {"detail", why}};
      out << j.dump() << '\n';
    };
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      reject("not valid JSON");
      continue;
    }
    auto parsed = inputEventFromJson(j, accounts);
    if (auto* e = std::get_if<JsonError>(&parsed)) {
      reject(e->message);
      continue;
    }
    events.clear();
    matcher->apply(std::get<InputEvent>(parsed), events);
    for (const Event& e : events) out << toJson(e, accounts).dump() << '\n';
  }
  out.flush();
  if (malformed) err << "tessera-cli match: " << malformed << " malformed line(s) rejected\n";
  return 0;
}

}  // namespace tessera
