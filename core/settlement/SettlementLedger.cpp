#include "core/settlement/SettlementLedger.h"

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

std::optional<PostingError> SettlementLedger::post(BalanceKey from, BalanceKey to, Money amount,
                                                   std::string memo) {
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
    throw std::logic_error("posting refused (" +
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

}  // namespace tessera
