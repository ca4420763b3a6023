#pragma once
// A simulated dealer in index forwards for the embedded exchange's demo market. Over the public
// protocol, like any member, it quotes a bid and an ask around the next-day index of every class
// that has one, for the coming weeks, and re-quotes when the index moves: a new user sees a
// forward market to trade against at once. Not used by tessera-exchange itself.
#include "core/net/ExchangeClient.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::net {

struct ForwardDealerConfig {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;
  std::string account;
  std::string key;
  int weeks = 4;                   // the coming weeks it quotes
  int halfSpreadPpm = 15'000;      // 1.5% each side of the mid
  int carryPpmPerWeek = 5'000;     // later weeks quoted 0.5% a week higher (and wider)
  std::int64_t gpuHours = 20'000;  // size of each quote
  int requotePpm = 10'000;         // re-quote when the index moved more than 1%
};

// The quotes for one class: bid and ask per week, from the index level and the clock.
struct DealerQuote {
  Hour weekStart = 0;
  Price bid = 0;
  Price ask = 0;
};
std::vector<DealerQuote> dealerQuotes(const ForwardDealerConfig& c, Price index, Hour now);

class ForwardDealer {
 public:
  explicit ForwardDealer(ForwardDealerConfig config);
  ~ForwardDealer();  // stops
  void start();
  void stop();

 private:
  void onIndex(const std::vector<IndexPoint>& points);
  void requote(Accelerator a, Price index);

  ForwardDealerConfig config_;
  std::unique_ptr<ExchangeClient> client_;
  std::mutex mutex_;
  // Index level and first week of the standing quotes of each class.
  std::map<Accelerator, std::pair<Price, Hour>> quotedAt_;
  std::vector<ForwardWorkingOrder> working_;
};

}  // namespace tessera::net
