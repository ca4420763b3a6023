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
  const auto& ids = it->second;
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) out.push_back(contracts_[ids[i] - 1]);
  return out;
}

}  // namespace tessera
