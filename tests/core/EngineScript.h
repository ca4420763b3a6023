#pragma once
// A small vocabulary for writing engine rule tests by hand: a market with a few clusters and
// providers, and builders for the orders sent to it.
#include "core/engine/Matcher.h"

#include <vector>

namespace tessera::testing {

inline constexpr AccountId kProvider = 1;
inline constexpr AccountId kProvider2 = 2;
inline constexpr AccountId kAlice = 3;
inline constexpr AccountId kBob = 4;

constexpr Price usd(double dollars) { return static_cast<Price>(dollars * kMicrosPerDollar + 0.5); }

Cluster makeCluster(ClusterId id, Accelerator a, const char* region, int nodes, FabricClass fabric);

OrderRequest ask(OrderId id, AccountId who, ClusterId c, GpuCount gpus, Hour start, Hour end, Price limit);
OrderRequest bid(OrderId id, AccountId who, ClusterId c, GpuCount gpus, Hour start, Hour end, Price limit);
OrderRequest allOrNone(OrderId id, AccountId who, ClusterId c, GpuCount gpus, Hour start, Hour end, Price limit);

// Runs inputs and keeps every event, with small queries over them.
class EngineHarness {
 public:
  explicit EngineHarness(std::unique_ptr<Matcher> m) : m_(std::move(m)) {}
  std::vector<Event> send(const InputEvent& in);
  Matcher& matcher() { return *m_; }
  const std::vector<Event>& all() const { return all_; }
  std::vector<Contract> contractsFor(OrderId buyOrder) const;

 private:
  std::unique_ptr<Matcher> m_;
  std::vector<Event> all_;
};

template <typename T>
std::vector<T> eventsOf(const std::vector<Event>& events) {
  std::vector<T> out;
  for (const auto& e : events)
    if (const auto* x = std::get_if<T>(&e)) out.push_back(*x);
  return out;
}

}  // namespace tessera::testing
