#pragma once
// The exchange's settlement and forwards, on the matching thread: contracts open with their
// escrow as the engine makes them, settle hour by hour as the clock moves, take delivery
// reports and outages from their providers (the outage rule spreads a loss over everything the
// provider has on the cluster), get replacement capacity where their terms promise it, and the
// cash-settled index forwards are handled and marked against the next-day index. The money is
// all on the one SettlementLedger; the desk tells the accounts concerned (settlement lines, and
// their balance is marked to be sent).
//
// Delivery reports, outages and forward orders are journal entries of their own, replayed by
// the handlers registerJournalEntries() installs; remedies are engine inputs of their own
// (CapacityTransfer), so a replay never applies a remedy twice.
#include "core/domain/AccountDirectory.h"
#include "core/engine/Matcher.h"
#include "core/net/ClientMessage.h"
#include "core/net/ExchangeAccounts.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/ForwardDesk.h"
#include "core/net/OptionDesk.h"
#include "core/net/SettledContractArchive.h"
#include "core/net/JournalReplay.h"
#include "core/net/MarketDataFeed.h"
#include "core/net/Outbox.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/SettlementLedger.h"

#include <nlohmann/json_fwd.hpp>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera {
class SnapshotWriter;
class SnapshotReader;
}  // namespace tessera

namespace tessera::net {

class SettlementDesk {
 public:
  // Applies a replacement (an engine input of its own, journaled); true if the engine took it.
  using ApplyTransfer = std::function<bool(const CapacityTransfer&, Outbox*)>;
  // One outage report covers at most a month; a longer one is several reports.
  static constexpr Hour kMaxOutageHours = 31 * kHoursPerDay;

  SettlementDesk(const Matcher& engine, AccountDirectory& directory, SettlementLedger& ledger,
                 ContractSettlement& settlement, ForwardDesk& forwards, ExchangeAccounts& accounts,
                 MarketDataFeed& marketData, JournalReplay& journal, ApplyTransfer applyTransfer);

  // The replay handlers of the entries the desk writes.
  void registerJournalEntries();

  // A contract the engine made: its escrow is taken (a replacement takes over the escrow of the
  // contract it replaces).
  void contractCreated(const Contract& k, Outbox* out);
  // Who took liquidity in a contract's trade: the incoming order's side, or nobody (a call's
  // trade: every order waited for the call and trades at the hour's clearing price).
  enum class Taker : std::uint8_t { Seller = 0, Buyer = 1, Nobody = 2 };
  // A buy-side fill: whether the buyer took liquidity, or (`inCall`) nobody did (the positions
  // reply says it).
  void recordTaker(const Fill& buySide, bool inCall);
  // Whether `viewer` took liquidity in contract k's trade.
  bool tookLiquidity(const Contract& k, AccountId viewer) const;
  // Whether contract k was made by a call (CallDesk), where nobody takes liquidity.
  bool madeByCall(const Contract& k) const;
  // The clock reached `now`: hours before it settle.
  void settleTo(Hour now, Outbox* out);
  // Forwards are marked (and weeks settled) against `nextDay` (the next-day index just published).
  void markForwards(Hour now, const std::map<Accelerator, Price>& nextDay, Outbox* out);

  // Options on the index (OptionDesk, set by useOptions); their output is sent like the forwards'.
  void useOptions(OptionDesk& options) { options_ = &options; }
  // Settled contracts retired from memory (a delivery report naming one is refused as settled).
  void useSettledContracts(SettledContractArchive& settled) { settled_ = &settled; }
  void optionRequest(const ExchangeAccount& a, const OptionRequest& r, std::optional<std::uint64_t> req, Outbox& out);
  void forwardRequest(const ExchangeAccount& a, const ForwardRequest& f, std::optional<std::uint64_t> req, Outbox& out);
  // A delivery report or an outage from `provider`: the error code for the reporter, or nothing.
  // On success the entry is journaled (live) and the contracts' remedies are applied.
  std::optional<std::string> deliveryReport(AccountId provider, const DeliveryReport& r, Outbox* out);
  std::optional<std::string> outage(AccountId provider, const OutageRequest& m, Outbox* out,
                                    std::vector<ContractId>* affected);
  // A reclaim of interruptible capacity by `provider` (core/net/Reclaims.cpp): the refund paid
  // to the buyer, or the error code for the provider. On success the entry is journaled (live).
  // One reclaim covers at most kMaxOutageHours hours, so its work is bounded like an outage's.
  [[nodiscard]] std::variant<Money, std::string> reclaim(AccountId provider, const ReclaimRequest& m, Outbox* out);
  // The outage rule's last part: `provider`'s working asks on `cluster` for any hour of
  // [start, end) not yet over, which the caller cancels after an accepted outage (engine inputs
  // of their own in the journal, so a replay cancels them once).
  std::vector<OrderId> asksDuring(AccountId provider, ClusterId cluster, Hour start, Hour end) const;
  // Outages a feeder reported since the last call (ones the market cannot apply are dropped:
  // a feeder has no one to tell). Returns those applied, with their provider.
  std::vector<std::pair<AccountId, OutageRequest>> feederOutages(FeederReports& reports, Outbox& out);
  // Reclaims a feeder reported since the last call, spread over each provider's contracts on the
  // cluster (core/settlement/ReclaimRule; hours inside the notice are not taken) and applied
  // part by part as reclaim() does; `accepted` takes each accepted part's hours out of the
  // buyer's holding before the next part is checked. Parts the market refuses are dropped.
  void feederReclaims(FeederReports& reports, Outbox& out,
                      const std::function<void(AccountId, const ReclaimRequest&)>& accepted);

  const std::vector<Taker>& takers() const { return takers_; }

  // The snapshot form: who took liquidity, the ledger, the contracts, the forwards.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  // Replacement remedy for contract `k` after a report on [start, end): a CapacityTransfer from
  // the provider's unoffered capacity on an equal-or-better cluster, or the credit if none.
  void applyRemedy(const Contract& k, Hour start, Hour end, std::optional<ClusterId> excluded, Outbox* out);
  void notify(const SettlementEvent& e, Outbox* out);
  void registerReclaimEntry();
  void fundFromOutside(AccountId a, Money amount, const char* memo);
  void sendForward(const ForwardDeskOutput& d, Outbox* out);
  void appendEntry(const nlohmann::json& entry);

  const Matcher& engine_;
  AccountDirectory& directory_;
  SettlementLedger& ledger_;
  ContractSettlement& settlement_;
  ForwardDesk& forwards_;
  OptionDesk* options_ = nullptr;
  SettledContractArchive* settled_ = nullptr;
  Money optionsHeld(AccountId id) const { return options_ ? options_->held(id) : 0; }
  ExchangeAccounts& accounts_;
  MarketDataFeed& marketData_;
  JournalReplay& journal_;
  ApplyTransfer applyTransfer_;
  // Who took liquidity in contract id's trade (index id - 1; contract ids are dense from 1).
  std::vector<Taker> takers_;
};

}  // namespace tessera::net
