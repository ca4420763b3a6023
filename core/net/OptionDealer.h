#pragma once
// A simulated dealer in index options for the embedded exchange's demo market, the options
// counterpart of ForwardDealer. Over the public protocol, like any member, it asks for the chain
// of every class that has a next-day index and quotes a bid and an ask around the reference
// value of the nearest strikes of the first months, quarter and year, re-quoting when the index
// moves or the first month begins: a new user sees a live option chain at once. Not used by
// tessera-exchange itself.
#include "core/net/ExchangeClient.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::net {

struct OptionDealerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string account;
  std::string key;
  int months = 3, quarters = 1, years = 1;  // the first periods of each kind it quotes
  int strikes = 5;                          // the strikes nearest the forward
  int halfSpreadPpm = 80'000;               // 8% of the reference value each side
  Price minHalfSpread = 10'000;             // and at least a cent
  std::int64_t gpuHours = 1'000;            // size of each quote
  int requotePpm = 30'000;                  // re-quote when the index moved more than 3%
};

// The quotes for one chain: a bid and an ask per series quoted, premiums in whole cents.
std::vector<OptionNewOrder> optionDealerQuotes(const OptionDealerConfig& c, const OptionChainView& chain);

class OptionDealer {
 public:
  explicit OptionDealer(OptionDealerConfig config);
  ~OptionDealer();  // stops
  void start();
  void stop();

 private:
  void onIndex(const std::vector<IndexPoint>& points);
  void onChain(const OptionChainView& chain);

  OptionDealerConfig config_;
  std::unique_ptr<ExchangeClient> client_;
  std::mutex mutex_;
  // Index level and first listed period start at the standing quotes of each class.
  std::map<Accelerator, std::pair<Price, Hour>> quotedAt_;
  std::vector<OptionWorkingOrder> working_;
};

}  // namespace tessera::net
