#include "core/engine/MatchCommand.h"

#include "core/engine/EventJson.h"
#include "core/engine/InputLineReader.h"
#include "core/engine/Matcher.h"
#include "core/cli/Parse.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

namespace tessera {

int runMatchCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  bool reference = false;
  CLI::App app(
      "Reads one input per line (cluster, capacity, order, cancel, amend, clock) and writes every\n"
      "resulting engine event as one JSON object per line. A line that cannot be read gets a\n"
      "'rejected' event with reason 'malformed' and processing goes on.",
      "tessera-cli match");
  app.footer("Example: tessera-cli match < inputs.jsonl > events.jsonl\nFormats: docs/cli.md");
  app.add_flag("--reference", reference, "use the naive reference matcher instead of the fast engine");
  if (auto code = cli::parseOrExit(app, argc, argv, out, err)) return *code;
  auto matcher = reference ? makeReferenceMatcher() : makeMatchingEngine();
  AccountDirectory accounts;
  std::vector<Event> events;
  const std::size_t malformed = readInputLines(
      in, accounts,
      {[&](const InputEvent& input) {
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
