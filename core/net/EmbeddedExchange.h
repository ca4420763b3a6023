#pragma once
// A complete exchange server inside the calling process, on 127.0.0.1 and an ephemeral port,
// for the terminal's default "live market" mode and for tests. It is the same server as
// tessera-exchange (same protocol, same journal code), just started from a config in memory.
#include "core/domain/AccountDirectory.h"
#include "core/engine/Events.h"
#include "core/net/ExchangeConfig.h"

#include <cstdint>
#include <memory>
#include <string_view>

namespace tessera::net {

class ExchangeServer;

// The demo configs' forward-dealer account; its API key is the same word.
inline constexpr std::string_view kForwardDealerAccount = "forward-dealer";
// ... and its option dealer's (OptionDealer), with the same rule for the key.
inline constexpr std::string_view kOptionDealerAccount = "option-dealer";

class EmbeddedExchange {
 public:
  explicit EmbeddedExchange(ExchangeConfig config);
  ~EmbeddedExchange();  // stops

  void start();  // binds and starts serving; throws std::runtime_error if it cannot
  void stop();
  std::uint16_t port() const;
  // After start(): journal entries replayed (0 for a fresh journal) and the clock they left.
  std::uint64_t replayedEntries() const;
  Hour clockAtStart() const;

  // Feeds an input from an in-process source (e.g. a simulated market) through the same path
  // as network orders, journaled. Thread-safe. `account` (if given) names the account for
  // orders, cancels, amends and grants, overriding the event's AccountId. Order, cancel and
  // amend ids are the feeder's own: they become client order ids of that account, so the
  // feeder can cancel and amend what it placed with the ids it chose.
  void inject(const InputEvent& event, std::string_view account = {});
  // The same, naming the account by the event's AccountId in the feeder's own directory (e.g.
  // the AccountDirectory a backtest SimulatedMarket was built with).
  void inject(const InputEvent& event, const AccountDirectory& feederAccounts);
  // A delivery problem from the feeder: `outage.provider`'s cluster lost GPUs for some hours.
  // Applied exactly like that provider's `outage` message (journaled, remedies, notices), on
  // the matching thread before the next injected input. Thread-safe.
  void reportOutage(FeederOutage outage);
  // A reclaim of interruptible capacity from the feeder's provider, spread over its contracts
  // on the cluster and applied like that provider's `reclaim` messages. Thread-safe.
  void reportReclaim(FeederReclaim reclaim);

  // A ready market: three H100/H200/MI300X clusters, house accounts "house-mm" and
  // "house-provider" (capacity granted on every cluster for a week from `now`), and a trader
  // account `trader` with API key `traderKey` and $1,000,000 cash. Port 0. The journal is
  // `journalPath` (":memory:" for one that dies with the process); a journal file that already
  // holds entries is replayed on start instead, and this market is not opened.
  static ExchangeConfig demoConfig(Hour now, std::string_view trader = "trader", std::string_view traderKey = "trader",
                                   std::string_view journalPath = ":memory:");
  // An empty market for a feeder that brings its own clusters, grants, orders and clock (a
  // SimulatedMarket): only the trader account, clock at `start` (the feeder's first hour or
  // earlier), the wall clock not followed. Port 0, journal as in demoConfig.
  static ExchangeConfig feederConfig(Hour start, std::string_view trader = "trader",
                                     std::string_view traderKey = "trader", std::string_view journalPath = ":memory:");

  // The call mode the terminal's embedded exchange trades in when the user chooses calls
  // (Settings, tessera --market-mode calls): every cluster, constraint orders included, in calls
  // every 30 seconds of wall time, each call's solver bounded to one second so the market
  // stays lively.
  static CallModeConfig demoCallMode();

  ExchangeServer& server();

 private:
  std::shared_ptr<FeederReports> reports_;
  std::unique_ptr<ExchangeServer> server_;
};

}  // namespace tessera::net
