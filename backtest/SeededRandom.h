#pragma once
// A small PRNG whose output is fixed by the seed on every platform. The standard library's
// distributions are implementation-defined, so a history generated with them would differ
// between compilers; these helpers are defined here bit for bit.
#include <cstdint>

namespace tessera::backtest {

class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : state_(seed ^ 0x9E3779B97F4A7C15ULL) {}

  // splitmix64: tiny, fast and good enough for a market simulation.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * unit(); }
  // Uniform integer in [lo, hi] (inclusive).
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    return lo + static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(double p) { return unit() < p; }

 private:
  std::uint64_t state_;
};

}  // namespace tessera::backtest
