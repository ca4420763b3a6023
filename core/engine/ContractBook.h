#pragma once
// Every contract the market has created, by id, with an index per account.
#include "core/engine/Events.h"
#include "core/engine/PagedVector.h"

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
  // Paged, so growth never copies what is stored. Not a std::deque: its blocks hold four
  // contracts, so it would allocate once every four trades. An account's ids get 4 KB pages.
  PagedVector<Contract> contracts_;  // contracts_[id - 1]
  std::unordered_map<AccountId, PagedVector<ContractId, 9>> byAccount_;
};

}  // namespace tessera
