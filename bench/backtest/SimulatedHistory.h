#pragma once
// The benchmarks' histories: `days` of the seeded simulated market written to `path` as inputs
// only (no market data), as `tessera-backtest generate --inputs-only` writes them but without
// running the engine. Returns the number of inputs, or the error.
#include "backtest/SimulatedMarket.h"
#include "core/store/HistoryRecorder.h"

#include <string>
#include <variant>

namespace tessera::bench {

inline std::variant<std::int64_t, std::string> writeSimulatedHistory(const std::string& path, int days, double activity,
                                                                     std::uint64_t seed) {
  auto opened = store::MarketHistoryStore::open(path, store::OpenMode::ReadWrite);
  if (auto* e = std::get_if<store::StoreError>(&opened)) return e->message;
  auto& s = *std::get<std::unique_ptr<store::MarketHistoryStore>>(opened);
  AccountDirectory accounts;
  backtest::SimulatedMarketConfig cfg;
  cfg.seed = seed;
  cfg.activity = activity;
  backtest::SimulatedMarket market(cfg, accounts);
  store::HistoryRecorder rec(s, accounts, 16384);
  for (int i = 0; i < 1 + days * 24; ++i)
    for (const auto& t : market.stepTimed()) rec.recordInput(t.timeMicros, t.event);
  if (auto e = rec.flush()) return e->message;
  return rec.recordedInputs();
}

}  // namespace tessera::bench
