#include "core/engine/ContractBook.h"

#include <algorithm>

namespace tessera {

void ContractBook::add(const Contract& c) {
  contracts_.push_back(c);
  byAccount_[c.buyer].push_back(c.id);
  if (c.seller != c.buyer) byAccount_[c.seller].push_back(c.id);
}

std::optional<Contract> ContractBook::find(ContractId id) const {
  if (id == 0 || id > contracts_.size()) return std::nullopt;
  return contracts_[id - 1];
}

std::vector<Contract> ContractBook::of(AccountId account) const {
  std::vector<Contract> out;
  auto it = byAccount_.find(account);
  if (it == byAccount_.end()) return out;
  out.reserve(it->second.size());
  for (ContractId id : it->second) out.push_back(contracts_[id - 1]);
  return out;
}

}  // namespace tessera
