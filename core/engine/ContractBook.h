#pragma once
// Every contract the market has created, by id, with an index per account.
#include "core/engine/Events.h"

#include <deque>
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
  std::deque<Contract> contracts_;  // contracts_[id - 1]; a deque, so growth never copies them all
  std::unordered_map<AccountId, std::vector<ContractId>> byAccount_;
};

}  // namespace tessera
