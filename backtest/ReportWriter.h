#pragma once
// Writes one run's results: summary.json (figures + run settings), fills.csv, contracts.csv,
// series.csv and report.html. The HTML shows the charts as PNG files when a renderer made
// them (ui/backtest's BacktestReportCharts) and as inline SVG otherwise.
#include "backtest/BacktestResult.h"
#include "core/domain/AccountDirectory.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tessera::backtest {

struct RunInfo {
  std::string history;            // where the inputs came from
  std::string strategy;
  nlohmann::json params;
  std::int64_t latencyMicros = 0;
};

nlohmann::json summaryJson(const BacktestSummary& s);
nlohmann::json resultJson(const BacktestResult& r, const RunInfo& info);

// `pngCharts`: file names inside `dir` (equity, price, drawdown, in that order), or empty.
// Returns an error message, or nothing when every file was written.
std::optional<std::string> writeReport(const BacktestResult& r, const RunInfo& info, const AccountDirectory& accounts,
                                       const std::string& dir, const std::vector<std::string>& pngCharts = {});

}  // namespace tessera::backtest
