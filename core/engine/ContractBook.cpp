#include "core/engine/ContractBook.h"

#include <limits>
#include <stdexcept>
#include <utility>

namespace tessera {

bool ContractBook::fitsStored(const Contract& c) {
  return c.replaces == 0 && std::in_range<std::int32_t>(c.start) && std::in_range<std::int32_t>(c.price);
}

void ContractBook::add(const Contract& c) {
  // The engine numbers contracts densely from 1 and makes trade ids the contract ids; anything
  // else is a bug in the caller, not input.
  if (c.id != contracts_.size() + 1 || (c.trade != 0 && c.trade != c.id) || c.end < c.start ||
      c.end - c.start > std::numeric_limits<std::uint32_t>::max() || terms_.size() >= (1u << 30))
    throw std::logic_error("contract out of sequence or out of range");
  Stored s;
  s.buyer = c.buyer;  // even when kept whole: the index reads them here
  s.seller = c.seller;
  if (fitsStored(c)) {
    s.buyOrder = c.buyOrder;
    s.sellOrder = c.sellOrder;
    s.start = static_cast<std::int32_t>(c.start);
    s.price = static_cast<std::int32_t>(c.price);
    s.cluster = c.cluster;
    s.gpus = c.gpus;
    s.hours = static_cast<std::uint32_t>(c.end - c.start);
    s.flags = terms_.intern(c.terms) << 2 | (c.trade == c.id ? 1u : 0u);
  } else {
    s.flags = 2;
    whole_.emplace(c.id, c);
  }
  contracts_.push_back(s);
}

void ContractBook::catchUpIndex() const {
  for (; indexed_ < contracts_.size(); ++indexed_) {
    const Stored& s = contracts_[indexed_];
    byAccount_[s.buyer].push_back(indexed_ + 1);
    if (s.seller != s.buyer) byAccount_[s.seller].push_back(indexed_ + 1);
  }
}

Contract ContractBook::expand(std::size_t index) const {
  const Stored& s = contracts_[index];
  Contract c;
  c.id = index + 1;
  if (s.flags & 2) return whole_.at(c.id);
  c.trade = s.flags & 1 ? c.id : 0;
  c.buyer = s.buyer;
  c.seller = s.seller;
  c.buyOrder = s.buyOrder;
  c.sellOrder = s.sellOrder;
  c.cluster = s.cluster;
  c.gpus = s.gpus;
  c.start = s.start;
  c.end = c.start + s.hours;
  c.price = s.price;
  c.terms = terms_.at(s.flags >> 2);
  return c;
}

std::optional<Contract> ContractBook::find(ContractId id) const {
  if (id == 0 || id > contracts_.size()) return std::nullopt;
  return expand(id - 1);
}

std::vector<Contract> ContractBook::of(AccountId account) const {
  catchUpIndex();
  std::vector<Contract> out;
  auto it = byAccount_.find(account);
  if (it == byAccount_.end()) return out;
  const auto& ids = it->second;
  out.reserve(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) out.push_back(expand(ids[i] - 1));
  return out;
}

}  // namespace tessera
