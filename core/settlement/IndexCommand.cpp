#include "core/settlement/IndexCommand.h"

#include "core/engine/InputLineReader.h"
#include "core/engine/Matcher.h"
#include "core/settlement/PriceIndex.h"
#include "core/cli/Checks.h"
#include "core/cli/Parse.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <set>
#include <string>

namespace tessera {

int runIndexCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  Hour window = kHoursPerDay;
  CLI::App app(
      "Runs the inputs (the format of 'tessera-cli match') through the engine and, for every hour\n"
      "the clock passes and at the end, prints the volume-weighted price index of each accelerator\n"
      "class and delivery tenor over the trailing window. Method: docs/settlement.md.",
      "tessera-cli index");
  app.footer("Example: tessera-cli index --window 24 < inputs.jsonl > index.jsonl");
  app.add_option("--window", window, "the trailing window in hours (default 24)")
      ->check(cli::WholeNumber & cli::Positive);
  if (auto code = cli::parseOrExit(app, argc, argv, out, err)) return *code;

  auto engine = makeMatchingEngine();
  PriceIndex index(window);
  std::set<Accelerator> traded;
  AccountDirectory accounts;
  std::vector<Event> events;
  auto publish = [&](Hour asOf) {
    for (Accelerator a : traded)
      for (Tenor t : kTenors)
        if (auto v = index.value(a, t, asOf))
          out << nlohmann::json{{"hour", asOf},
                                {"accelerator", std::string(toString(a))},
                                {"tenor", std::string(toString(t))},
                                {"price", v->price},
                                {"gpu_hours", v->gpuHours},
                                {"trades", v->trades},
                                {"stale", v->stale}}
                     .dump()
              << '\n';
  };
  const std::size_t malformed =
      readInputLines(in, accounts,
                     {[&](const InputEvent& input) {
                        // Trades count in the hour the clock shows when they happen; before the clock moves on,
                        // publish the index at the end of every hour it passes.
                        if (const auto* c = std::get_if<ClockAdvance>(&input); c && c->now > engine->now())
                          for (Hour h = engine->now(); h < c->now; ++h) publish(h);
                        events.clear();
                        engine->apply(input, events);
                        for (const Event& e : events)
                          if (const auto* k = std::get_if<ContractCreated>(&e)) {
                            const Cluster* cluster = engine->cluster(k->contract.cluster);
                            const Contract& c = k->contract;
                            index.record({engine->now(), cluster->accelerator, c.start,
                                          static_cast<std::int64_t>(c.gpus) * (c.end - c.start), c.price});
                            traded.insert(cluster->accelerator);
                          }
                      },
                      [&](std::size_t line, const std::string& why) {
                        err << "tessera-cli index: line " << line << ": " << why << '\n';
                      }});
  publish(engine->now());
  out.flush();
  return malformed ? 1 : 0;
}

}  // namespace tessera
