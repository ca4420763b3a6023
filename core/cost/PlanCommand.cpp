#include "core/cost/PlanCommand.h"

#include "core/cost/CostReport.h"
#include "core/cost/PlanSearch.h"
#include "core/cost/WorkloadJson.h"
#include "core/engine/InputLineReader.h"
#include "core/cli/Checks.h"
#include "core/cli/Parse.h"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

namespace tessera {

namespace {

using namespace tessera::cost;

nlohmann::json orderFor(const PlannedPlacement& p) {
  return {{"side", "buy"},
          {"fill", "all_or_none"},
          {"cluster", p.cluster.id},
          {"gpus", p.gpus},
          {"start", p.start},
          {"end", p.end},
          {"limit", p.limit},
          {"effective_cost_factors",
           nlohmann::json::array({{{"cluster", p.costFactor.cluster}, {"factor_ppm", p.costFactor.ppm}}})}};
}

}  // namespace

int runPlanCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  std::string workloadFile;
  PlanRequest request;
  std::vector<std::string> kinds;
  double startIn = kHoursPerDay, latestIn = 7 * kHoursPerDay, budget = 0;
  bool json = false;
  CLI::App app(
      "Runs the inputs (the format of 'tessera-cli match') through the engine, then asks of the book\n"
      "they leave: where can the workload run, starting between now + start-in and now +\n"
      "latest-start-in hours, ranked by effective cost of the completed work. Each placement comes\n"
      "with the all-or-none order that buys it, for 'tessera-cli --connect ... place --json ORDER'.\n"
      "Clusters that cannot serve say why.",
      "tessera-cli plan");
  app.footer(
      "Example: tessera-cli plan --workload W.json --kinds H100,B200 < inputs.jsonl\n"
      "Exit status: 0 with at least one placement, 1 with none, 2 for bad arguments.");
  app.add_option("--workload", workloadFile, "the workload (docs/cost-model.md)")->required()->check(CLI::ExistingFile);
  app.add_option("--kinds", kinds, "only these accelerators, e.g. H100,B200")
      ->delimiter(',')
      ->check(cli::AcceleratorName);
  app.add_option("--start-in", startIn, "earliest start, hours from now (default 24)")->check(cli::NonNegative);
  app.add_option("--latest-start-in", latestIn, "latest start, hours from now (default 168)")->check(cli::NonNegative);
  app.add_option("--budget", budget, "at most this effective cost, dollars")->check(cli::Positive);
  app.add_flag("--json", json, "JSON for scripts instead of lines for a person");
  if (auto code = cli::parseOrExit(app, argc, argv, out, err)) return *code;
  for (const std::string& k : kinds) request.accelerators.push_back(*parseAccelerator(k));
  if (budget > 0) request.budgetDollars = budget;
  auto workload = loadWorkloadFile(workloadFile);
  if (auto* e = std::get_if<LoadError>(&workload)) {
    err << "tessera-cli plan: " << e->message << "\n";
    return 2;
  }
  request.workload = std::get<WorkloadProfile>(workload);
  if (request.workload.name.empty()) request.workload.name = workloadFile;

  auto engine = makeMatchingEngine();
  AccountDirectory accounts;
  std::vector<Event> events;
  const std::size_t malformed = readInputLines(in, accounts,
                                               {[&](const InputEvent& input) {
                                                  events.clear();
                                                  engine->apply(input, events);
                                                },
                                                [&](std::size_t line, const std::string& why) {
                                                  err << "tessera-cli plan: line " << line << ": " << why << '\n';
                                                }});
  if (malformed > 0) {
    err << "tessera-cli plan: " << malformed << " input line(s) could not be read; nothing planned\n";
    return 2;
  }
  return printPlan(*engine, request, static_cast<Hour>(startIn), static_cast<Hour>(latestIn), json, out, err);
}

int printPlan(const Matcher& book, cost::PlanRequest request, Hour startIn, Hour latestIn, bool json, std::ostream& out,
              std::ostream& err) {
  const Matcher* engine = &book;
  request.earliestStart = engine->now() + startIn;
  request.latestStart = engine->now() + latestIn;
  const PlanResult plan = planPlacements(*engine, request);
  if (!plan.problem.empty()) {
    err << "tessera-cli plan: " << plan.problem << "\n";
    return 2;
  }

  if (json) {
    nlohmann::json placements = nlohmann::json::array();
    for (const PlannedPlacement& p : plan.placements)
      placements.push_back({{"cluster", p.cluster.name},
                            {"start", p.start},
                            {"end", p.end},
                            {"ask_price_per_gpu_hour", p.offer.pricePerGpuHour},
                            {"breakdown", toJson(p.cost)},
                            {"order", orderFor(p)}});
    nlohmann::json unfit = nlohmann::json::array();
    for (const ClusterUnfit& u : plan.unfit)
      unfit.push_back({{"cluster", u.cluster.name}, {"why", std::string(toString(u.why))}, {"reason", u.reason}});
    nlohmann::json j = {{"workload", request.workload.name},
                        {"gpus", request.workload.gpus()},
                        {"now", engine->now()},
                        {"earliest_start", request.earliestStart},
                        {"latest_start", request.latestStart},
                        {"placements", placements},
                        {"cannot_serve", unfit}};
    j["earliest_feasible_start"] =
        plan.earliestFeasible
            ? nlohmann::json{{"cluster", plan.earliestFeasible->cluster.name}, {"start", plan.earliestFeasible->start}}
            : nlohmann::json(nullptr);
    out << j.dump(2) << "\n";
  } else {
    out << "workload: " << request.workload.name << " (" << request.workload.gpus() << " GPUs), start between hour "
        << request.earliestStart << " and " << request.latestStart << " (clock " << engine->now() << ")\n\n";
    if (plan.placements.empty()) out << "no cluster can place it in that range\n";
    int rank = 0;
    for (const PlannedPlacement& p : plan.placements) {
      std::ostringstream days;
      days << std::fixed << std::setprecision(1) << static_cast<double>(p.end - p.start) / 24.0;
      out << ++rank << ". " << p.cluster.name << ": " << p.gpus << " x " << toString(p.cluster.accelerator)
          << ", hours [" << p.start << ", " << p.end << ") (" << days.str() << " days), ask "
          << money(p.offer.pricePerGpuHour) << "/GPU-h, effective cost " << money(p.cost.terms.total()) << " ("
          << money(p.cost.effectivePricePerGpuHour) << " per GPU-hour of compute)\n"
          << "   order: " << orderFor(p).dump() << "\n";
    }
    if (!plan.unfit.empty()) out << "\ncannot serve:\n";
    for (const ClusterUnfit& u : plan.unfit) out << "  " << u.cluster.name << ": " << u.reason << "\n";
    if (plan.placements.empty())
      out << "\nearliest feasible start: "
          << (plan.earliestFeasible ? "hour " + std::to_string(plan.earliestFeasible->start) + " on " +
                                          plan.earliestFeasible->cluster.name
                                    : std::string("none within the look-ahead"))
          << "\n";
  }
  return plan.placements.empty() ? 1 : 0;
}

}  // namespace tessera
