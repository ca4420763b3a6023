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
  if (c.id != size_ + 1 || (c.trade != 0 && c.trade != c.id) || c.end < c.start ||
      c.end - c.start > std::numeric_limits<std::uint32_t>::max() || terms_.size() >= (1u << 30) - 1)
    throw std::logic_error("contract out of sequence or out of range");
  Stored& s = append();
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
}

ContractBook::Stored& ContractBook::append() {
  if ((size_ >> kPageBits) == pages_.size()) pages_.push_back(std::make_unique<Page>());
  Page& p = *pages_[size_ >> kPageBits];
  ++p.kept;
  return p.entries[size_++ & (kPageSize - 1)];
}

void ContractBook::restore(const Contract& c) {
  if (c.id <= size_) throw std::logic_error("contract out of sequence");
  restoredThrough(c.id - 1);
  add(c);
}

void ContractBook::restoredThrough(ContractId last) {
  // The forgotten ids up to `last`: whole pages of them stay unallocated.
  while (size_ < last) {
    if ((size_ & (kPageSize - 1)) == 0 && size_ + kPageSize <= last) {
      pages_.emplace_back();
      size_ += kPageSize;
      continue;
    }
    append().flags = kForgotten;
    if (--pages_[(size_ - 1) >> kPageBits]->kept == 0 && (size_ & (kPageSize - 1)) == 0)
      pages_[(size_ - 1) >> kPageBits].reset();
  }
}

void ContractBook::forget(ContractId id) {
  if (id == 0 || id > size_ || !stored(id - 1)) throw std::logic_error("forgetting a contract not kept");
  const std::size_t index = id - 1;
  std::unique_ptr<Page>& page = pages_[index >> kPageBits];
  Stored& s = page->entries[index & (kPageSize - 1)];
  if (s.flags & 2) whole_.erase(id);
  if (index < indexed_) {
    for (AccountId a : {s.buyer, s.seller}) {
      Listed& l = byAccount_[a];
      if (++l.forgotten * 2 > l.ids.size()) {
        s.flags = kForgotten;  // compacted away below with the others
        std::erase_if(l.ids, [this](ContractId k) { return !stored(k - 1); });
        l.forgotten = 0;
        if (l.ids.empty()) byAccount_.erase(a);
      }
      if (s.seller == s.buyer) break;
    }
  }
  s.flags = kForgotten;
  // Not the page being filled: add() writes into it next.
  if (--page->kept == 0 && (index >> kPageBits) < (size_ >> kPageBits)) page.reset();
}

void ContractBook::catchUpIndex() const {
  for (; indexed_ < size_; ++indexed_) {
    const Stored* s = stored(indexed_);
    if (!s) continue;
    byAccount_[s->buyer].ids.push_back(indexed_ + 1);
    if (s->seller != s->buyer) byAccount_[s->seller].ids.push_back(indexed_ + 1);
  }
}

Contract ContractBook::expand(std::size_t index) const {
  const Stored& s = *stored(index);
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
  if (id == 0 || id > size_ || !stored(id - 1)) return std::nullopt;
  return expand(id - 1);
}

std::vector<Contract> ContractBook::all() const {
  std::vector<Contract> out;
  for (std::size_t i = 0; i < size_; ++i)
    if (stored(i)) out.push_back(expand(i));
  return out;
}

std::vector<Contract> ContractBook::of(AccountId account) const {
  catchUpIndex();
  std::vector<Contract> out;
  auto it = byAccount_.find(account);
  if (it == byAccount_.end()) return out;
  const auto& ids = it->second.ids;
  out.reserve(ids.size() - it->second.forgotten);
  for (ContractId id : ids)
    if (stored(id - 1)) out.push_back(expand(id - 1));
  return out;
}

}  // namespace tessera
