#pragma once
// The exchange's call mode (docs/matching.md, "Call mode at the exchange"): orders to a cluster
// that trades in calls wait here, outside the engine, in a core/auction CallMarket, and clear
// together at the call (every `period_seconds` of wall time and/or at every step of the clock).
//
// A call is journaled with its result (the "call" entry) before anything it does, and its trades
// become contracts through the engine: each (buyer, seller) pairing of the call's fills over a run
// of hours at one price is a pair of engine orders ("legs": the seller's resting at the clearing
// price, then the buyer's immediate-or-cancel at it), applied and journaled like any input. So a
// call's contracts, escrow, settlement, tape prints and index prints go through the continuous
// path, and a replay applies the journaled result and legs without solving again: it ends in the
// same state, byte for byte, whatever the solver's time limit did the first time.
//
// A waiting bid reserves limit x the GPU-hours it still wants (ExchangeAccounts::
// syncCallReservation), released as the call fills or expires it; a waiting ask must be covered,
// hour by hour, by its seller's holdings not offered elsewhere, checked on entry and again before
// each call (an ask no longer covered expires instead of taking part).
#include "core/auction/CallMarket.h"
#include "core/domain/AccountDirectory.h"
#include "core/engine/Matcher.h"
#include "core/net/CallReport.h"
#include "core/net/ExchangeAccounts.h"
#include "core/net/ExchangeConfig.h"
#include "core/net/FinishedOrderArchive.h"
#include "core/net/JournalReplay.h"
#include "core/net/MarketDataFeed.h"
#include "core/net/Outbox.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {
class SnapshotWriter;
class SnapshotReader;
}  // namespace tessera

namespace tessera::net {

class CallDesk {
 public:
  // Applies one leg (an order, or the cancel of an ask leg whose bid leg failed) to the engine:
  // ExchangeCore gives an order the next order id (written back into `leg`) and a record, and
  // journals it. Returns the input's events, or nothing if the engine rejected it.
  using LegExecutor =
      std::function<std::optional<std::vector<Event>>(InputEvent& leg, const std::string& clOrdId, Outbox* out)>;

  CallDesk(const Matcher& engine, ExchangeAccounts& accounts, MarketDataFeed& marketData, JournalReplay& journal,
           const CallModeConfig& config, LegExecutor execute);
  void registerJournalEntries();
  // Where a finished call order (filled, cancelled, expired, or left unfilled when its window
  // passed) is archived, as the engine's finished orders are (FinishedOrderArchive), so that
  // order_status and order_history find it.
  void useArchive(FinishedOrderArchive& archive) { archive_ = &archive; }

  bool enabled() const { return config_.any(); }
  // Whether `o` waits for a call: it names a call-mode cluster, or every cluster trades in calls.
  bool inCallMode(const OrderRequest& o) const;
  bool inCallMode(ClusterId c) const;
  // The checks a call order passes besides the account's (ExchangeAccounts::admit).
  [[nodiscard]] std::optional<Refusal> check(const OrderRequest& o) const;
  // When only some clusters trade in calls, a continuous order that names no cluster may not
  // have a call-mode cluster among its candidates: resting in the engine, it would trade with a
  // call's legs while the call runs (docs/matching.md, "Call auction").
  [[nodiscard]] std::optional<Refusal> checkContinuous(const OrderRequest& o) const;
  // An admitted order joins the next call: journaled, its bid reservation held, `accepted` sent.
  void accept(const OrderRequest& o, const std::string& clOrdId, Outbox* out);
  bool waiting(OrderId id) const { return market_.find(id) != nullptr; }
  // Withdraws a waiting order (journaled) and sends its `cancelled`.
  void cancel(OrderId id, CancelReason why, Outbox* out);
  // Amends a waiting order of account `a` (docs/matching.md "Call mode at the exchange",
  // Amend): the amended order passes the entry checks again and a bid's reservation becomes
  // exactly the new limit x what it then wants, refused if the account cannot cover it. On
  // success the amend is journaled and `amended` sent; a refusal changes nothing.
  [[nodiscard]] std::optional<Refusal> amend(const ExchangeAccount& a, OrderId id, const AmendOrder& m, Outbox* out);
  // Orders waiting for a call on a cluster that no longer trades in calls (a restart with
  // another call_mode) are cancelled as expired, journaled, so their reservations are released.
  void withdrawStranded();
  // A waiting order as the engine would describe it (order_status, orders).
  std::optional<OrderView> view(OrderId id) const;
  std::vector<OrderId> waitingOf(AccountId account, std::optional<ClusterId> cluster) const;

  // The schedule as clients see it; `due` says whether the periodic call's time has come.
  CallSchedule schedule() const;
  bool due(std::int64_t nowUnix) const { return config_.periodSeconds > 0 && nowUnix >= nextCallUnix_; }
  // The clock stepped: with `at_each_hour`, a call is due (run by the exchange after the input).
  bool callsAtEachHour() const { return config_.atEachHour && enabled(); }
  // Runs the call now: expires what cannot take part, clears, journals, makes the contracts,
  // reports to the orders and publishes md_call_result. Nothing to clear: no call.
  std::optional<CallReport> runCall(Outbox* out, std::int64_t nowUnix);
  // What the next call would clear if it ran now (changes nothing).
  CallReport indicative();
  const std::optional<CallReport>& lastCall() const { return last_; }
  // The call whose legs are being applied (0: none): live while the call makes its contracts;
  // on replay from the "call" entry to its "call_legs" entry, the legs being exactly the inputs
  // journaled between the two. A leg's trade is the call's: nobody took liquidity in it.
  std::uint64_t legsOf() const { return legsOf_; }
  // On replay, before a journaled engine input: whether it is a leg of the call being replayed.
  // An input between a "call" and its "call_legs" entry is one; a journal without "call_legs"
  // entries ends the legs at the first input whose client id is not one of the call's leg ids.
  bool replayingLeg(std::string_view clOrdId);

  // For the state digest: the waiting orders and what they still want, the calls so far, the
  // last call's report.
  std::string digestText() const;
  void save(SnapshotWriter& w) const;
  void load(SnapshotReader& r);

 private:
  std::int64_t leavesOf(const auction::CallEntry& e) const;
  // The entry checks of `e` (what it wants per hour for an ask's cover); `except`: an order
  // whose waiting ask does not count against the cover (the one being amended).
  [[nodiscard]] std::optional<Refusal> check(const auction::CallEntry& e, std::optional<OrderId> except) const;
  // Applies an amend (live and on replay): the order, its record's limit, its reservation.
  // Returns whether it kept its place in arrival order.
  bool applyAmend(OrderId id, std::optional<Price> limit, std::optional<GpuCount> gpus);
  // An order that left the call market: its record closed, its reservation released, archived
  // with what it traded in all its calls (and, when the archive retires, its record dropped).
  void finish(const OrderRequest& request, OrderStatus status);
  // Applies a call's result to the waiting orders and their records (live and on replay).
  CallReport record(const auction::CallResult& r, std::uint64_t call);
  // Turns the call's trades into contracts (legs) and reports them to the orders; `before` is
  // each order that took part, with the GPU-hours it wanted, as it stood before the call.
  void executeLegs(const auction::CallResult& r, const std::map<OrderId, std::pair<OrderRequest, std::int64_t>>& before,
                   Outbox* out);
  CallReport reportOf(const auction::CallResult& r) const;
  void syncClusters();
  // The asks no longer covered by their sellers' free holdings, in arrival order.
  std::vector<OrderId> uncoveredAsks() const;
  void scheduleNext(std::int64_t nowUnix);

  const Matcher& engine_;
  ExchangeAccounts& accounts_;
  MarketDataFeed& marketData_;
  JournalReplay& journal_;
  CallModeConfig config_;
  LegExecutor execute_;
  FinishedOrderArchive* archive_ = nullptr;
  auction::CallMarket market_;
  std::map<OrderId, std::int64_t> filled_;  // GPU-hours each waiting order traded in earlier calls
  std::uint64_t calls_ = 0;
  std::optional<CallReport> last_;
  std::optional<CallReport> indicative_;  // until the waiting orders or the clock change
  std::int64_t nextCallUnix_ = 0;
  std::uint64_t legsOf_ = 0;
};

}  // namespace tessera::net
