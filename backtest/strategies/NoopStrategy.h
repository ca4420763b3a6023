#pragma once
// Does nothing: measures the replay itself, and is the baseline of comparisons.
#include "backtest/Strategy.h"

namespace tessera::backtest {

class NoopStrategy final : public Strategy {
 public:
  std::string name() const override { return "noop"; }
  bool wantsBookUpdates() const override { return false; }
};

}  // namespace tessera::backtest
