#pragma once
// The fast matcher. Each (cluster, hour) cell keeps a price-time ladder per side as a sorted
// vector with the best entry at the back, so matching pops from the end and most inserts land
// near the front of a short vector. All-or-none bids rest outside the ladders, indexed by the
// clusters they may trade on, and are re-checked when asks arrive on those clusters.
#include "core/engine/MarketState.h"
#include "core/engine/OrderIdIndex.h"

#include <deque>
#include <unordered_map>

namespace tessera {

class MatchingEngine final : public Matcher {
 public:
  MatchingEngine();
  void apply(const InputEvent& in, std::vector<Event>& out) override;

  Hour now() const override { return state_.now; }
  const Cluster* cluster(ClusterId id) const override { return state_.clusters.find(id); }
  std::vector<Cluster> clusters() const override { return state_.clusters.all(); }
  std::optional<OrderView> order(OrderId id) const override;
  std::vector<OrderView> workingOrders(AccountId account) const override;
  std::vector<BookLevel> depth(ClusterId cluster, Hour hour, Side side,
                               std::size_t maxLevels) const override;
  std::vector<OrderView> allOrNoneBids(ClusterId cluster) const override;
  std::optional<Contract> contract(ContractId id) const override { return state_.contracts.find(id); }
  std::vector<Contract> contractsOf(AccountId account) const override { return state_.contracts.of(account); }
  Holding holding(AccountId account, ClusterId cluster, Hour hour) const override {
    return state_.holding(account, cluster, hour);
  }

 private:
  using Slot = std::uint32_t;
  struct Entry {
    Price key = 0;          // asks: price; bids: -price, so "smaller is better" on both sides
    std::uint64_t seq = 0;  // time priority
    Slot slot = 0;
    GpuCount qty = 0;
  };
  struct Ladder {
    std::vector<Entry> entries;  // descending by (key, seq): the best entry is at the back
  };
  struct Cell {
    Ladder ladders[2];  // indexed by Side
    std::int64_t askGpus = 0;
  };
  struct Book {
    Hour base = 0;
    std::vector<Cell> cells;
    std::vector<Slot> allOrNoneBids;  // resting all-or-none bids that may trade here
  };
  struct Order {
    OrderRequest req;
    std::uint64_t seq = 0;
    OrderStatus status = OrderStatus::Working;
    std::int64_t filled = 0;
    std::int64_t leaves = 0;
    Hour liveFrom = 0;                  // divisible: hours before this have no entries left
    std::vector<ClusterId> accepted;    // all-or-none: clusters it could trade on when accepted
    std::vector<ClusterId> candidates;  // ... of those, the ones that hold its current GPU count
    bool listed = false;                // all-or-none: in its candidates' allOrNoneBids
    bool aon() const { return req.fill == FillStyle::AllOrNone; }
  };
  struct Placement {
    ClusterId cluster = 0;
    Hour start = 0;
    Money cost = 0;
    RankedCost rank = 0;  // cost times the buyer's cost factor for the cluster
  };

  void submit(const OrderRequest& o, std::vector<Event>& out);
  // The request of the order in `s` if it is working, else null.
  const OrderRequest* workingRequest(std::optional<Slot> s) const;
  void cancel(const CancelRequest& c, std::vector<Event>& out);
  void amend(const AmendRequest& a, std::vector<Event>& out);
  void advance(const ClockAdvance& c, std::vector<Event>& out);

  Book& book(ClusterId c);
  const Book* findBook(ClusterId c) const;
  Cell& cell(Book& b, Hour h);
  static Cell* findCell(Book& b, Hour h);
  static const Cell* findCell(const Book& b, Hour h);
  static Price keyOf(Side s, Price limit) { return s == Side::Sell ? limit : -limit; }
  static std::size_t indexOf(const Ladder& l, Price key, std::uint64_t seq);  // npos if absent
  void insertEntry(Cell& c, Side s, const Entry& e);
  void eraseEntry(Cell& c, Side s, std::size_t index);
  GpuCount remainingAt(const Order& o, Hour h) const;

  bool wouldTrade(const Order& o, Price limit, Hour from, const std::vector<GpuCount>& need) const;
  bool fillOrKillPossible(const Order& o, Hour from, const std::vector<GpuCount>& need) const;
  // Matches `need` (GPUs per hour from `from`) against the opposite ladders, then rests what is
  // left. Emits the trades and any self-trade cancellations.
  void matchAndRest(Slot s, Hour from, std::vector<GpuCount>& need, std::vector<Event>& out);
  std::optional<Placement> bestPlacement(const Order& o, GpuCount gpus, Price limit,
                                         const std::vector<ClusterId>& candidates) const;
  void fillAllOrNone(Slot s, const Placement& p, OrderId aggressor, std::vector<Event>& out);
  // Resting all-or-none bids that may use an ask on `cluster` over [start, end), in priority order.
  std::vector<Slot> allOrNoneBidsTouching(ClusterId cluster, Hour start, Hour end);
  void recheckAllOrNone(Slot ask, std::vector<Event>& out);
  // Would a post-only sell complete a resting all-or-none bid if it rested? Tried by resting it
  // for a moment and taking it out again.
  bool sellWouldCompleteAllOrNone(const Order& o);
  void restAllOrNone(Slot s);
  void unlistAllOrNone(Slot s);
  // Removes everything the order still has working; emits OrderCancelled.
  void removeRemaining(Slot s, CancelReason reason, std::vector<Event>& out);
  void flushTrades(std::vector<Event>& out);
  OrderView view(const Order& o) const { return OrderView{o.req, o.status, o.filled, o.leaves}; }

  MarketState state_;
  std::deque<Order> orders_;  // by slot, in arrival order; a deque, so growth never moves orders
  OrderIdIndex slotOf_;
  std::deque<Slot> working_;  // compacted on clock advance; a deque, so growth never copies it
  std::unordered_map<ClusterId, Book> books_;
  std::uint64_t lastSeq_ = 0;
  std::vector<GpuCount> scratchNeed_;
  std::vector<Event> scratchCancels_;
};

}  // namespace tessera
