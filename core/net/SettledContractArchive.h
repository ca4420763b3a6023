#pragma once
// Settled contracts retire from the exchange's memory to the journal's archive table
// (Journal::archiveContract), written in the same transaction as the clock entry that settled
// them; positions, the state digest and delivery reports naming one answer from there. With
// retirement on (ExchangeConfig::retireSettledContracts) the engine forgets them
// (Matcher::forgetContract) and settlement keeps nothing of them, so memory follows the open
// contracts, not every contract ever made; with it off nothing is archived and memory keeps
// every contract. The readers merge the engine's contracts with the archive's, so a journal run
// with either setting answers alike under the other.
#include "core/engine/Matcher.h"
#include "core/net/Journal.h"
#include "core/settlement/ContractSettlement.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tessera::net {

// A contract as a positions reply lists it: from the engine (open, or settled and kept), or from
// the archive (settled: `delivered` set, nothing in escrow).
struct ListedContract {
  Contract contract;
  std::optional<std::int64_t> archivedDelivered;
};

class SettledContractArchive {
 public:
  SettledContractArchive(Journal& journal, bool retire) : journal_(journal), retire_(retire) {}

  bool retiring() const { return retire_; }
  // When retiring, settlement hands each contract it settles here instead of remembering it.
  void attach(ContractSettlement& settlement);
  // Archives the contracts settled since the last call and makes the engine forget them (after
  // the settlement lines that name them were built from the engine's copy).
  void retireSettled(Matcher& engine);

  // A settled contract from the archive.
  std::optional<ListedContract> find(ContractId id);
  // `account`'s contracts with ids above `after`, the engine's and the archive's, ascending, at
  // most `limit` (and one more when more follow, for the caller's next_after).
  std::vector<ListedContract> page(const Matcher& engine, AccountId account, ContractId after, std::size_t limit);

 private:
  Journal& journal_;
  bool retire_;
  std::vector<std::pair<ContractId, std::int64_t>> settled_;  // settled since retireSettled
};

}  // namespace tessera::net
