#include "core/cost/PlanCommand.h"

#include "core/cost/CostReport.h"
#include "core/cost/PlanSearch.h"
#include "core/cost/WorkloadJson.h"
#include "core/engine/InputLineReader.h"

#include <charconv>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace tessera {

namespace {

using namespace tessera::cost;

void printPlanUsage(std::ostream& os) {
  os << "usage: tessera-cli plan --workload W.json [--kinds H100,B200] [--start-in H] [--latest-start-in H]\n"
        "                        [--budget USD] [--json] < inputs.jsonl\n\n"
        "Runs the inputs (the format of 'tessera-cli match') through the engine, then asks of the book\n"
        "they leave: where can the workload run, starting between now + start-in (default 24) and\n"
        "now + latest-start-in hours (default 168), ranked by effective cost of the completed work.\n"
        "Each placement comes with the all-or-none order that buys it, for\n"
        "'tessera-cli --connect ... place --json ORDER'. Clusters that cannot serve say why.\n"
        "Exit status: 0 with at least one placement, 1 with none, 2 for bad arguments.\n";
}

std::optional<double> parseNumber(std::string_view s) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

nlohmann::json orderFor(const PlannedPlacement& p) {
  return {{"side", "buy"},
          {"fill", "all_or_none"},
          {"cluster", p.cluster.id},
          {"gpus", p.gpus},
          {"start", p.start},
          {"end", p.end},
          {"limit", p.limit},
          {"effective_cost_factors", nlohmann::json::array({{{"cluster", p.costFactor.cluster}, {"factor_ppm", p.costFactor.ppm}}})}};
}

}  // namespace

int runPlanCommand(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
  std::string workloadFile;
  PlanRequest request;
  Hour startIn = kHoursPerDay, latestIn = 7 * kHoursPerDay;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::optional<std::string_view> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string_view(argv[++i]);
    };
    if (arg == "--help" || arg == "-h") {
      printPlanUsage(out);
      return 0;
    } else if (arg == "--json") {
      json = true;
    } else if (arg == "--workload") {
      auto v = value();
      if (!v) {
        err << "tessera-cli plan: --workload needs a file\n";
        return 2;
      }
      workloadFile = std::string(*v);
    } else if (arg == "--kinds") {
      auto v = value();
      std::string_view list = v.value_or("");
      while (!list.empty()) {
        const auto comma = list.find(',');
        const std::string_view name = list.substr(0, comma);
        const auto kind = parseAccelerator(name);
        if (!kind) {
          err << "tessera-cli plan: unknown GPU kind '" << name << "' in --kinds\n";
          return 2;
        }
        request.accelerators.push_back(*kind);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
      if (request.accelerators.empty()) {
        err << "tessera-cli plan: --kinds needs a comma-separated list, e.g. H100,B200\n";
        return 2;
      }
    } else if (arg == "--start-in" || arg == "--latest-start-in" || arg == "--budget") {
      auto v = value();
      auto n = v ? parseNumber(*v) : std::nullopt;
      if (!n || *n < 0 || (arg == "--budget" && *n <= 0)) {
        err << "tessera-cli plan: " << arg << (arg == "--budget" ? " needs a positive number of dollars\n"
                                                                 : " needs a non-negative number of hours\n");
        return 2;
      }
      if (arg == "--budget") request.budgetDollars = *n;
      else if (arg == "--start-in") startIn = static_cast<Hour>(*n);
      else latestIn = static_cast<Hour>(*n);
    } else {
      err << "tessera-cli plan: unknown option '" << arg << "'\n";
      printPlanUsage(err);
      return 2;
    }
  }
  if (workloadFile.empty()) {
    err << "tessera-cli plan: --workload is required\n";
    printPlanUsage(err);
    return 2;
  }
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
  const std::size_t malformed = readInputLines(in, accounts, {
      [&](const InputEvent& input) {
        events.clear();
        engine->apply(input, events);
      },
      [&](std::size_t line, const std::string& why) { err << "tessera-cli plan: line " << line << ": " << why << '\n'; }});
  if (malformed > 0) {
    err << "tessera-cli plan: " << malformed << " input line(s) could not be read; nothing planned\n";
    return 2;
  }
  return printPlan(*engine, request, startIn, latestIn, json, out, err);
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
    nlohmann::json j = {{"workload", request.workload.name}, {"gpus", request.workload.gpus()},
                        {"now", engine->now()}, {"earliest_start", request.earliestStart},
                        {"latest_start", request.latestStart}, {"placements", placements}, {"cannot_serve", unfit}};
    j["earliest_feasible_start"] = plan.earliestFeasible
                                       ? nlohmann::json{{"cluster", plan.earliestFeasible->cluster.name},
                                                        {"start", plan.earliestFeasible->start}}
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
