#pragma once
// Every contract the market has created, by id, with an index per account.
//
// The index per account is brought up to date when it is asked for, not by every add: a trade's
// counterparty's list is cold, so listing each contract under both accounts as it was made cost a
// miss per contract on the matching path, where queries for an account's contracts are rare next
// to trades. Catching up indexes every contract made since the last query, in id order, so each
// contract is indexed once. That makes the const queries write: like the engine that owns it, a
// book is used from one thread at a time.
#include "core/engine/Events.h"
#include "core/engine/PagedVector.h"
#include "core/engine/TermsTable.h"

#include <optional>
#include <unordered_map>
#include <vector>

namespace tessera {

class ContractBook {
 public:
  void add(const Contract& c);
  std::optional<Contract> find(ContractId id) const;
  // Contracts where `account` is buyer or seller, ascending by id.
  std::vector<Contract> of(AccountId account) const;

 private:
  // A contract as kept: 48 bytes instead of a Contract's 120. A busy market makes millions of
  // contracts, and on a VM each new page of them costs a fault of 2-12 us, so the bytes are the
  // cost. The id is the position, the trade id is the id or none, start and price take 32 bits,
  // and the terms, which few sellers vary, are kept once each. A contract that does not fit
  // (a replacement, or values out of those ranges) is kept whole, aside; its buyer and seller
  // are in its Stored all the same, for the index.
  struct Stored {
    OrderId buyOrder = 0;
    OrderId sellOrder = 0;
    std::int32_t start = 0;
    std::int32_t price = 0;
    AccountId buyer = 0;
    AccountId seller = 0;
    ClusterId cluster = 0;
    GpuCount gpus = 0;
    std::uint32_t hours = 0;
    std::uint32_t flags = 0;  // index into terms_ << 2 | kept whole << 1 | (trade id == contract id)
  };
  static_assert(sizeof(Stored) == 48);
  static bool fitsStored(const Contract& c);
  Contract expand(std::size_t index) const;
  // Lists the contracts added since the last call under their accounts.
  void catchUpIndex() const;

  // Paged, so growth never copies what is stored. Not a std::deque: its blocks hold eight
  // contracts, so it would allocate once every eight trades.
  PagedVector<Stored> contracts_;  // contracts_[id - 1]
  mutable std::unordered_map<AccountId, std::vector<ContractId>> byAccount_;
  mutable std::size_t indexed_ = 0;  // contracts_[0, indexed_) are in byAccount_
  TermsTable terms_;
  std::unordered_map<ContractId, Contract> whole_;  // the contracts that do not fit a Stored
};

}  // namespace tessera
