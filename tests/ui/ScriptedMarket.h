#pragma once
// A small, hand-made market for GUI tests: one cluster, a provider's asks at known prices,
// so the expected ticket quote can be worked out by hand.
#include "ui/session/MarketFeed.h"

#include <utility>

namespace tessera::ui::testing {

inline constexpr Hour kT0 = 20'000 * kHoursPerDay;  // the exchange clock in these tests
inline constexpr ClusterId kCluster = 1;
inline constexpr Price kCheap = 2'000'000;  // 16 GPUs at $2.00
inline constexpr Price kDear = 2'500'000;   // 8 more at $2.50
inline constexpr Hour kAskStart = kT0 + 2;
inline constexpr Hour kAskEnd = kT0 + 10;

inline Cluster testCluster() {
  Cluster c;
  c.id = kCluster;
  c.name = "test-us-east-h100";
  c.provider = "testco";
  c.region = "us-east";
  c.nodeCount = 4;  // 32 GPUs
  return c;
}

// Everything in the first step, nothing after.
class ScriptedFeed : public MarketFeed {
 public:
  explicit ScriptedFeed(AccountDirectory& accounts) {
    const AccountId provider = accounts.intern("provider");
    inputs_.push_back(testCluster());
    inputs_.push_back(ClockAdvance{kT0});
    inputs_.push_back(CapacityGrant{provider, kCluster, 32, kT0, kT0 + 48});
    OrderRequest a;
    a.id = 1;
    a.account = provider;
    a.side = Side::Sell;
    a.cluster = kCluster;
    a.gpus = 16;
    a.start = kAskStart;
    a.end = kAskEnd;
    a.limit = kCheap;
    OrderRequest b = a;
    b.id = 2;
    b.gpus = 8;
    b.limit = kDear;
    inputs_.push_back(a);
    inputs_.push_back(b);
  }
  std::vector<InputEvent> step() override { return std::exchange(inputs_, {}); }
  std::string describe() const override { return "scripted test market"; }

  static MarketFeedFactory factory() {
    return [](AccountDirectory& accounts) -> std::unique_ptr<MarketFeed> {
      return std::make_unique<ScriptedFeed>(accounts);
    };
  }

 private:
  std::vector<InputEvent> inputs_;
};

}  // namespace tessera::ui::testing
