#pragma once
// An audit of a SettlementLedger from its postings alone, with arithmetic of its own, for the
// money checks of the settlement and exchange tests. `ledger.total() == 0` holds by
// construction (every posting moves -a/+a) and proves nothing; this audit fails when a balance
// disagrees with the postings that made it, when a posting is missing from the record, or when
// a balance other than External went below zero at any point of the stream. It also sums the
// money that flowed into and out of each book, which the tests compare with what they expect
// from their own contracts and positions (escrow in = the notionals opened, margin in = margin
// out once every position is closed, ...).
#include "core/settlement/SettlementLedger.h"

#include <map>
#include <string>
#include <vector>

namespace tessera::testing {

struct LedgerAudit {
  __extension__ using Wide = __int128;  // sums of postings that cannot overflow
  std::vector<std::string> problems;    // empty when the ledger agrees with its postings
  std::map<BalanceKey, Wide> balances;  // rebuilt from the postings
  std::map<Book, Wide> into;            // money posted into each book, over every account
  std::map<Book, Wide> outOf;           // ... and out of it
  // What the postings say about one book in total (over every account).
  Wide inBook(Book b) const;
  Wide outOfBook(Book b) const;
  bool clean() const { return problems.empty(); }
  std::string report() const;  // the problems, one a line
};

// Rebuilds every balance from the ledger's postings. The ledger must still hold every posting it
// made (tests post far fewer than SettlementLedger::kKeptPostings).
LedgerAudit auditLedger(const SettlementLedger& ledger);

}  // namespace tessera::testing
