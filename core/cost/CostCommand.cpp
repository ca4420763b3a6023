#include "core/cost/CostCommand.h"

#include "core/cost/CostReport.h"
#include "core/cost/EffectiveCostModel.h"
#include "core/cost/TopologyJson.h"
#include "core/cost/WorkloadJson.h"
#include "core/cli/Checks.h"
#include "core/cli/Parse.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tessera {

namespace {

using namespace tessera::cost;

struct ClusterArg {
  std::string file;
  std::optional<double> price;
};

}  // namespace

int runCostCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  std::string workloadFile;
  std::vector<std::string> clusterFiles;
  std::vector<double> prices;
  Offer terms;
  bool jsonOnly = false, tableOnly = false;
  CLI::App app(
      "The effective cost of a workload on each cluster given, ranked cheapest first\n"
      "(docs/cost-model.md).",
      "tessera-cli cost");
  app.footer("Example: tessera-cli cost --workload W.json --cluster A.json --price 2.10 --cluster B.json --price 1.80");
  app.add_option("--workload", workloadFile, "the workload (resources/workloads/, docs/cost-model.md)")
      ->required()
      ->check(CLI::ExistingFile);
  auto* clusterOpt = app.add_option("--cluster", clusterFiles,
                                    "a topology file (resources/topologies/) or a cluster in the engine's JSON; "
                                    "repeat for more")
                         ->required()
                         ->check(CLI::ExistingFile);
  auto* priceOpt =
      app.add_option("--price", prices, "$/GPU-hour of the cluster named just before (before any --cluster: of all)")
          ->check(cli::NonNegative);
  app.add_option("--preemptions-per-day", terms.preemptionsPerDay, "expected preemptions a day (default 0)")
      ->check(cli::NonNegative);
  app.add_option("--egress-per-gb", terms.egressPerGb, "egress, dollars per GB (default 0)")->check(cli::NonNegative);
  app.add_option("--storage-per-tb-month", terms.storagePerTbMonth, "storage, dollars per TB-month (default 0)")
      ->check(cli::NonNegative);
  app.add_option("--window-hours", terms.windowHours, "hours the offer is available for")->check(cli::NonNegative);
  auto* jsonOpt = app.add_flag("--json", jsonOnly, "JSON only (default: the table, then the JSON)");
  app.add_flag("--table", tableOnly, "the table only")->excludes(jsonOpt);
  if (auto code = cli::parseOrExit(app, argc, argv, out, err)) return *code;
  const bool json = !tableOnly, table = !jsonOnly;

  // Which --price goes with which --cluster: the order they were given in.
  std::vector<ClusterArg> clusters;
  std::optional<double> defaultPrice;
  std::size_t nextCluster = 0, nextPrice = 0;
  for (const CLI::Option* o : app.parse_order()) {
    if (o == clusterOpt) clusters.push_back({clusterFiles[nextCluster++], std::nullopt});
    if (o == priceOpt) (clusters.empty() ? defaultPrice : clusters.back().price) = prices[nextPrice++];
  }

  auto workload = loadWorkloadFile(workloadFile);
  if (auto* e = std::get_if<LoadError>(&workload)) {
    err << "tessera-cli cost: " << e->message << "\n";
    return 1;
  }
  const WorkloadProfile& w = std::get<WorkloadProfile>(workload);

  std::vector<CandidateOffer> candidates;
  for (const ClusterArg& c : clusters) {
    auto topology = loadTopologyFile(c.file);
    if (auto* e = std::get_if<LoadError>(&topology)) {
      err << "tessera-cli cost: " << e->message << "\n";
      return 1;
    }
    const auto price = c.price ? c.price : defaultPrice;
    if (!price) {
      err << "tessera-cli cost: no --price for " << c.file << "\nRun 'tessera-cli cost --help' for the options.\n";
      return 2;
    }
    Offer o = terms;
    o.pricePerGpuHour = *price;
    o.label = std::get<Topology>(topology).name;
    candidates.push_back({std::get<Topology>(topology), o, std::nullopt});
  }

  const std::vector<RankedOffer> ranked = rankByEffectiveCost(w, candidates);
  if (table) {
    out << "workload: " << (w.name.empty() ? workloadFile : w.name) << " (" << toString(w.kind) << ", " << w.gpus()
        << " GPUs), ranked by effective cost\n\n";
    std::vector<LabelledResult> rows;
    for (const RankedOffer& r : ranked) rows.push_back({candidates[r.candidate].offer.label, &r.result});
    printCostTable(out, rows);
  }
  if (json) {
    if (table) out << "\n";
    nlohmann::json all = nlohmann::json::array();
    for (const RankedOffer& r : ranked) {
      nlohmann::json entry = {{"cluster", candidates[r.candidate].offer.label}, {"source", clusters[r.candidate].file}};
      if (const auto* b = std::get_if<CostBreakdown>(&r.result))
        entry["breakdown"] = toJson(*b);
      else
        entry["error"] = std::get<CostError>(r.result).message;
      all.push_back(entry);
    }
    out << nlohmann::json{{"workload", w.name},
                          {"kind", std::string(toString(w.kind))},
                          {"gpus", w.gpus()},
                          {"offers", all}}
               .dump(2)
        << "\n";
  }
  bool anyServed = false;
  for (const RankedOffer& r : ranked) anyServed |= std::holds_alternative<CostBreakdown>(r.result);
  return anyServed ? 0 : 1;
}

}  // namespace tessera
