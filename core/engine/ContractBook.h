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
#include "core/engine/TermsTable.h"

#include <array>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tessera {

//
// A contract can be forgotten (the exchange retires settled contracts to its archive): find() and
// of() know it no more, and a page of contracts whose every contract is forgotten is freed, so
// memory follows the contracts still kept, not every contract ever made (settlement is roughly
// in id order, so pages empty one after another).
class ContractBook {
 public:
  void add(const Contract& c);
  // A contract of a snapshot: ids ascending, the ids skipped being forgotten ones.
  void restore(const Contract& c);
  // After the snapshot's contracts: the ids up to `last` not restored are forgotten ones.
  void restoredThrough(ContractId last);
  // Forgets a kept contract; an unknown or already forgotten id is a bug (std::logic_error).
  void forget(ContractId id);
  std::optional<Contract> find(ContractId id) const;
  // Contracts where `account` is buyer or seller, ascending by id.
  std::vector<Contract> of(AccountId account) const;
  // The kept contracts, ascending by id.
  std::vector<Contract> all() const;

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
  static constexpr std::uint32_t kForgotten = 0xFFFFFFFF;  // flags of a forgotten contract
  static bool fitsStored(const Contract& c);
  Contract expand(std::size_t index) const;
  // Lists the contracts added since the last call under their accounts.
  void catchUpIndex() const;
  // The contract at `index` (id - 1), null when forgotten.
  const Stored* stored(std::size_t index) const {
    const Page* p = pages_[index >> kPageBits].get();
    if (!p) return nullptr;
    const Stored& s = p->entries[index & (kPageSize - 1)];
    return s.flags == kForgotten ? nullptr : &s;
  }
  Stored& append();

  // In pages, so growth never copies what is stored (not a std::deque: its blocks hold eight
  // contracts, so it would allocate once every eight trades). A page with no contract kept is
  // freed; its place in pages_ stays (8 bytes per 1,024 contracts ever made).
  static constexpr unsigned kPageBits = 10;
  static constexpr std::size_t kPageSize = std::size_t{1} << kPageBits;
  struct Page {
    std::array<Stored, kPageSize> entries;
    std::size_t kept = 0;
  };
  std::vector<std::unique_ptr<Page>> pages_;
  std::size_t size_ = 0;  // contracts ever added (or restored past): the next id is size_ + 1
  // An account's contracts by id; `forgotten` of them are forgotten, and the list is compacted
  // when they are half of it, so it follows the account's kept contracts.
  struct Listed {
    std::vector<ContractId> ids;
    std::size_t forgotten = 0;
  };
  mutable std::unordered_map<AccountId, Listed> byAccount_;
  mutable std::size_t indexed_ = 0;  // contracts [0, indexed_) are in byAccount_
  TermsTable terms_;
  std::unordered_map<ContractId, Contract> whole_;  // the contracts that do not fit a Stored
};

}  // namespace tessera
