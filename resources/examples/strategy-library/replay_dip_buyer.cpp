// A program of your own on the installed libraries (Tessera::backtest): streams a history from
// its file and replays it with dip-buyer, compiled in, and prints the run's fills and event
// digest.
//   replay_dip_buyer HISTORY.db '{"cluster": "harbor-us-west-h100-b", "max_price": 2.6}'
#include "backtest/History.h"
#include "backtest/StrategyRegistry.h"

#include <cstdio>

int main(int argc, char** argv) {
  using namespace tessera::backtest;
  if (argc != 3) {
    std::fprintf(stderr, "usage: replay_dip_buyer HISTORY.db PARAMS_JSON\n");
    return 2;
  }
  auto history = HistoryStream::open(argv[1]);
  if (auto* e = std::get_if<tessera::store::StoreError>(&history)) {
    std::fprintf(stderr, "%s\n", e->message.c_str());
    return 1;
  }
  const auto params = nlohmann::json::parse(argv[2], nullptr, false);
  auto made = makeStrategy("dip-buyer", params.is_discarded() ? nlohmann::json::object() : params);
  if (auto* e = std::get_if<std::string>(&made)) {
    std::fprintf(stderr, "%s\n", e->c_str());
    return 2;
  }
  auto streamed = runBacktest(std::get<HistoryStream>(history), *std::get<std::unique_ptr<Strategy>>(made), {});
  if (auto* e = std::get_if<tessera::store::StoreError>(&streamed)) {
    std::fprintf(stderr, "%s\n", e->message.c_str());
    return 1;
  }
  const BacktestResult& r = std::get<BacktestResult>(streamed);
  std::printf("%lld fills, output hash %016llx\n", static_cast<long long>(r.summary.fills),
              static_cast<unsigned long long>(r.outputHash));
  return 0;
}
