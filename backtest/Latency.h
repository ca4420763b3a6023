#pragma once
// Latency models of a replay: how long a strategy's order takes to reach the exchange (order
// entry), how long the exchange's answer about its own orders takes to come back
// (acknowledgements: accepted, rejected, cancelled, amended, its own fills), and how long the
// market data takes (trades, book changes, the clock). Each is fixed, drawn from a seeded
// distribution, or drawn from a measured file of latencies.
//
// Determinism: every draw comes from a per-channel SeededRandom seeded from `seed`, in the
// order the replay asks (itself a pure function of the history and the strategy), so the same
// model and seed give the same latencies. The exponential and lognormal draws use libm's log,
// exp and cos: byte-identical on one platform (glibc here), not promised across C libraries.
// Each channel keeps its messages in order, as one connection does: a draw that would let a
// message overtake an earlier one on the same channel delivers it together with that one.
#include "backtest/SeededRandom.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tessera::backtest {

enum class LatencyKind { Fixed, Exponential, Lognormal, Measured };

struct LatencyDistribution {
  LatencyKind kind = LatencyKind::Fixed;
  std::int64_t fixedMicros = 0;       // Fixed
  double meanMicros = 0;              // Exponential
  double medianMicros = 0;            // Lognormal: exp(mu)
  double sigma = 0;                   // Lognormal: of the underlying normal
  std::vector<std::int64_t> samples;  // Measured: one latency per line of the file, microseconds
  std::string source;                 // Measured: the file's name, for the description

  static LatencyDistribution fixed(std::int64_t micros) {
    LatencyDistribution d;
    d.fixedMicros = micros;
    return d;
  }
  bool isZero() const { return kind == LatencyKind::Fixed && fixedMicros == 0; }
  // A canonical text ("fixed:200", "exp:50", "lognormal:100,0.5", "file:lat.txt#n=3,fnv=...")
  // that reports print and shard headers compare: a measured file is named by its contents.
  std::string describe() const;
};

// Parses "200" or "fixed:200" (microseconds), "exp:MEAN", "lognormal:MEDIAN,SIGMA" or
// "file:PATH" (one non-negative latency in microseconds per line; blank lines and lines
// starting with # are skipped). Negative values, unknown kinds and unreadable files are errors.
std::variant<LatencyDistribution, std::string> parseLatency(std::string_view spec);

struct LatencyModel {
  LatencyDistribution orderEntry;  // strategy action -> engine
  LatencyDistribution ack;         // engine -> strategy, about the strategy's own orders
  LatencyDistribution marketData;  // engine -> strategy, trades, book changes and the clock
  std::uint64_t seed = 1;          // of the distributions' draws

  bool isZero() const { return orderEntry.isZero() && ack.isZero() && marketData.isZero(); }
  // "order=fixed:200 ack=exp:50 md=fixed:0 seed=1": what reports and shard headers record.
  std::string describe() const;
};

// Draws one channel's latencies (see the header comment for the ordering guarantee).
class LatencyChannel {
 public:
  LatencyChannel(const LatencyDistribution& d, std::uint64_t seed, std::uint64_t channel);
  // When a message sent at `sentMicros` arrives.
  std::int64_t arrival(std::int64_t sentMicros);

 private:
  std::int64_t draw();
  LatencyDistribution d_;
  SeededRandom rng_;
  std::int64_t last_ = 0;
  bool any_ = false;
};

}  // namespace tessera::backtest
