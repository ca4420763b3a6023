#include "core/cost/CostCommand.h"

#include "core/cost/CostReport.h"
#include "core/cost/EffectiveCostModel.h"
#include "core/cost/TopologyJson.h"
#include "core/cost/WorkloadJson.h"

#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

namespace {

using namespace tessera::cost;

void printCostUsage(std::ostream& os) {
  os << "usage: tessera-cli cost --workload W.json --cluster C.json [--price USD] "
        "[--cluster C2.json [--price USD]]...\n"
        "                       [--preemptions-per-day N] [--egress-per-gb USD]\n"
        "                       [--storage-per-tb-month USD] [--window-hours H] [--json | --table]\n\n"
        "  --cluster   a topology file (resources/topologies/) or a cluster in the engine's JSON\n"
        "  --price     $/GPU-hour of the cluster named just before (before any --cluster: all)\n"
        "  --json      JSON only; --table: the table only; default: the table, then the JSON\n"
        "Offers are ranked by effective cost, cheapest first. See docs/cost-model.md.\n";
}

std::optional<double> parseNumber(std::string_view s) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

struct ClusterArg {
  std::string file;
  std::optional<double> price;
};

}  // namespace

int runCostCommand(int argc, char** argv, std::ostream& out, std::ostream& err) {
  std::string workloadFile;
  std::vector<ClusterArg> clusters;
  std::optional<double> defaultPrice;
  Offer terms;
  bool json = true, table = true;

  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::optional<std::string_view> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string_view(argv[++i]);
    };
    auto numberValue = [&](double min) -> std::optional<double> {
      auto v = value();
      if (!v) return std::nullopt;
      auto n = parseNumber(*v);
      if (!n || *n < min) return std::nullopt;
      return n;
    };
    if (arg == "--help" || arg == "-h") {
      printCostUsage(out);
      return 0;
    } else if (arg == "--json") {
      table = false;
      json = true;
    } else if (arg == "--table") {
      json = false;
      table = true;
    } else if (arg == "--workload" || arg == "--cluster") {
      auto v = value();
      if (!v) {
        err << "tessera-cli cost: " << arg << " needs a file\n";
        return 2;
      }
      if (arg == "--workload") workloadFile = std::string(*v);
      else clusters.push_back({std::string(*v), std::nullopt});
    } else if (arg == "--price" || arg == "--preemptions-per-day" || arg == "--egress-per-gb" ||
               arg == "--storage-per-tb-month" || arg == "--window-hours") {
      auto n = numberValue(0);
      if (!n) {
        err << "tessera-cli cost: " << arg << " needs a non-negative number\n";
        return 2;
      }
      if (arg == "--price") {
        if (clusters.empty()) defaultPrice = *n;
        else clusters.back().price = *n;
      } else if (arg == "--preemptions-per-day") terms.preemptionsPerDay = *n;
      else if (arg == "--egress-per-gb") terms.egressPerGb = *n;
      else if (arg == "--storage-per-tb-month") terms.storagePerTbMonth = *n;
      else terms.windowHours = *n;
    } else {
      err << "tessera-cli cost: unknown option '" << arg << "'\n";
      printCostUsage(err);
      return 2;
    }
  }
  if (workloadFile.empty() || clusters.empty()) {
    err << "tessera-cli cost: --workload and at least one --cluster are required\n";
    printCostUsage(err);
    return 2;
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
      err << "tessera-cli cost: no --price for " << c.file << "\n";
      return 2;
    }
    Offer o = terms;
    o.pricePerGpuHour = *price;
    o.label = std::get<Topology>(topology).name;
    candidates.push_back({std::get<Topology>(topology), o, std::nullopt});
  }

  const std::vector<RankedOffer> ranked = rankByEffectiveCost(w, candidates);
  if (table) {
    out << "workload: " << (w.name.empty() ? workloadFile : w.name) << " (" << toString(w.kind)
        << ", " << w.gpus() << " GPUs), ranked by effective cost\n\n";
    std::vector<LabelledResult> rows;
    for (const RankedOffer& r : ranked) rows.push_back({candidates[r.candidate].offer.label, &r.result});
    printCostTable(out, rows);
  }
  if (json) {
    if (table) out << "\n";
    nlohmann::json all = nlohmann::json::array();
    for (const RankedOffer& r : ranked) {
      nlohmann::json entry = {{"cluster", candidates[r.candidate].offer.label},
                              {"source", clusters[r.candidate].file}};
      if (const auto* b = std::get_if<CostBreakdown>(&r.result)) entry["breakdown"] = toJson(*b);
      else entry["error"] = std::get<CostError>(r.result).message;
      all.push_back(entry);
    }
    out << nlohmann::json{{"workload", w.name}, {"kind", std::string(toString(w.kind))},
                          {"gpus", w.gpus()}, {"offers", all}}
               .dump(2)
        << "\n";
  }
  bool anyServed = false;
  for (const RankedOffer& r : ranked) anyServed |= std::holds_alternative<CostBreakdown>(r.result);
  return anyServed ? 0 : 1;
}

}  // namespace tessera
