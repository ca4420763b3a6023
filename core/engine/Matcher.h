#pragma once
// The interface shared by the fast MatchingEngine and the naive ReferenceMatcher, so the two can
// be run side by side on the same scripts and compared event for event.
#include "core/engine/Events.h"

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace tessera {

enum class OrderStatus : std::uint8_t { Working, Filled, Cancelled };

// A resting or finished order as the engine sees it now.
struct OrderView {
  OrderRequest request;  // as accepted (after amends)
  OrderStatus status = OrderStatus::Working;
  std::int64_t filledGpuHours = 0;
  std::int64_t leavesGpuHours = 0;  // still working
  bool operator==(const OrderView&) const = default;
};

// One price level of one (cluster, hour) cell.
struct BookLevel {
  Price price = 0;
  GpuCount gpus = 0;
  int orders = 0;
  OfferTerms terms{};  // the terms of the level's first order in time priority (sell side)
  bool operator==(const BookLevel&) const = default;
};

// Holdings of one account on one (cluster, hour): what it owns or holds, and what of that
// is currently offered for sale by its working sell orders.
struct Holding {
  GpuCount held = 0;
  GpuCount offered = 0;
  bool operator==(const Holding&) const = default;
};

// Used from one thread at a time, queries included: they are const, but may bring caches and
// indexes up to date (the book's per-hour bounds, the contracts listed per account).
class Matcher {
 public:
  virtual ~Matcher() = default;

  // Applies one input event and appends every resulting event to `out`.
  virtual void apply(const InputEvent& in, std::vector<Event>& out) = 0;

  virtual Hour now() const = 0;
  virtual const Cluster* cluster(ClusterId id) const = 0;
  virtual std::vector<Cluster> clusters() const = 0;

  virtual std::optional<OrderView> order(OrderId id) const = 0;
  // Drops a finished order (filled or cancelled): order(id) knows it no more and its memory is
  // reused. What holds it elsewhere (the exchange's archive of finished orders) answers for it
  // from then on. Its id must never be sent again. A working or unknown id is a bug
  // (std::logic_error). Nothing the engine matches depends on finished orders, so forgetting
  // them changes no later event.
  virtual void forget(OrderId id) = 0;
  virtual std::vector<OrderView> workingOrders(AccountId account) const = 0;

  // Divisible orders resting in a cell, best first, aggregated by price.
  virtual std::vector<BookLevel> depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const = 0;
  // depth() of every hour of [from, to) at once: out[i] is depth(cluster, from + i, side,
  // maxLevels). An order spanning many hours changes all their cells, and the fast engine
  // answers them in one walk of each level instead of one walk per hour.
  virtual void depthRange(ClusterId cluster, Hour from, Hour to, Side side, std::size_t maxLevels,
                          std::vector<std::vector<BookLevel>>& out) const {
    out.clear();
    for (Hour h = from; h < to; ++h) out.push_back(depth(cluster, h, side, maxLevels));
  }
  // Resting all-or-none bids that could trade on `cluster` (named or via constraints).
  virtual std::vector<OrderView> allOrNoneBids(ClusterId cluster) const = 0;

  virtual std::optional<Contract> contract(ContractId id) const = 0;
  virtual std::vector<Contract> contractsOf(AccountId account) const = 0;
  // Drops a settled contract: contract(id) and contractsOf() know it no more and its memory is
  // reused; what holds it elsewhere (the exchange's archive of settled contracts) answers for it.
  // An unknown or already forgotten id is a bug (std::logic_error). The engine reads a contract
  // only for a replacement (CapacityTransfer) or a sell-back, both inside the contract's hours,
  // so forgetting one whose hours are over changes no later event but the text of a refusal: a
  // sell-back naming it is refused as an unknown contract instead of outside its contract.
  virtual void forgetContract(ContractId id) = 0;
  virtual Holding holding(AccountId account, ClusterId cluster, Hour hour) const = 0;
};

// `prefaultBytes`: memory the engine takes in huge pages and faults in before it returns, so
// that a book up to about that size never waits for the kernel mid-input (see EngineMemory).
// Beyond it, and with 0, the engine's memory comes in ordinary pages as it is needed.
std::unique_ptr<Matcher> makeMatchingEngine(std::size_t prefaultBytes = 0);
std::unique_ptr<Matcher> makeReferenceMatcher();

}  // namespace tessera
