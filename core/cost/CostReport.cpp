#include "core/cost/CostReport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iomanip>
#include <sstream>

namespace tessera::cost {

nlohmann::json toJson(const CostBreakdown& b) {
  nlohmann::json j = {
      {"effective_cost", b.terms.total()},
      {"terms",
       {{"instance_cost", b.terms.instance},
        {"storage_and_egress", b.terms.storageAndEgress},
        {"orchestration_overhead", b.terms.orchestration},
        {"failed_work", b.terms.failedWork},
        {"migration_or_restart_cost", b.terms.migrationOrRestart}}},
      {"gpus", b.gpus},
      {"price_per_gpu_hour", b.pricePerGpuHour},
      {"rate_times_compute_hours", b.rateTimesComputeHours},
      {"effective_price_per_gpu_hour", b.effectivePricePerGpuHour},
      {"wall_clock_hours", b.wallClockHours},
      {"wall_clock_days", b.wallClockHours / 24.0},
      {"productive_hours", b.productiveHours},
      {"step_seconds", b.stepSeconds},
      {"compute_seconds_per_step", b.computeSecondsPerStep},
      {"all_reduce_seconds_per_step", b.allReduceSecondsPerStep},
      {"exposed_sync_seconds_per_step", b.exposedSyncSecondsPerStep},
      {"comm_fraction", b.commFraction},
      {"expected_interruptions", b.expectedInterruptions},
      {"useful_units", b.usefulUnits},
      {"unit", b.unit},
      {"cost_per_unit", b.costPerUnit},
      {"fits_window", b.fitsWindow},
      {"placement",
       {{"gpus", b.span.gpus},
        {"nodes", b.span.nodes},
        {"nvlink_domains", b.span.nvlinkDomains},
        {"leaves", b.span.leaves},
        {"sites", b.span.sites},
        {"fabric_hops", b.span.fabricHops},
        {"sync_gbytes_per_s_per_gpu", b.sync.gbytesPerSecPerGpu},
        {"bottleneck", std::string(toString(b.sync.bottleneck))}}},
      {"notes", b.notes},
  };
  j["mfu"] = b.mfu ? nlohmann::json(*b.mfu) : nlohmann::json(nullptr);
  return j;
}

std::string money(double v) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  if (v >= 1e6)
    os << std::setprecision(3) << "$" << v / 1e6 << "M";
  else if (v >= 1e4)
    os << std::setprecision(1) << "$" << v / 1e3 << "k";
  else
    os << std::setprecision(2) << "$" << v;
  return os.str();
}

namespace {

std::string number(double v, int decimals) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os << std::setprecision(decimals) << v;
  return os.str();
}

}  // namespace

void printCostTable(std::ostream& out, const std::vector<LabelledResult>& results) {
  std::vector<std::string> rowNames = {"price $/GPU-h",
                                       "GPUs",
                                       "instance_cost",
                                       "storage_and_egress",
                                       "orchestration_overhead",
                                       "failed_work",
                                       "migration_or_restart",
                                       "EFFECTIVE COST",
                                       "rate x compute hours",
                                       "effective $/GPU-h",
                                       "wall clock (days)",
                                       "step (s)",
                                       "exposed sync (s/step)",
                                       "comm fraction",
                                       "MFU",
                                       "interruptions",
                                       "nodes / leaves / sites",
                                       "sync bottleneck",
                                       "cost per unit"};
  std::vector<std::vector<std::string>> columns;
  std::vector<std::string> headers;
  std::vector<std::string> errors;
  for (const LabelledResult& r : results) {
    if (const auto* err = std::get_if<CostError>(r.result)) {
      errors.push_back(r.label + ": cannot serve the workload: " + err->message);
      continue;
    }
    const auto& b = std::get<CostBreakdown>(*r.result);
    headers.push_back(r.label);
    columns.push_back({
        number(b.pricePerGpuHour, 2),
        std::to_string(b.gpus),
        money(b.terms.instance),
        money(b.terms.storageAndEgress),
        money(b.terms.orchestration),
        money(b.terms.failedWork),
        money(b.terms.migrationOrRestart),
        money(b.terms.total()),
        money(b.rateTimesComputeHours),
        number(b.effectivePricePerGpuHour, 2),
        number(b.wallClockHours / 24.0, 1) + (b.fitsWindow ? "" : " > window"),
        b.stepSeconds > 0 ? number(b.stepSeconds, 3) : "-",
        b.stepSeconds > 0 ? number(b.exposedSyncSecondsPerStep, 3) : "-",
        number(b.commFraction, 4),
        b.mfu ? number(100 * *b.mfu, 1) + "%" : "-",
        number(b.expectedInterruptions, 2),
        std::to_string(b.span.nodes) + " / " + std::to_string(b.span.leaves) + " / " + std::to_string(b.span.sites),
        std::string(toString(b.sync.bottleneck)) + " " + number(b.sync.gbytesPerSecPerGpu, 1) + " GB/s",
        money(b.costPerUnit) + " / " + b.unit,
    });
  }
  std::size_t nameWidth = 0;
  for (const auto& n : rowNames) nameWidth = std::max(nameWidth, n.size());
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    std::size_t wdt = headers[c].size();
    for (const auto& cell : columns[c]) wdt = std::max(wdt, cell.size());
    widths.push_back(wdt);
  }
  if (!columns.empty()) {
    out << std::left << std::setw(static_cast<int>(nameWidth)) << ""
        << "  ";
    for (std::size_t c = 0; c < columns.size(); ++c)
      out << std::right << std::setw(static_cast<int>(widths[c])) << headers[c] << "  ";
    out << "\n";
    for (std::size_t row = 0; row < rowNames.size(); ++row) {
      out << std::left << std::setw(static_cast<int>(nameWidth)) << rowNames[row] << "  ";
      for (std::size_t c = 0; c < columns.size(); ++c)
        out << std::right << std::setw(static_cast<int>(widths[c])) << columns[c][row] << "  ";
      out << "\n";
    }
  }
  for (const LabelledResult& r : results) {
    if (const auto* b = std::get_if<CostBreakdown>(r.result))
      for (const auto& note : b->notes) out << "note (" << r.label << "): " << note << "\n";
  }
  for (const auto& e : errors) out << e << "\n";
}

}  // namespace tessera::cost
