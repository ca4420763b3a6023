#pragma once
// Double-entry ledger of the exchange's money. Every movement is a posting that debits one
// balance and credits another by the same amount, so the sum of all balances never changes;
// money enters and leaves only through the `External` book of the bank account that funds it.
#include "core/domain/Types.h"

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class SnapshotWriter;
class SnapshotReader;

enum class Book : std::uint8_t {
  Cash,      // free to spend
  Reserved,  // held against working bids
  Escrow,    // paid for contracted GPU-hours not yet delivered
  Margin,    // posted against forward positions
  Fees,      // the exchange's fee income (house account)
  External,  // the outside world: deposits make it negative
};
std::string_view toString(Book b);

struct BalanceKey {
  AccountId account = 0;
  Book book = Book::Cash;
  auto operator<=>(const BalanceKey&) const = default;
};

struct Posting {
  std::uint64_t id = 0;
  BalanceKey from;
  BalanceKey to;
  Money amount = 0;  // positive
  std::string memo;  // "escrow contract 12", "credit for 8 undelivered GPU-hours", ...
  bool operator==(const Posting&) const = default;
};

enum class PostingError : std::uint8_t { NonPositiveAmount, InsufficientFunds };

class SettlementLedger {
 public:
  // Moves `amount` from one balance to another. Only External may go negative. A refused
  // posting moves nothing, so the caller must look at the answer.
  [[nodiscard]] std::optional<PostingError> post(BalanceKey from, BalanceKey to, Money amount, std::string memo);
  // The same for a posting the caller has already made sure of (a positive amount that the
  // balance covers): a refusal here is a bug, thrown as std::logic_error, never a lost posting.
  void postChecked(BalanceKey from, BalanceKey to, Money amount, std::string memo);
  Money balance(BalanceKey k) const;
  // The sum of every balance: 0 by construction (each posting moves -a/+a), so it proves
  // nothing about conservation; tests audit the postings instead (tests/settlement/LedgerAudit.h).
  Money total() const;
  // The latest postings (at most kKeptPostings), for inspection and tests; balances are exact
  // whatever was dropped, and every posting is rebuilt from the journal by a replay.
  const std::deque<Posting>& postings() const { return postings_; }
  std::vector<Posting> postingsOf(AccountId a) const;
  std::uint64_t postingCount() const { return count_; }  // every posting ever made
  static constexpr std::size_t kKeptPostings = 100'000;
  // The snapshot form (core/engine/SnapshotCodec.h); load() into a fresh one.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  std::map<BalanceKey, Money> balances_;
  // A deque: dropping the oldest and adding the newest never moves the others.
  std::deque<Posting> postings_;
  std::uint64_t count_ = 0;
};

}  // namespace tessera
