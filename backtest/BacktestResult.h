#pragma once
// What one backtest run produced: the strategy's trades, its cash and P&L over time, and the
// summary figures analysts compare strategies on.
#include "core/engine/Events.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::backtest {

// Sampled at every exchange clock tick.
struct SeriesPoint {
  Hour hour = 0;
  Money cash = 0;               // sales minus purchases so far
  Money equity = 0;             // cash + GPU-hours still to be delivered, marked at the last trade
  Money drawdown = 0;           // equity minus its running maximum (<= 0)
  Price marketVwap = 0;         // trades this hour on the strategy's clusters (0: none)
  Price averagePaid = 0;        // strategy's average buy price so far (0: nothing bought yet)
  Price marketVwapToDate = 0;   // market VWAP so far: on the clusters bought, weighted as the
                                // purchases (before any purchase: the clusters ordered on)
};

struct BacktestSummary {
  std::int64_t ordersPlaced = 0;
  std::int64_t ordersRejected = 0;
  std::int64_t fills = 0;
  std::int64_t contracts = 0;
  std::int64_t orderedGpuHours = 0;    // buy and sell
  std::int64_t filledGpuHours = 0;
  double fillRate = 0;                 // filled / ordered GPU-hours
  std::int64_t boughtGpuHours = 0;
  std::int64_t soldGpuHours = 0;
  Money spent = 0;                     // buy notional
  Money received = 0;                  // sell notional
  Money finalCash = 0;
  Money finalEquity = 0;               // P&L at the end
  Money maxDrawdown = 0;               // most negative drawdown
  Price averagePaid = 0;               // VWAP of the strategy's buys
  Price marketVwap = 0;                // market VWAP on the same clusters, weighted like its buys
  std::int64_t usefulGpuHours = 0;     // bought minus sold back
  Price effectiveCostPerUsefulGpuHour = 0;  // (spent - received) / useful; 0 if none
  std::int64_t demandGpuHours = 0;
  std::int64_t unfilledDemandGpuHours = 0;
};

struct BacktestResult {
  std::string strategy;
  std::string accountName;
  BacktestSummary summary;
  std::vector<Fill> fills;             // the strategy's side of each trade
  std::vector<Contract> contracts;     // contracts it bought or sold
  std::vector<SeriesPoint> series;
  std::int64_t inputs = 0;             // history inputs replayed
  std::int64_t strategyActions = 0;
  std::int64_t engineEvents = 0;
  std::uint64_t outputHash = 0;        // FNV-1a of every engine event, in order (0: not computed)
  bool cancelled = false;
  std::string setupError;              // Strategy::setupError(): the run stopped at the start
  std::vector<std::string> notes;      // Strategy::reportLines()
};

}  // namespace tessera::backtest
