#pragma once
// Every contract the market has created, by id, with an index per account.
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
  // The list of an account's contracts, as add() keeps it. It stays where it is for the book's
  // lifetime, so a matcher may keep a reference to it with a resting order.
  using Ids = PagedVector<ContractId, 9>;
  Ids& idsOf(AccountId account) { return byAccount_[account]; }
  // add() with the buyer's and the seller's lists already found.
  void add(const Contract& c, Ids& buyerIds, Ids& sellerIds);
  std::optional<Contract> find(ContractId id) const;
  // Contracts where `account` is buyer or seller, ascending by id.
  std::vector<Contract> of(AccountId account) const;

 private:
  // A contract as kept: 48 bytes instead of a Contract's 120. A busy market makes millions of
  // contracts, and on a VM each new page of them costs a fault of 2-12 us, so the bytes are the
  // cost. The id is the position, the trade id is the id or none, start and price take 32 bits,
  // and the terms, which few sellers vary, are kept once each. A contract that does not fit
  // (a replacement, or values out of those ranges) is kept whole, aside.
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

  // Paged, so growth never copies what is stored. Not a std::deque: its blocks hold eight
  // contracts, so it would allocate once every eight trades. An account's ids get 4 KB pages.
  PagedVector<Stored> contracts_;  // contracts_[id - 1]
  std::unordered_map<AccountId, Ids> byAccount_;  // never erased from: references stay valid
  TermsTable terms_;
  std::unordered_map<ContractId, Contract> whole_;  // the contracts that do not fit a Stored
};

}  // namespace tessera
