#pragma once
// Writes one run's results: summary.json (figures + run settings), fills.csv, contracts.csv,
// series.csv, the charts as SVG files (equity.svg, price.svg, drawdown.svg: the one drawing of
// the report's charts) and report.html, which shows them.
#include "backtest/BacktestResult.h"
#include "backtest/Latency.h"
#include "core/domain/AccountDirectory.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace tessera::backtest {

struct RunInfo {
  std::string history;  // where the inputs came from
  std::string strategy;
  nlohmann::json params;
  LatencyModel latency;
  int feePpm = 0;
};

nlohmann::json summaryJson(const BacktestSummary& s);
// What reports and sweep shard headers record of a latency model (each channel's describe()).
nlohmann::json latencyJson(const LatencyModel& m);
nlohmann::json resultJson(const BacktestResult& r, const RunInfo& info);

// Returns an error message, or nothing when every file was written.
std::optional<std::string> writeReport(const BacktestResult& r, const RunInfo& info, const AccountDirectory& accounts,
                                       const std::string& dir);

}  // namespace tessera::backtest
