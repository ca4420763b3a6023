#pragma once
// The exchange's forward desk: the protocol side of the cash-settled index forwards
// (core/settlement/ForwardMarket). It reads the forward_* requests, assigns order ids, writes the
// replies and market data, and gives ExchangeCore the journal line of every accepted input, so a
// restart rebuilds the forward books and positions by replaying them (docs/protocol.md,
// "Forwards").
#include "core/domain/AccountDirectory.h"
#include "core/settlement/ForwardMarket.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera::net {

struct ForwardNewOrder {
  std::string clOrdId;
  Side side = Side::Buy;
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
  std::int64_t gpuHours = 0;
  Price price = 0;
};
struct ForwardCancelOrder {
  std::uint64_t orderId = 0;
};
struct ForwardOrdersQuery {};
struct ForwardPositionsQuery {};
struct ForwardBookQuery {
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;
};

struct ForwardRequest {
  std::variant<ForwardNewOrder, ForwardCancelOrder, ForwardOrdersQuery, ForwardPositionsQuery, ForwardBookQuery> what;
};

// Reads a forward_* message (`type` is its "type"); on failure returns {code, reason} with the
// protocol's codes (unknown_field, bad_field, unknown_type).
std::variant<ForwardRequest, std::pair<std::string, std::string>> parseForwardRequest(const nlohmann::json& j,
                                                                                      const std::string& type);
bool isForwardType(const std::string& type);

struct ForwardDeskOutput {
  std::vector<std::pair<AccountId, std::string>> toAccount;  // complete lines
  std::vector<std::string> marketData;                       // JSON objects without "seq": the caller numbers them
  std::optional<std::string> journal;                        // the input to journal before anything is sent
  void clear();
};

class ForwardDesk {
 public:
  ForwardDesk(SettlementLedger& ledger, AccountDirectory& accounts);

  // `spendable`: the account's cash free of the exchange's bid reservations.
  void handle(AccountId a, const ForwardRequest& r, std::optional<std::uint64_t> req, Hour now, Money spendable,
              ForwardDeskOutput& out);
  // A journal line written by handle(); throws std::runtime_error if it does not apply as it did.
  void replay(const nlohmann::json& entry, Hour now, Money spendable);
  void advance(Hour now, const std::map<Accelerator, Price>& nextDay, ForwardDeskOutput& out);

  Money marginHeld(AccountId a) const { return market_.marginHeld(a); }
  // The books with resting orders, for md_snapshot: [{accelerator, week_start, bids, asks}].
  std::string booksJson() const;
  const ForwardMarket& market() const { return market_; }
  // The snapshot form (core/engine/SnapshotCodec.h); load() into a fresh one.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  void apply(const std::vector<ForwardMarketEvent>& events, ForwardDeskOutput* out);
  std::string bookJson(Accelerator a, Hour weekStart) const;

  ForwardMarket market_;
  AccountDirectory& accounts_;
  std::uint64_t nextId_ = 1;
  std::map<std::uint64_t, std::string> clOrdIds_;  // working orders' client ids
};

}  // namespace tessera::net
