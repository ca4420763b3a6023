#pragma once
// Cash-settled forwards on the price index: buy or sell the next-day index price of one
// accelerator class for a future delivery week, for a notional quantity of GPU-hours, settled in
// cash against the index over that week; nobody delivers hardware, so a speculator can take a
// view and a provider can hedge, and compute can be shorted.
//
// Margin: each side posts initial margin (a share of the notional) from Cash into Margin. At every
// mark against the current index the side that is losing must hold initial margin plus its loss;
// a shortfall is called from Cash, and a side that cannot meet the call is closed out at the
// mark. At expiry the loser pays (index - price) x quantity to the winner and the margins return.
#include "core/domain/Cluster.h"
#include "core/settlement/SettlementLedger.h"

#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tessera {

class SnapshotWriter;
class SnapshotReader;

struct ForwardTerms {
  Accelerator accelerator = Accelerator::H100;
  Hour weekStart = 0;         // the delivery week [weekStart, weekStart + 168)
  std::int64_t gpuHours = 0;  // notional quantity
  Price price = 0;            // agreed index level per GPU-hour
};

// Initial margin of a forward: a share (ppm) of its notional, price x GPU-hours.
inline constexpr int kDefaultInitialMarginPpm = 150'000;
Money initialMarginFor(std::int64_t gpuHours, Price price, int marginPpm = kDefaultInitialMarginPpm);

enum class ForwardError : std::uint8_t { InvalidTerms, SameAccount, BuyerMargin, SellerMargin, UnknownPosition };
std::string_view toString(ForwardError e);

enum class ForwardStatus : std::uint8_t { Open, ClosedOut, Settled };

struct ForwardPosition {
  std::uint64_t id = 0;
  AccountId buyer = 0;   // long the index
  AccountId seller = 0;  // short the index
  ForwardTerms terms;
  ForwardStatus status = ForwardStatus::Open;
  Money buyerMargin = 0;
  Money sellerMargin = 0;
  Price lastMark = 0;
};

struct ForwardEvent {
  std::uint64_t position = 0;
  std::string what;
};

class CashForwardBook {
 public:
  CashForwardBook(SettlementLedger& ledger, int initialMarginPpm = kDefaultInitialMarginPpm)
      : ledger_(ledger), initialMarginPpm_(initialMarginPpm) {}

  std::variant<std::uint64_t, ForwardError> open(AccountId buyer, AccountId seller, const ForwardTerms& t);
  // Marks every open position on `accelerator` to `index`: margin calls, close-outs.
  std::vector<ForwardEvent> mark(Accelerator accelerator, Price index);
  // Settles every open position on `accelerator` for the week starting `weekStart` at `finalIndex`.
  std::vector<ForwardEvent> settle(Accelerator accelerator, Hour weekStart, Price finalIndex);

  std::optional<ForwardPosition> position(std::uint64_t id) const;
  Money initialMargin(const ForwardTerms& t) const;
  // The snapshot form (core/engine/SnapshotCodec.h); load() into a fresh one.
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  // Pays `pnl` (positive: buyer gains) between the sides from their margins, then cash; returns
  // the margins left to Cash. Records what could not be paid.
  void close(ForwardPosition& p, Price at, ForwardStatus status, std::vector<ForwardEvent>& out);

  SettlementLedger& ledger_;
  int initialMarginPpm_;
  std::map<std::uint64_t, ForwardPosition> positions_;
};

}  // namespace tessera
