#pragma once
// Open option positions and their money on the exchange's ledger: one position per trade, a
// buyer (long) and a writer (short) of a number of GPU-hours of one series.
//
//   open:   the buyer pays premium x GPU-hours from Cash to the writer's Cash; the writer posts
//           the scenario margin (OptionPricing.h) from Cash into Margin.
//   mark:   at every index mark the writer's margin must cover the scenario margin again; a
//           shortfall is called from Cash, and a writer who cannot meet it is closed out: it pays
//           the buyer the reference value (from Margin, then Cash) and the position ends.
//   settle: when the delivery period has ended, the writer pays the buyer the payoff on the
//           period's average index (from Margin, then Cash) and the rest of its margin returns.
//   net:    an account never holds both a long and a short position in one series: at each trade
//           its long passes to the buyer of its short (the long's writer now owes that buyer)
//           and its short shrinks by as much, its margin for that part returning. No premium
//           moves (both were paid at their trades); the passed position records the premium its
//           new holder paid. A position whose writer is its buyer ends as netted and its margin
//           returns. So each account holds its net in a series, margined on the net.
// What a writer cannot pay is reported in the notice ("unpaid"), never invented.
#include "core/options/OptionPricing.h"
#include "core/settlement/SettlementLedger.h"

#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tessera {
class SnapshotWriter;
class SnapshotReader;
}  // namespace tessera

namespace tessera::indexoptions {

// Netted: the position's writer and buyer became the same account through netting (below).
enum class OptionStatus : std::uint8_t { Open, ClosedOut, Settled, Netted };
std::string_view toString(OptionStatus s);  // "open", "closed_out", "settled", "netted"

struct OptionPosition {
  std::uint64_t id = 0;
  AccountId buyer = 0;
  AccountId writer = 0;
  OptionSeries series;
  std::int64_t gpuHours = 0;
  Price premium = 0;  // paid per GPU-hour
  OptionStatus status = OptionStatus::Open;
  Money writerMargin = 0;  // in the writer's Margin book for this position
  Price lastValue = 0;     // reference value per GPU-hour at the last mark (payoff once settled)
  Money paid = 0;          // what the writer paid the buyer at close-out or settlement
  Money unpaid = 0;        // what it owed and could not pay
};

enum class OpenError : std::uint8_t { InvalidTerms, SameAccount, BuyerFunds, WriterMargin };
std::string_view toString(OpenError e);

struct OptionNotice {
  std::uint64_t position = 0;
  AccountId buyer = 0, writer = 0;
  std::string what;
};

class OptionPositions {
 public:
  explicit OptionPositions(SettlementLedger& ledger) : ledger_(ledger) {}

  // `marginPerGpuHour` is the series' scenario margin at the trade.
  std::variant<std::uint64_t, OpenError> open(AccountId buyer, AccountId writer, const OptionSeries& s,
                                              std::int64_t gpuHours, Price premium, Price marginPerGpuHour);
  // Re-margins every open position of `accelerator`: `margin` and `value` give the scenario
  // margin and reference value per GPU-hour of a series (nothing: the position is left as is).
  std::vector<OptionNotice> mark(Accelerator accelerator,
                                 const std::function<std::optional<Price>(const OptionSeries&)>& margin,
                                 const std::function<std::optional<Price>(const OptionSeries&)>& value);
  // Settles every open position on (accelerator, period) at the period's average index.
  std::vector<OptionNotice> settle(Accelerator accelerator, const DeliveryPeriod& period, Price average);

  std::optional<OptionPosition> position(std::uint64_t id) const;
  std::vector<OptionPosition> positionsOf(AccountId a) const;
  // Every open position's series, for the periods the market must keep averaging.
  std::vector<OptionSeries> openSeries() const;
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  // Nets `a`'s long and short positions in `s` (the header's "net").
  void net(AccountId a, const OptionSeries& s);
  // `gpuHours` of `p` end: its writer's margin for them returns; netted when none is left.
  void shrink(OptionPosition& p, std::int64_t gpuHours);
  // The writer pays `owed` to the buyer from its margin, then its cash; the margin returns.
  void close(OptionPosition& p, Money owed, OptionStatus status, std::string what, std::vector<OptionNotice>& out);

  SettlementLedger& ledger_;
  std::map<std::uint64_t, OptionPosition> positions_;
};

}  // namespace tessera::indexoptions
