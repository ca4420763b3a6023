#include "LedgerAudit.h"

namespace tessera::testing {
namespace {

std::string describe(const BalanceKey& k) {
  return std::string(toString(k.book)) + " of account " + std::to_string(k.account);
}

std::string decimal(LedgerAudit::Wide v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  std::string s;
  for (LedgerAudit::Wide m = negative ? -v : v; m > 0; m /= 10) s.insert(s.begin(), static_cast<char>('0' + m % 10));
  return negative ? "-" + s : s;
}

}  // namespace

LedgerAudit::Wide LedgerAudit::inBook(Book b) const {
  auto it = into.find(b);
  return it == into.end() ? 0 : it->second;
}

LedgerAudit::Wide LedgerAudit::outOfBook(Book b) const {
  auto it = outOf.find(b);
  return it == outOf.end() ? 0 : it->second;
}

std::string LedgerAudit::report() const {
  std::string s;
  for (const auto& p : problems) s += p + "\n";
  return s;
}

LedgerAudit auditLedger(const SettlementLedger& ledger) {
  LedgerAudit a;
  const auto& postings = ledger.postings();
  if (postings.size() != ledger.postingCount())
    a.problems.push_back("the ledger made " + std::to_string(ledger.postingCount()) + " postings but records " +
                         std::to_string(postings.size()));
  std::uint64_t expectedId = 1;
  for (const Posting& p : postings) {
    if (p.id != expectedId)
      a.problems.push_back("posting " + std::to_string(p.id) + " where " + std::to_string(expectedId) + " was due");
    expectedId = p.id + 1;
    if (p.amount <= 0) a.problems.push_back("posting " + std::to_string(p.id) + " moves a non-positive amount");
    LedgerAudit::Wide& from = a.balances[p.from];
    from -= p.amount;
    a.balances[p.to] += p.amount;
    a.outOf[p.from.book] += p.amount;
    a.into[p.to.book] += p.amount;
    if (p.from.book != Book::External && from < 0)
      a.problems.push_back("posting " + std::to_string(p.id) + " (" + p.memo + ") overdraws " + describe(p.from) +
                           " to " + decimal(from));
  }
  for (const auto& [key, value] : a.balances)
    if (static_cast<LedgerAudit::Wide>(ledger.balance(key)) != value)
      a.problems.push_back(describe(key) + ": the ledger says " + std::to_string(ledger.balance(key)) +
                           ", its postings say " + decimal(value));
  return a;
}

}  // namespace tessera::testing
