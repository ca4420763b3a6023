#pragma once
// Delivery and settlement of contracts. At fill the buyer pays the whole committed block into
// escrow; as the exchange clock passes each hour, escrow pays the provider for what was
// delivered and (depending on the billing basis) refunds the buyer for what was not; when a
// contract ends below its uptime promise the provider pays the stated credit. Every movement is a
// posting in the SettlementLedger, so money is conserved.
#include "core/engine/Events.h"
#include "core/domain/OfferTerms.h"
#include "core/settlement/SettlementLedger.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

namespace tessera {

class SnapshotWriter;
class SnapshotReader;

enum class ContractState : std::uint8_t {
  PendingStart,
  Delivering,
  Completed,        // every GPU-hour delivered (final)
  PartlyDelivered,  // some delivered, some not (final until settled)
  Failed,           // nothing delivered
  Settled,          // all money moved, credits included
};
std::string_view toString(ContractState s);

enum class DeliveryProblem : std::uint8_t { MissingGpus, LinkDegraded, PowerCurtailed };
std::string_view toString(DeliveryProblem p);
std::optional<DeliveryProblem> parseDeliveryProblem(std::string_view s);
// Money for a person: "$1,234.56", "-$0.50" (rounded to the cent).
std::string toDollars(Money m);

// What a provider (or the simulated market) reports: for hours [start, end) only `usableGpus`
// of the contract's GPUs work, or the link/power was degraded.
struct DeliveryReport {
  ContractId contract = 0;
  Hour start = 0;
  Hour end = 0;
  GpuCount usableGpus = 0;
  DeliveryProblem problem = DeliveryProblem::MissingGpus;
};

struct SettlementEvent {
  ContractId contract = 0;
  ContractState state = ContractState::PendingStart;
  std::string what;  // for the blotter: "paid provider 8 GPU-hours", "credit 2.40 for ..."
};

enum class SettlementError : std::uint8_t {
  UnknownContract,
  AlreadyOpen,
  InsufficientFunds,
  HoursAlreadySettled,
  InvalidReport
};
std::string_view toString(SettlementError e);

class ContractSettlement {
 public:
  explicit ContractSettlement(SettlementLedger& ledger) : ledger_(ledger) {}

  // The buyer pays the contract's notional into its escrow from `fundedFrom` (Cash, or Reserved
  // when a resting bid had reserved it).
  std::optional<SettlementError> open(const Contract& k, const OfferTerms& terms, Book fundedFrom, Hour now);
  // A replacement contract (Contract::replaces set, from a CapacityTransfer) takes over its
  // GPU-hours of the contract it replaces: the escrow for them moves to the replacement, and on
  // the original they are neither paid, refunded nor credited. The replacement's price must be
  // the original's (so the escrow moved pays for it exactly).
  std::optional<SettlementError> openReplacement(const Contract& replacement, Hour now,
                                                 std::vector<SettlementEvent>& out);
  std::optional<SettlementError> report(const DeliveryReport& r);
  // GPUs of the contract reported missing in hour `h` and not replaced.
  GpuCount unreplacedShortfall(ContractId id, Hour h) const;
  // The same for every hour of an open contract, as runs of hours with the same number of GPUs
  // missing and not replaced (none: empty): what its buyer does not have (positions' "lost").
  struct LostRun {
    Hour start = 0;
    Hour end = 0;
    GpuCount gpus = 0;
    bool operator==(const LostRun&) const = default;
  };
  std::vector<LostRun> unreplacedShortfallRuns(ContractId id) const;
  // Interruptible capacity: the provider takes back `gpus` of the contract's GPUs for hours
  // [start, end). The buyer is refunded those GPU-hours at the contract's price from its escrow
  // at once; the hours are then neither paid, refunded again, nor counted against the uptime
  // promise. Refused (InvalidReport) outside the contract's window or for more GPUs than it still
  // has in some hour (after replacements and earlier reclaims), HoursAlreadySettled for hours
  // already paid out. Returns the refund. Who may reclaim, and with what notice, is the
  // exchange's rule (SettlementDesk::reclaim).
  std::variant<Money, SettlementError> reclaim(ContractId id, Hour start, Hour end, GpuCount gpus);
  // What reclaim() would refuse, without changing anything.
  [[nodiscard]] std::optional<SettlementError> checkReclaim(ContractId id, Hour start, Hour end, GpuCount gpus) const;
  // The GPUs reclaimed from a contract, as runs of hours (positions' "reclaimed").
  std::vector<LostRun> reclaimedRuns(ContractId id) const;
  std::int64_t reclaimedGpuHours(ContractId id) const;
  // The clock reached `now`: hour `now` is being delivered and every hour before it is over and
  // gets settled. Returns what happened, in contract order.
  std::vector<SettlementEvent> advance(Hour now);

  // An exchange fee of `ppm` of every provider payment, paid into `house`'s Fees book.
  void chargeFees(int ppm, AccountId house) {
    feePpm_ = ppm;
    feeAccount_ = house;
  }
  // Cash of an account that is spoken for (bid reservations held on Cash): an uptime credit is
  // paid only from the rest.
  void setHeldCash(std::function<Money(AccountId)> held) { heldCash_ = std::move(held); }

  // Settled contracts handed to `retire` (with their delivered GPU-hours) as they settle, and not
  // remembered here: state() and deliveredGpuHours() know only the open ones then, and the
  // owner answers for the settled ones (the exchange's archive of settled contracts).
  void retireSettled(std::function<void(ContractId, std::int64_t delivered)> retire) { retire_ = std::move(retire); }

  std::optional<ContractState> state(ContractId id) const;
  // The contract and its terms while it is open (nullptr once settled).
  const Contract* contract(ContractId id) const;
  const OfferTerms* terms(ContractId id) const;
  Money creditsReceived(AccountId a) const;
  std::vector<ContractId> openContracts() const;  // not yet settled, in id order
  // The snapshot form (core/engine/SnapshotCodec.h), without the fee and held-cash settings
  // (the owner's configuration); load() into a fresh one.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);
  // The open contracts `seller` sold on `cluster`, in id order: what an outage report reads,
  // without walking every open contract of the market.
  const std::set<ContractId>& openContractsOf(AccountId seller, ClusterId cluster) const;
  std::int64_t deliveredGpuHours(ContractId id) const;
  Money escrow(ContractId id) const;

 private:
  struct Open {
    Contract contract;
    OfferTerms terms;
    ContractState state = ContractState::PendingStart;
    Hour settledUntil = 0;               // hours before this are paid out
    std::map<Hour, GpuCount> shortfall;  // GPUs not delivered, per hour
    std::map<Hour, bool> degraded;       // link or power problems, per hour
    std::map<Hour, GpuCount> replaced;   // GPUs a replacement contract took over, per hour
    std::map<Hour, GpuCount> reclaimed;  // GPUs the provider took back (interruptible), per hour
    std::int64_t delivered = 0;
    std::int64_t undelivered = 0;
    std::int64_t replacedGpuHours = 0;
    std::int64_t reclaimedGpuHours = 0;
    Money escrow = 0;
  };
  void settleHours(Open& o, Hour until, std::vector<SettlementEvent>& out);
  void finish(Open& o, std::vector<SettlementEvent>& out);

  SettlementLedger& ledger_;
  // Contracts not yet settled. A settled contract leaves this map (so memory and the hourly
  // walk grow with the open contracts, not with every contract ever made) and keeps only its
  // delivered GPU-hours, by id: settledDelivered_[id] (-1: not settled here), unless
  // retireSettled() hands settled contracts to the owner (then nothing is kept).
  std::map<ContractId, Open> contracts_;
  // contracts_' ids by (seller, cluster); a key leaves when its last contract is settled.
  // Invariant: holds exactly the ids of contracts_ (test_contract_settlement's
  // openContractsOfListsTheOpenContractsBySellerAndCluster).
  std::map<std::pair<AccountId, ClusterId>, std::set<ContractId>> bySellerCluster_;
  void opened(const Contract& k) { bySellerCluster_[{k.seller, k.cluster}].insert(k.id); }
  std::vector<std::int64_t> settledDelivered_;
  bool settled(ContractId id) const { return id < settledDelivered_.size() && settledDelivered_[id] >= 0; }
  std::map<AccountId, Money> credits_;
  int feePpm_ = 0;
  AccountId feeAccount_ = 0;
  std::function<Money(AccountId)> heldCash_;
  std::function<void(ContractId, std::int64_t)> retire_;
};

}  // namespace tessera
