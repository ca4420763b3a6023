#pragma once
// The same simulated order flow cleared two ways: continuously by the matching engine, and in
// calls (core/auction's CallMarket, a call at every clock step). `tessera-backtest
// call-compare` prints the comparison (docs/backtest.md).
#include "backtest/SimulatedMarket.h"
#include "core/auction/CallAuction.h"

#include <cstdint>

namespace tessera::backtest {

struct ClearingFigures {
  Money welfare = 0;               // surplus at the orders' limits, micro-dollars
  std::int64_t gpuHours = 0;       // GPU-hours traded
  std::int64_t blockGpuHours = 0;  // of which all-or-none bids'
  double blockShare = 0.0;         // all-or-none bids' GPU-hours filled / submitted
  double volatility = 0.0;         // std dev of log changes of the average price between
                                   // consecutive delivery hours of a cluster
};

struct CallComparison {
  ClearingFigures continuous;
  ClearingFigures call;
  std::int64_t blockGpuHoursSubmitted = 0;
  int calls = 0;
  double solveSeconds = 0.0;  // all calls together
  double worstGap = 0.0;      // the largest proven gap of a call's first solve
  int callsNotOptimal = 0;
};

// Runs `hours` simulated hours of `config`'s market (after its opening step) through both.
CallComparison compareCallAndContinuous(const SimulatedMarketConfig& config, Hour hours,
                                        const auction::CallOptions& options);

}  // namespace tessera::backtest
