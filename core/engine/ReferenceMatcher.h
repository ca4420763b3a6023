#pragma once
// The naive, obviously-correct matcher: every query scans every order. It exists to be compared
// with MatchingEngine on random scripts; it is far too slow for a market.
#include "core/engine/MarketState.h"

#include <map>

namespace tessera {

class ReferenceMatcher final : public Matcher {
 public:
  void apply(const InputEvent& in, std::vector<Event>& out) override;

  Hour now() const override { return state_.now; }
  const Cluster* cluster(ClusterId id) const override { return state_.clusters.find(id); }
  std::vector<Cluster> clusters() const override { return state_.clusters.all(); }
  std::optional<OrderView> order(OrderId id) const override;
  void forget(OrderId id) override;
  std::vector<OrderView> workingOrders(AccountId account) const override;
  std::vector<BookLevel> depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const override;
  std::vector<OrderView> allOrNoneBids(ClusterId cluster) const override;
  std::optional<Contract> contract(ContractId id) const override { return state_.contracts.find(id); }
  std::vector<Contract> contractsOf(AccountId account) const override { return state_.contracts.of(account); }
  void forgetContract(ContractId id) override { state_.contracts.forget(id); }
  Holding holding(AccountId account, ClusterId cluster, Hour hour) const override {
    return state_.holding(account, cluster, hour);
  }

 private:
  struct Order {
    OrderRequest req;
    std::uint64_t seq = 0;  // time priority
    OrderStatus status = OrderStatus::Working;
    std::int64_t filled = 0;
    std::map<Hour, GpuCount> remaining;  // divisible orders: what is left in each hour
    std::vector<ClusterId> accepted;     // all-or-none: clusters it could trade on when accepted
    std::vector<ClusterId> candidates;   // ... of those, the ones that hold its current GPU count
    bool aon() const { return req.fill == FillStyle::AllOrNone; }
    std::int64_t leaves() const;
  };
  struct Placement {
    ClusterId cluster = 0;
    Hour start = 0;
    Money cost = 0;
    RankedCost rank = 0;  // cost times the buyer's cost factor for the cluster
  };

  void submit(const OrderRequest& o, std::vector<Event>& out);
  // The request of the order at `it` if it is working, else null.
  const OrderRequest* workingRequest(std::map<OrderId, Order>::const_iterator it) const;
  void cancel(const CancelRequest& c, std::vector<Event>& out);
  void amend(const AmendRequest& a, std::vector<Event>& out);
  void advance(const ClockAdvance& c, std::vector<Event>& out);

  std::vector<Order*> ladder(ClusterId cluster, Hour hour, Side side);
  std::vector<const Order*> ladder(ClusterId cluster, Hour hour, Side side) const;
  bool wouldTrade(const Order& o, Price limit, const std::map<Hour, GpuCount>& need) const;
  bool fillOrKillPossible(const Order& o) const;
  void matchDivisible(Order& o, std::vector<Event>& out);
  std::optional<Placement> bestPlacement(const Order& o) const;
  void fillAllOrNone(Order& o, const Placement& p, OrderId aggressor, std::vector<Event>& out);
  // Resting all-or-none bids that may use an ask on `cluster` over [start, end), in priority order.
  std::vector<Order*> allOrNoneBidsTouching(ClusterId cluster, Hour start, Hour end);
  void recheckAllOrNone(const Order& ask, std::vector<Event>& out);
  // Would sell `o`, resting as it is (new, or re-entered by an amend), complete a resting
  // all-or-none bid?
  bool sellWouldCompleteAllOrNone(const Order& o);
  void removeRemaining(Order& o, OrderStatus status, CancelReason reason, std::vector<Event>& out);
  void flushTrades(std::vector<Event>& out);
  OrderView view(const Order& o) const;

  MarketState state_;
  std::map<OrderId, Order> orders_;
  std::vector<OrderId> arrival_;  // order ids in the order they were accepted
  std::uint64_t lastSeq_ = 0;
};

}  // namespace tessera
