#pragma once
// A read-only Matcher over a client's BookMirror, so code written against the engine's queries
// (the planner's candidatesFromBook) runs unchanged on a remote exchange's book. Only the book
// queries answer; the terminal never applies inputs to it.
#include "core/net/BookMirror.h"

namespace tessera::ui {

class MirrorMatcher : public Matcher {
 public:
  MirrorMatcher(net::BookMirror book, std::vector<Cluster> clusters, Hour now);

  void apply(const InputEvent& in, std::vector<Event>& out) override;  // a bug to call: throws
  Hour now() const override { return now_; }
  const Cluster* cluster(ClusterId id) const override;
  std::vector<Cluster> clusters() const override { return clusters_; }
  std::optional<OrderView> order(OrderId) const override { return std::nullopt; }
  void forget(OrderId) override;  // a bug to call: throws
  std::vector<OrderView> workingOrders(AccountId) const override { return {}; }
  std::vector<BookLevel> depth(ClusterId cluster, Hour hour, Side side, std::size_t maxLevels) const override;
  std::vector<OrderView> allOrNoneBids(ClusterId) const override { return {}; }
  std::optional<Contract> contract(ContractId) const override { return std::nullopt; }
  std::vector<Contract> contractsOf(AccountId) const override { return {}; }
  void forgetContract(ContractId) override;  // a bug to call: throws
  Holding holding(AccountId, ClusterId, Hour) const override { return {}; }

 private:
  net::BookMirror book_;
  std::vector<Cluster> clusters_;
  Hour now_;
};

}  // namespace tessera::ui
