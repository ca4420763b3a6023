#pragma once
// The options side of a replay (Replay.h): the exchange's market in options on the price index
// (core/options/OptionMarket) on a settlement ledger of its own, marked at every clock tick on
// the index the replay publishes from the history's trades; a dealer quoting the series around
// their reference values with the strikes and spreads of the demo market's OptionDealer
// (core/options/OptionQuotes.h); and the strategy's side of it: premiums paid and received,
// writer's margin, close-outs and settlement on the delivery period's average index.
//
// Money: the strategy's and the dealer's cash are deposited into the ledger at the start
// (External to Cash); every later move is a posting between their books, so what the strategy
// gains the dealer loses, to the micro-dollar.
#include "backtest/BacktestResult.h"
#include "backtest/Strategy.h"
#include "core/options/OptionMarket.h"
#include "core/options/OptionQuotes.h"

#include <map>
#include <set>

namespace tessera::backtest {

struct OptionDealerSettings {
  int months = 3, quarters = 1, years = 1;  // the first listed periods of each kind it quotes
  int strikes = 5;                          // the strikes of the chain's ladder nearest the forward
  indexoptions::DealerSpread spread;
  std::int64_t gpuHours = 1'000;             // size of each quote
  int requotePpm = 30'000;                   // re-quote when the next-day index moved more than 3%
  Money cash = 1'000'000'000LL * 1'000'000;  // $1bn: margin for what it writes
};

class OptionReplay {
 public:
  // `strategyCash`: what the strategy may spend on premiums and margin (its deposit).
  OptionReplay(AccountId strategy, AccountId dealer, Money strategyCash, OptionDealerSettings dealerSettings = {});

  // `free`: the strategy's cash free of everything but this market's holds.
  void submit(const indexoptions::OptionOrder& o, Hour now, Money free, std::vector<OptionUpdate>& out);
  void cancel(std::uint64_t id, std::vector<OptionUpdate>& out);
  // The clock reached `now`: marks, settles, then the dealer re-quotes what moved.
  void advance(Hour now, const std::map<Accelerator, indexoptions::ClassIndex>& index, std::vector<OptionUpdate>& out);
  // The dealer quotes only once a strategy trades or asks for a quote, so a replay without
  // options pays only for feeding the index; from then on it quotes every class that has one.
  void activate(std::vector<OptionUpdate>& out);

  OptionQuote quote(const indexoptions::OptionSeries& s) const;
  // Cash the strategy's option business moved so far (premiums and payoffs; margin is not spent).
  Money cashFlow() const { return cash_; }
  // What it cannot spend elsewhere: its resting option orders' holds and its writer margin.
  Money committed() const;
  Money margin() const { return ledger_.balance({strategy_, Book::Margin}); }
  Money openValue() const;
  OptionSummary summary() const;
  const SettlementLedger& ledger() const { return ledger_; }
  const indexoptions::OptionMarket& market() const { return market_; }

 private:
  void translate(const std::vector<indexoptions::OptionMarketEvent>& events, std::vector<OptionUpdate>& out);
  void requote(Accelerator a, Price nextDayIndex, std::vector<OptionUpdate>& out);

  AccountId strategy_, dealer_;
  OptionDealerSettings dealerSettings_;
  SettlementLedger ledger_;
  indexoptions::OptionMarket market_;
  std::uint64_t nextDealerId_ = 1;
  std::set<std::uint64_t> dealerWorking_;
  bool active_ = false;
  std::map<Accelerator, Price> lastIndex_;                  // the next-day index at the last advance
  std::map<Accelerator, std::pair<Price, Hour>> quotedAt_;  // index and first listed period at the quotes
  std::set<std::uint64_t> closedSeen_;                      // positions whose payoff is counted
  Money cash_ = 0;
  OptionSummary summary_;
};

}  // namespace tessera::backtest
