#pragma once
// A source of market activity for the in-process exchange: the simulated market's providers
// and buyers, or a recorded session being replayed.
#include "core/domain/AccountDirectory.h"
#include "core/engine/Events.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tessera::ui {

class MarketFeed {
 public:
  virtual ~MarketFeed() = default;
  // The next inputs to apply, in arrival order.
  virtual std::vector<InputEvent> step() = 0;
  // A short description for the status bar ("simulated market, seed 7").
  virtual std::string describe() const = 0;
};

// Feeds are made by the backend, on its thread, with the account directory the exchange
// shares with the terminal's own account (participants' names are interned there).
using MarketFeedFactory = std::function<std::unique_ptr<MarketFeed>(AccountDirectory& accounts)>;

}  // namespace tessera::ui
