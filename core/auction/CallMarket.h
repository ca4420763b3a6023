#pragma once
// A market that trades in calls: it takes the engine's inputs, collects the orders of each
// call period and clears them together at every clock step (docs/matching.md, "Call
// auction"). Orders that do not trade fully stay for the next call with what they still want
// (divisible: per hour; all-or-none: whole) until they expire, are cancelled or filled.
// Capacity grants are not checked here: whoever feeds it lists only what its sellers hold (the
// simulated market does).
#include "core/auction/CallAuction.h"
#include "core/engine/Events.h"

#include <map>
#include <optional>
#include <vector>

namespace tessera::auction {

class CallMarket {
 public:
  explicit CallMarket(CallOptions options = {}) : options_(options) {}

  // Applies one input. A clock that moves forward runs the call at the new clock and returns it.
  [[nodiscard]] std::optional<CallResult> apply(const InputEvent& in);

  Hour now() const { return now_; }
  std::size_t workingOrders() const { return working_.size(); }
  const std::vector<Cluster>& clusters() const { return clusters_; }

  // For a market that calls on its own schedule (the exchange's call mode, core/net/CallDesk):
  // the working orders in arrival order, the clock moved without a call, the clearing of the
  // working orders now without changing them, what a clearing leaves working carried over, and
  // the state rebuilt from a snapshot.
  const std::vector<CallEntry>& working() const { return working_; }
  const CallEntry* find(OrderId id) const;
  void setClock(Hour now) { now_ = std::max(now_, now); }
  [[nodiscard]] CallResult clear() const;
  // Entry `e` after an amend to `limit` and/or `gpus` (as in continuous trading: a divisible
  // order's wanted GPUs change by the difference in every hour, not below 0; an all-or-none
  // order's block takes the new size). apply(AmendRequest) makes exactly this change.
  static CallEntry amended(CallEntry e, std::optional<Price> limit, std::optional<GpuCount> gpus);
  // Whether an amend keeps the order's place in arrival order (which breaks ties in a call):
  // price unchanged and GPUs not growing; otherwise it moves behind every working order.
  static bool keepsPlace(const OrderRequest& before, const OrderRequest& after);
  void carry(const CallResult& r);
  void restore(Hour now, std::vector<CallEntry> working);

 private:
  CallResult call();

  CallOptions options_;
  Hour now_ = 0;
  std::vector<Cluster> clusters_;
  std::map<OrderId, std::size_t> index_;  // order id -> position in working_
  std::vector<CallEntry> working_;        // arrival order
};

}  // namespace tessera::auction
