#pragma once
// The exchange's option desk: the protocol side of the options on the price index
// (core/options/OptionMarket). It reads the option_* requests, assigns order ids, writes the
// replies and market data (the chain of reference values, books, trades, settlements) and gives
// ExchangeCore the journal line of every accepted input, so a restart rebuilds the books and
// positions by replaying them (docs/protocol.md, "Options").
#include "core/domain/AccountDirectory.h"
#include "core/net/ForwardDesk.h"
#include "core/net/ServerMessage.h"
#include "core/options/OptionMarket.h"

#include <nlohmann/json_fwd.hpp>

namespace tessera::net {

struct OptionNewOrder {
  std::string clOrdId;
  Side side = Side::Buy;
  indexoptions::OptionSeries series;
  std::int64_t gpuHours = 0;
  Price premium = 0;
};
struct OptionCancelOrder {
  std::uint64_t orderId = 0;
};
struct OptionOrdersQuery {};
struct OptionPositionsQuery {};
struct OptionBookQuery {
  indexoptions::OptionSeries series;
};
struct OptionChainQuery {
  Accelerator accelerator = Accelerator::H100;
};

struct OptionRequest {
  std::variant<OptionNewOrder, OptionCancelOrder, OptionOrdersQuery, OptionPositionsQuery, OptionBookQuery,
               OptionChainQuery>
      what;
};

bool isOptionType(const std::string& type);
// The series as the protocol writes it (accelerator, kind, period, start, strike), merged into `j`.
void putOptionSeries(nlohmann::json& j, const indexoptions::OptionSeries& s);
// Reads an option_* message; on failure {code, reason} with the protocol's codes.
std::variant<OptionRequest, std::pair<std::string, std::string>> parseOptionRequest(const nlohmann::json& j,
                                                                                    const std::string& type);
std::string_view optionRequestName(const OptionRequest& r);

// What the options are marked on at hour `now`: per class, the published next-day, next-week and
// next-month index values and the mids of the forward books (at the middles of their weeks).
std::map<Accelerator, indexoptions::ClassIndex> optionIndexInputs(
    const std::map<std::pair<Accelerator, Tenor>, IndexPublication>& indexNow, const ForwardMarket& forwards, Hour now);

// The option desk answers in the same shape as the forward desk: lines to accounts, market
// data to number, the journal line.
using OptionDeskOutput = ForwardDeskOutput;

class OptionDesk {
 public:
  OptionDesk(SettlementLedger& ledger, AccountDirectory& accounts);

  // `spendable`: the account's cash free of every hold but this desk's own.
  void handle(AccountId a, const OptionRequest& r, std::optional<std::uint64_t> req, Hour now, Money spendable,
              OptionDeskOutput& out);
  // A journal line written by handle(); throws std::runtime_error if it does not apply as it did.
  void replay(const nlohmann::json& entry, Hour now, Money spendable);
  void advance(Hour now, const std::map<Accelerator, indexoptions::ClassIndex>& index, OptionDeskOutput& out);

  Money held(AccountId a) const { return market_.held(a); }
  // Every book with resting orders, for md_snapshot.
  std::string booksJson() const;
  // The chain of one class: periods with their forwards, and per listed period a ladder of
  // strikes (and every strike with resting orders) with bid, ask, reference value, delta, IV.
  std::string chainJson(Accelerator a) const;
  const indexoptions::OptionMarket& market() const { return market_; }
  // The whole state as text, for the exchange's state digest.
  std::string stateDigestText() const;
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  void apply(const std::vector<indexoptions::OptionMarketEvent>& events, OptionDeskOutput* out);
  std::string bookJson(const indexoptions::OptionSeries& s) const;

  indexoptions::OptionMarket market_;
  AccountDirectory& accounts_;
  std::uint64_t nextId_ = 1;
  std::map<std::uint64_t, std::string> clOrdIds_;
};

}  // namespace tessera::net
