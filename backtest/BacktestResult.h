#pragma once
// What one backtest run produced: the strategy's trades, its cash and P&L over time, and the
// summary figures analysts compare strategies on.
#include "core/engine/Events.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tessera::backtest {

// Sampled at every exchange clock tick.
struct SeriesPoint {
  Hour hour = 0;
  Money cash = 0;              // sales minus purchases so far
  Money equity = 0;            // cash + GPU-hours still to be delivered, marked at the last trade
  Money drawdown = 0;          // equity minus its running maximum (<= 0)
  Price marketVwap = 0;        // trades this hour on the strategy's clusters (0: none)
  Price averagePaid = 0;       // strategy's average buy price so far (0: nothing bought yet)
  Price marketVwapToDate = 0;  // market VWAP so far: on the clusters bought, weighted as the
                               // purchases (before any purchase: the clusters ordered on)
  // Exposure: GPU-hours held (bought minus sold, not yet delivered) and committed (still
  // working on the strategy's open buy orders).
  std::int64_t heldGpuHours = 0;
  std::int64_t committedGpuHours = 0;
  double fillRateToDate = 0;  // filled / ordered GPU-hours so far
};

// What the market looked like around one of the strategy's fills.
struct FillContext {
  std::int64_t timeMicros = 0;  // when the engine applied it
  std::string counterparty;     // "cp1", "cp2", ... numbered as first met in the run
  Price limit = 0;              // the order's limit (the strategy's target price)
  Price midAtOrder = 0;         // book mid at the order's first hour when it was placed (0: no book)
  Price index = 0;              // price index (accelerator, tenor) at the fill's hour (0: none yet)
  Money fee = 0;                // exchange fee on a sale (fee_ppm of the proceeds)
};

// The strategy's option business over a run (OptionReplay.h).
struct OptionSummary {
  std::int64_t orders = 0, rejected = 0, fills = 0;
  std::int64_t boughtGpuHours = 0, writtenGpuHours = 0;
  Money premiumPaid = 0, premiumReceived = 0;
  Money payoffReceived = 0, payoffPaid = 0;  // at close-out or settlement
  Money openValue = 0;                       // open positions at the reference value (written ones negative)
  Money marginHeld = 0;                      // the strategy's writer margin at the end
  Money pnl = 0;                             // premiumReceived - premiumPaid + payoffReceived - payoffPaid + openValue
};

struct BacktestSummary {
  std::int64_t ordersPlaced = 0;
  std::int64_t ordersRejected = 0;
  std::int64_t fills = 0;
  std::int64_t contracts = 0;
  std::int64_t orderedGpuHours = 0;  // buy and sell
  std::int64_t filledGpuHours = 0;
  double fillRate = 0;  // filled / ordered GPU-hours
  std::int64_t boughtGpuHours = 0;
  std::int64_t soldGpuHours = 0;
  Money spent = 0;     // buy notional
  Money received = 0;  // sell notional
  Money finalCash = 0;
  Money finalEquity = 0;  // P&L at the end
  Money maxDrawdown = 0;  // most negative drawdown
  Price averagePaid = 0;  // VWAP of the strategy's buys
  Price marketVwap = 0;   // market VWAP on the same clusters, weighted like its buys,
                          // of the other accounts' trades (its own excluded)
  // Buys against what the strategy aimed for and what the market offered, in money (positive:
  // paid more than the reference), over the buy fills where the reference existed.
  Money costVsLimit = 0;                    // spent minus limit x GPU-hours (<= 0 for buys)
  Money costVsIndex = 0;                    // spent minus the price index x GPU-hours at each fill
  std::int64_t indexedGpuHours = 0;         // buy GPU-hours with an index value
  Money slippageVsMid = 0;                  // buys: (price - mid at order) x GPU-hours; sells: (mid - price)
  std::int64_t midGpuHours = 0;             // GPU-hours of fills whose order saw a two-sided book
  Money fees = 0;                           // exchange fees paid on sales (fee_ppm)
  std::int64_t usefulGpuHours = 0;          // bought minus sold back minus reclaimed
  Price effectiveCostPerUsefulGpuHour = 0;  // (spent - received - reclaim refunds) / useful; 0 if none
  std::int64_t demandGpuHours = 0;
  std::int64_t unfilledDemandGpuHours = 0;
  std::int64_t lostGpuHours = 0;  // of bought contracts, taken by providers' outages
  // Of bought interruptible contracts, taken back by their providers with notice, and the
  // refund for them at each contract's price (in finalCash; spent stays what the fills cost).
  std::int64_t reclaimedGpuHours = 0;
  Money reclaimRefunds = 0;
  OptionSummary options;  // options on the price index; in finalCash and finalEquity too
};

struct BacktestResult {
  std::string strategy;
  std::string accountName;
  BacktestSummary summary;
  std::vector<Fill> fills;               // the strategy's side of each trade
  std::vector<FillContext> fillContext;  // one per fill, same order
  std::vector<Contract> contracts;       // contracts it bought or sold
  std::vector<SeriesPoint> series;
  std::map<ClusterId, std::string> clusterNames;  // of the history's clusters
  std::int64_t inputs = 0;                        // history inputs replayed
  std::int64_t strategyActions = 0;
  std::int64_t engineEvents = 0;
  std::uint64_t outputHash = 0;  // FNV-1a of every engine event, in order (0: not computed)
  bool cancelled = false;
  std::string setupError;          // Strategy::setupError(): the run stopped at the start
  std::vector<std::string> notes;  // Strategy::reportLines()
};

}  // namespace tessera::backtest
