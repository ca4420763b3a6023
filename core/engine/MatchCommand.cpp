#include "core/engine/MatchCommand.h"

#include "core/engine/EventJson.h"
#include "core/engine/InputLineReader.h"
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
  const std::size_t malformed = readInputLines(in, accounts, {
      [&](const InputEvent& input) {
        events.clear();
        matcher->apply(input, events);
        for (const Event& e : events) out << toJson(e, accounts).dump() << '\n';
      },
      [&](std::size_t line, const std::string& why) {
        const nlohmann::json j{{"event", "rejected"}, {"reason", "malformed"}, {"line", line}, {"detail", why}};
        out << j.dump() << '\n';
      }});
  out.flush();
  if (malformed) err << "tessera-cli match: " << malformed << " malformed line(s) rejected\n";
  return 0;
}

}  // namespace tessera
