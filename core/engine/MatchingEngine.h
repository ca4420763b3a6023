#pragma once
// The fast matcher. Each cluster's book keeps, per side, its divisible orders by price level
// (PriceLevels): an order rests once for its whole window, and the order itself keeps what it
// still wants per hour, so cancels, fills and expiry change the order without searching for it.
// Matching plans its takes level by level and then applies them in the order an hour-by-hour
// walk would have made them (docs/matching.md), so the events are those of the rules as written.
// All-or-none bids rest outside the levels, indexed by the clusters they may trade on, and are
// re-checked when asks arrive on those clusters. An order that stops working moves to
// FinishedOrders at the end of the input, and its slot takes the next order.
//
// Priority is docs/matching.md's price-time priority per hour: levels are walked best price
// first, each level's entries in sequence order, and the planned takes are applied sorted by
// (first hour, price, sequence), which is the order of an hour-by-hour walk.
//
// Caches, what each guarantees, and the rule it rests on (a rule change that breaks the premise
// must drop or rebuild the cache; test_engine_differential catches only what its scripts reach):
// - PriceLevels' per-hour best-price bounds and each rank's block summary: never better than
//   the truth (a bound, a set bit where GPUs may rest). Only `add` lowers or sets them; a
//   fill, cancel, expiry or amend only takes GPUs away. Premise: every GPU that rests was added
//   through PriceLevels::add.
// - ListedBid::shortfall: a lower bound on how far a resting all-or-none bid is from feasible.
//   Premise: only an arriving (or re-entered) ask lowers an hour's cost, by at most what it
//   offers at its own price, only where it rests; everything else only raises costs.
// - bestPlacement's `onlyNear` search, used by every re-check and by the post-only probe:
//   premise that after every input no resting all-or-none bid can fill (docs/matching.md,
//   "Re-check"), so a placement that became feasible uses the hours of the asks just added.
// - A level's per-hour entry counts and the sell side's totals: exact from the clock on.
#include "core/engine/FinishedOrders.h"
#include "core/engine/HugePageMemory.h"
#include "core/engine/MarketState.h"
#include "core/engine/OrderIdIndex.h"
#include "core/engine/PagedVector.h"
#include "core/engine/PriceLevels.h"
#include "core/engine/TermsTable.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

namespace tessera {

class MatchingEngine final : public Matcher {
 public:
  explicit MatchingEngine(std::size_t prefaultBytes = 0);
  void apply(const InputEvent& in, std::vector<Event>& out) override;

  // The whole state between two inputs, in the byte form of core/engine/SnapshotCodec.h
  // (appended to `out`), and that state loaded into a fresh engine (one that has applied
  // nothing). A loaded engine answers every query and every later input exactly as the saved
  // one would: working orders keep their sequence numbers and re-rest in sequence order, which
  // is each level's time order; finished orders keep their places; the caches that only speed
  // matching up (PriceLevels' bounds, all-or-none shortfalls) start over from the truth.
  // Throws SnapshotCorrupt on bytes that are not such a snapshot.
  void saveSnapshot(std::string& out) const;
  void loadSnapshot(std::string_view in);

  Hour now() const override { return state_.now; }
  const Cluster* cluster(ClusterId id) const override { return state_.clusters.find(id); }
  std::vector<Cluster> clusters() const override { return state_.clusters.all(); }
  std::optional<OrderView> order(OrderId id) const override;
  void forget(OrderId id) override;
  std::vector<OrderView> workingOrders(AccountId account) const override;
  std::vector<BookLevel> depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const override;
  void depthRange(ClusterId cluster, Hour from, Hour to, Side side, std::size_t maxLevels,
                  std::vector<std::vector<BookLevel>>& out) const override;
  std::vector<OrderView> allOrNoneBids(ClusterId cluster) const override;
  std::optional<Contract> contract(ContractId id) const override { return state_.contracts.find(id); }
  std::vector<Contract> contractsOf(AccountId account) const override { return state_.contracts.of(account); }
  void forgetContract(ContractId id) override { state_.contracts.forget(id); }
  Holding holding(AccountId account, ClusterId cluster, Hour hour) const override {
    return state_.holding(account, cluster, hour);
  }

 private:
  using Slot = std::uint32_t;
  using Entry = PriceLevels::Entry;
  using Resting = PriceLevels::Resting;
  // A resting all-or-none bid as its candidates' books list it: what the re-check after every
  // resting ask filters and orders by, without reading the order.
  struct ListedBid {
    Price limit = 0;
    std::uint64_t seq = 0;
    Hour start = 0;
    Hour end = 0;
    Hour hours = 0;  // how long it runs (its window's length unless flexible)
    GpuCount gpus = 0;
    Slot slot = 0;
    // What the last re-check that turned it down (from the hours' bounds alone) learned, so that
    // most later asks can be turned away without reading the book: only arriving asks lower an
    // hour's cost, each at most to its own price, and only where it rests.
    struct Shortfall {
      bool known = false;
      Money excess = 0;       // how far the hours' lower bounds on cost exceed the budget (a lower bound)
      Money dearestHour = 0;  // the highest of those bounds (an hour's cost, gpus x price)
      Hour missingFirst = 0;  // hours known not to hold gpus GPUs (the same hour if one is
      Hour missingLast = -1;  // known, none if first > last)
    } shortfall;
    // Priority: the higher limit, then the earlier sequence.
    bool before(const ListedBid& o) const { return limit != o.limit ? limit > o.limit : seq < o.seq; }
    // May it use an ask over [s, e)?
    bool touches(Hour s, Hour e) const { return start < e && s < end; }
  };
  struct Book {
    Book(Hour base, std::pmr::memory_resource* memory)
        : sides{PriceLevels(base, PriceLevels::Totals::NotKept, memory),
                PriceLevels(base, PriceLevels::Totals::Kept, memory)} {}
    PriceLevels sides[2];                  // indexed by Side; the sell side's GPUs are what is offered
    std::vector<ListedBid> allOrNoneBids;  // resting all-or-none bids that may trade here, in priority
  };
  // What matching reads of every resting order it passes (is it live, what does it still want)
  // comes first, in one cache line. What a trade reads of it (the fill state, the level, the
  // holdings, the terms' index, and the request's ids, cluster, GPUs and limit, which
  // OrderRequest declares first) is in the first two, which applyTakes asks for together: a
  // trade pass touches dozens of cold orders, and each line more is another miss per order.
  struct alignas(64) Order {
    std::uint64_t seq = 0;
    Hour liveFrom = 0;  // divisible: hours before this have no entries left
    // Divisible: what it still wants per hour from `qtyBase` until `req.end`; null while that
    // is `req.gpus` in every live hour, which is the common case of an order nothing has traded
    // against yet. In the engine's memory, `qtyHours` of them (allocateQty, releaseQty); an
    // array, not a vector, so that the limit stays in the second line.
    GpuCount* qty = nullptr;
    Hour qtyBase = 0;
    std::int64_t filled = 0;
    std::int64_t leaves = 0;
    PriceLevels* restsIn = nullptr;  // divisible, once resting: its side of its cluster's book
    OrderStatus status = OrderStatus::Working;
    std::uint32_t level = 0;  // ... and the level there (PriceLevels::at)
    std::uint32_t terms = 0;  // sell: req.terms in terms_, which a trade reads instead
    std::uint32_t qtyHours = 0;
    // Divisible: its account's holdings on its cluster, so that trades against it and taking a
    // sell's offer back find them without a lookup (a sell's from submit; a buy's once
    // traded against).
    Inventory::Series* holdings = nullptr;
    OrderRequest req;
    std::vector<ClusterId> accepted;    // all-or-none: clusters it could trade on when accepted
    std::vector<ClusterId> candidates;  // ... of those, the ones that hold its current GPU count
    bool listed = false;                // all-or-none: in its candidates' allOrNoneBids
    std::uint64_t arrival = 0;          // its first sequence, kept through amends: expiry goes by it
    bool aon() const { return req.fill == FillStyle::AllOrNone; }
  };
  struct Placement {
    ClusterId cluster = 0;
    Hour start = 0;
    Money cost = 0;
    RankedCost rank = 0;  // cost times the buyer's cost factor for the cluster
  };

  void submit(const OrderRequest& o, std::vector<Event>& out);
  // Stores a newly accepted order in a free slot, or a new one.
  Slot store(Order&& o);
  // The order in `s` stops working. Its slot is freed once the input is done with it.
  void stop(Slot s, OrderStatus status);
  // Moves the orders that stopped during this input to finished_ and frees their slots.
  void releaseStopped();
  // The slot of order `id` while it works (or stopped during this input).
  std::optional<Slot> liveSlot(OrderId id) const {
    const auto v = slotOf_.find(id);
    return v && !(*v & kFinishedTag) ? v : std::nullopt;
  }
  // The request of the order in `s` if it is working, else null.
  const OrderRequest* workingRequest(std::optional<Slot> s) const;
  void cancel(const CancelRequest& c, std::vector<Event>& out);
  void amend(const AmendRequest& a, std::vector<Event>& out);
  void advance(const ClockAdvance& c, std::vector<Event>& out);

  Book& book(ClusterId c);
  const Book* findBook(ClusterId c) const;
  static Price keyOf(Side s, Price limit) { return s == Side::Sell ? limit : -limit; }
  static std::int32_t entryKey(Side s, Price limit) { return static_cast<std::int32_t>(keyOf(s, limit)); }
  // What a divisible order still wants in hour h; 0 once it is no longer working.
  static GpuCount remainingAt(const Order& o, Hour h) { return o.status == OrderStatus::Working ? storedAt(o, h) : 0; }
  // The same, whatever the order's status (for taking out what a finishing order had left).
  static GpuCount storedAt(const Order& o, Hour h) {
    if (h < o.liveFrom || h >= o.req.end) return 0;
    return o.qty ? o.qty[static_cast<std::size_t>(h - o.qtyBase)] : o.req.gpus;
  }
  // The per-hour quantities of a resting order (hour h at [h - o.qtyBase]), made explicit the
  // first time they change; its entry then views them.
  GpuCount* explicitQty(Order& o);
  // Room in the engine's memory for `hours` per-hour quantities of `o`, whose earlier ones (if
  // any) are given back; and giving them back.
  GpuCount* allocateQty(Order& o, std::size_t hours);
  void releaseQty(Order& o);
  // The order in `s` gets a new sequence: entries made with the old one are dead.
  void setSeq(Slot s, std::uint64_t seq) {
    orders_[s].seq = seq;
    liveSeq_[s] = seq;
  }
  // An entry is live while its order works and has not re-entered with a new sequence since.
  bool isLive(const Entry& e) const { return liveSeq_[e.slot] == e.seq; }
  // The entry of a resting divisible order died (it stopped working or re-entered).
  void retireEntry(const Order& o) {
    o.restsIn->retire(o.level, [this](const Entry& e) { return isLive(e); });
  }
  // A sell's holdings (those of its account on its cluster, kept since submit); null for a buy.
  static Inventory::Series* sellHoldings(const Order& o) { return o.req.side == Side::Sell ? o.holdings : nullptr; }
  // Takes what a divisible order that just stopped working still had off its level (its entry
  // is dead already) and returns a sell's offers to the inventory.
  void retireEntries(const Order& o);

  // Calls f(entry) for each live entry of `l` whose window meets [from, to), in time order, until
  // f returns false. What f reads of the entry's order through the entry (whether it is live, what
  // it wants from `from` on) is loaded a few such entries ahead of the call, so the loads overlap.
  template <typename F>
  void forEachLiveIn(const PriceLevels& levels, const PriceLevels::Level& l, Hour from, Hour to, F&& f) const;
  // Loads what forEachLiveIn reads of the next entry of `l` from `cursor` on whose window meets
  // [from, to), and moves `cursor` past it.
  void prefetchNextIn(const PriceLevels& levels, const PriceLevels::Level& l, Hour from, Hour to,
                      std::size_t& cursor) const {
    for (; cursor < l.fifo.size(); ++cursor) {
      const Entry& e = l.fifo[cursor];
      if (!levels.meets(e, from, to)) continue;
      __builtin_prefetch(&liveSeq_[e.slot]);
      levels.prefetchQuantities(e, from, to);
      ++cursor;
      return;
    }
  }

  // ---- matching plans: what a walk would take, found without changing anything ----
  // A run of hours [start, end) in which one resting order gives `gpus` GPUs per hour.
  struct Take {
    Slot slot = 0;
    Hour start = 0;
    Hour end = 0;
    GpuCount gpus = 0;
    std::int32_t key = 0;
    std::uint64_t seq = 0;
  };
  // A point in an hour-by-hour walk: the hour, then priority within it.
  struct WalkPoint {
    Hour hour = 0;
    std::int32_t key = 0;
    std::uint64_t seq = 0;
    bool operator<(const WalkPoint& o) const {
      return hour != o.hour ? hour < o.hour : key != o.key ? key < o.key : seq < o.seq;
    }
  };
  enum class OwnOrders : std::uint8_t { Skip, StopAtFirst, Collect };
  struct Plan {
    std::vector<Take> takes;
    std::optional<WalkPoint> stop;                // StopAtFirst: where the walk meets its own order
    std::vector<std::pair<WalkPoint, Slot>> own;  // Collect: own orders met, and where
  };
  // Plans taking need[i] GPUs in hour from + i from the other side of order o's book, levels best
  // first (only those crossing `limit`, if set), skipping, stopping at or collecting o's own
  // orders. Reduces `need` by what it plans to take.
  // The first rank from `rank` on of `levels`, the side an order on `side` trades against, whose
  // level crosses `limit` (if set) and holds GPUs in [from, to); levelCount() if there is none.
  static std::size_t nextCrossingLevel(const PriceLevels& levels, std::size_t rank, Side side,
                                       std::optional<Price> limit, Hour from, Hour to);
  void plan(const Order& o, const PriceLevels& levels, std::optional<Price> limit, Hour from,
            std::vector<GpuCount>& need, OwnOrders own, Plan& p) const;
  // Drops what an hour-by-hour walk stopped at `stop` would not have taken, giving it back to `need`.
  static void cutAt(Plan& p, const WalkPoint& stop, Hour from, std::vector<GpuCount>& need);
  // Takes the planned runs, in the order an hour-by-hour walk takes them, and records the trades.
  // Returns the GPU-hours taken.
  std::int64_t applyTakes(PriceLevels& levels, std::vector<Take>& takes);
  // `takes` (as a plan lists them) into `sorted` by first hour, keeping their order within an hour.
  void sortByStart(const std::vector<Take>& takes, std::vector<Take>& sorted);

  bool wouldTrade(const Order& o, Price limit, Hour from, const std::vector<GpuCount>& need) const;
  bool fillOrKillPossible(const Order& o, Hour from, const std::vector<GpuCount>& need);
  // Matches `need` (GPUs per hour from `from` to the order's end) against the other side, then
  // rests what is left. `wantsEveryHour`: the order wants its GPUs in every one of those hours,
  // and `need` is only scratch, filled here if a plan needs it. Emits the trades and any
  // self-trade cancellations.
  void matchAndRest(Slot s, Hour from, std::vector<GpuCount>& need, bool wantsEveryHour, std::vector<Event>& out);
  // Asks that just started resting on `cluster` within [start, end).
  struct NewAsks {
    ClusterId cluster = 0;
    Hour start = 0;
    Hour end = 0;
  };
  // Whether a d-hour window of [from, to) in `b` may hold `gpus` GPUs within `budget`, judged
  // from the side's totals and each hour's best price alone. `bound` is scratch of to - from
  // hours; when the answer is NotByHours, it holds each hour's lower bound on the cost of `gpus`
  // GPUs (-1: the hour does not hold that many).
  enum class Fit : std::uint8_t { Not, NotByHours, May };
  // What mayFit's bounds (NotByHours) over a bid's whole window [from, ...) say it lacks.
  static ListedBid::Shortfall shortfallOf(const std::vector<Money>& bound, Hour from, Money budget);
  // Can `ask`, just rested, not complete `bid` for what the bid's shortfall says? If so, the
  // shortfall learns what the ask may have changed.
  static bool stillShort(ListedBid& bid, const OrderRequest& ask);
  static Fit mayFit(const Book& b, GpuCount gpus, Hour d, Money budget, Hour from, Hour to, std::vector<Money>& bound);
  // The hours a d-hour placement of a bid over [start, end) may use from now on: with `onlyNear`,
  // only those of placements that use some of the new asks' hours.
  std::pair<Hour, Hour> placementHours(Hour start, Hour end, Hour d, const NewAsks* onlyNear) const;
  // The cheapest feasible placement. With `onlyNear`, only placements that use hours of those
  // new asks are searched: between inputs no resting all-or-none bid can fill (every input that
  // adds asks re-checks them), and the book only ever gains asks there, so any placement that
  // became feasible uses them.
  std::optional<Placement> bestPlacement(const Order& o, GpuCount gpus, Price limit,
                                         const std::vector<ClusterId>& candidates,
                                         const NewAsks* onlyNear = nullptr) const;
  void fillAllOrNone(Slot s, const Placement& p, OrderId aggressor, std::vector<Event>& out);
  // An arriving all-or-none bid with one candidate cluster and no choice of hours: its one
  // placement is planned once, and that plan both decides whether it fills and, if so, fills it
  // (bestPlacement and then fillAllOrNone would walk the same levels twice). Nullopt if the bid is
  // not of that kind; otherwise whether it filled.
  std::optional<bool> fillFixedAllOrNone(Slot s, std::vector<Event>& out);
  // fillAllOrNone once scratchPlan_ holds the takes that fill bid `s` on `cluster`.
  void applyAllOrNoneFill(Slot s, ClusterId cluster, OrderId aggressor, std::vector<Event>& out);
  // Resting all-or-none bids that may use an ask on `cluster` over [start, end), in priority order.
  std::vector<Slot> allOrNoneBidsTouching(ClusterId cluster, Hour start, Hour end);
  void recheckAllOrNone(Slot ask, std::vector<Event>& out);
  // Would post-only `sell`, resting at `limit` with need[i] GPUs in hour from + i, complete a
  // resting all-or-none bid? Tried by resting a stand-in for a moment and taking it out again.
  // `resting`: the slot of the order when an amend re-enters it (its own entry does not count).
  bool sellWouldCompleteAllOrNone(const OrderRequest& sell, std::optional<Slot> resting, Price limit, Hour from,
                                  const std::vector<GpuCount>& need);
  void restAllOrNone(Slot s);
  void unlistAllOrNone(Slot s);
  // Removes everything the order still has working; emits OrderCancelled.
  void removeRemaining(Slot s, CancelReason reason, std::vector<Event>& out);
  void flushTrades(std::vector<Event>& out);
  OrderView view(const Order& o) const { return OrderView{o.req, o.status, o.filled, o.leaves}; }

  // slotOf_ maps an order id to its slot while it works, and to its index in finished_, tagged
  // with this bit, once it has stopped.
  static constexpr Slot kFinishedTag = Slot{1} << 31;

  // First, so that it outlives everything that holds its memory.
  EngineMemory memory_;
  MarketState state_;
  // Working orders by slot, and free slots; growth never moves orders. A stopped order's slot is
  // reused, so this stays the size of the live book.
  PagedVector<Order, 12> orders_;
  // By slot: the order's sequence while it works, else 0. What a walk asks of every entry it
  // passes (is it live?), in 8 bytes a slot that stay in the cache, not in the order's record.
  std::vector<std::uint64_t> liveSeq_;
  std::vector<Slot> freeSlots_;
  std::vector<Slot> stopped_;  // stopped during this input: freed when it is done
  FinishedOrders finished_;
  TermsTable terms_;  // working sell orders' terms (Order::terms)
  OrderIdIndex slotOf_;
  std::unordered_map<ClusterId, Book> books_;
  std::uint64_t lastSeq_ = 0;
  std::vector<GpuCount> scratchNeed_;
  Plan scratchPlan_;
  std::vector<Take> sortedTakes_;            // applyTakes'
  std::vector<std::uint32_t> takesPerHour_;  // sortByStart's
  // bestPlacement's, which is asked for every resting all-or-none bid an ask may complete
  mutable std::vector<Money> scratchCost_;
  mutable std::vector<GpuCount> scratchWant_;
};

template <typename F>
void MatchingEngine::forEachLiveIn(const PriceLevels& levels, const PriceLevels::Level& l, Hour from, Hour to,
                                   F&& f) const {
  std::size_t ahead = l.head;
  for (int i = 0; i < 4; ++i) prefetchNextIn(levels, l, from, to, ahead);
  for (std::size_t k = l.head; k < l.fifo.size(); ++k) {
    const Entry& e = l.fifo[k];
    if (!levels.meets(e, from, to)) continue;
    prefetchNextIn(levels, l, from, to, ahead);
    if (!isLive(e)) continue;
    if (!f(levels.read(e))) return;
  }
}

}  // namespace tessera
