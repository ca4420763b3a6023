#include "core/settlement/SettlementLedger.h"
#include "core/engine/SnapshotCodec.h"

#include <stdexcept>

namespace tessera {

std::string_view toString(Book b) {
  switch (b) {
    case Book::Cash: return "cash";
    case Book::Reserved: return "reserved";
    case Book::Escrow: return "escrow";
    case Book::Margin: return "margin";
    case Book::Fees: return "fees";
    case Book::External: return "external";
  }
  return "?";
}

std::optional<PostingError> SettlementLedger::post(BalanceKey from, BalanceKey to, Money amount, std::string memo) {
  if (amount <= 0) return PostingError::NonPositiveAmount;
  if (from.book != Book::External && balance(from) < amount) return PostingError::InsufficientFunds;
  balances_[from] -= amount;
  balances_[to] += amount;
  postings_.push_back(Posting{++count_, from, to, amount, std::move(memo)});
  if (postings_.size() > kKeptPostings) postings_.pop_front();
  return std::nullopt;
}

void SettlementLedger::postChecked(BalanceKey from, BalanceKey to, Money amount, std::string memo) {
  if (auto e = post(from, to, amount, memo))
    throw std::logic_error(
        "posting refused (" +
        std::string(*e == PostingError::NonPositiveAmount ? "non-positive amount" : "insufficient funds") +
        "): " + std::to_string(amount) + " from " + std::string(toString(from.book)) + " of account " +
        std::to_string(from.account) + ", " + memo);
}

Money SettlementLedger::balance(BalanceKey k) const {
  auto it = balances_.find(k);
  return it == balances_.end() ? 0 : it->second;
}

Money SettlementLedger::total() const {
  Money sum = 0;
  for (const auto& [k, v] : balances_) sum += v;
  return sum;
}

std::vector<Posting> SettlementLedger::postingsOf(AccountId a) const {
  std::vector<Posting> out;
  for (const auto& p : postings_)
    if (p.from.account == a || p.to.account == a) out.push_back(p);
  return out;
}

void SettlementLedger::save(SnapshotWriter& w) const {
  w.pod<std::uint64_t>(balances_.size());
  for (const auto& [k, v] : balances_) {
    w.pod(k.account);
    w.pod(k.book);
    w.pod(v);
  }
  w.pod(count_);
  w.pod<std::uint64_t>(postings_.size());
  for (const Posting& p : postings_) {
    w.pod(p.id);
    w.pod(p.from.account);
    w.pod(p.from.book);
    w.pod(p.to.account);
    w.pod(p.to.book);
    w.pod(p.amount);
    w.str(p.memo);
  }
}

void SettlementLedger::load(SnapshotReader& r) {
  for (std::size_t n = r.count(8); n > 0; --n) {
    BalanceKey k;
    k.account = r.pod<AccountId>();
    k.book = r.pod<Book>();
    balances_[k] = r.pod<Money>();
  }
  count_ = r.pod<std::uint64_t>();
  for (std::size_t n = r.count(8); n > 0; --n) {
    Posting p;
    p.id = r.pod<std::uint64_t>();
    p.from.account = r.pod<AccountId>();
    p.from.book = r.pod<Book>();
    p.to.account = r.pod<AccountId>();
    p.to.book = r.pod<Book>();
    p.amount = r.pod<Money>();
    p.memo = r.str();
    postings_.push_back(std::move(p));
  }
}

}  // namespace tessera
