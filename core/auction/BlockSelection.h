#pragma once
// Which blocks a call accepts: the welfare-maximising mixed-integer programme of
// docs/matching.md ("The clearing problem", steps 1-4), single-threaded with fixed seeds.
// Divisible steps enter as each (cluster, hour)'s curve of surplus against the GPUs the blocks
// take there: the hourly clearing (HourlyClearing) shares them out afterwards, exactly. The
// bound is the Lagrangian one at the relaxation's prices (exact, in micro-dollars) or CBC's.
#include "core/auction/ClearingProblem.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace tessera::auction {

struct SolverLimits {
  double seconds = 10.0;  // time limit of one solve (makes a result machine-dependent)
  // The time limit counts this thread's CPU seconds instead of the wall clock, so a loaded
  // machine does not cut the solve short (CBC's own limit, in calls small enough for it, counts
  // the process's CPU seconds either way).
  bool threadCpuTime = false;
  int nodes = 1'000'000;     // branch-and-bound nodes (deterministic)
  int seed = 1;              // CBC's and CLP's random seeds
  double relativeGap = 0.0;  // stop once the proven gap is at most this
  // CBC's primal heuristics. The no-PAB loop's later rounds turn them off: the branch and bound
  // of a round that only excludes blocks finds its solution at the root, and the heuristics
  // then take most of its time.
  bool heuristics = true;
};

// The clock a time limit counts: the wall clock, or the calling thread's CPU time.
class SolveClock {
 public:
  explicit SolveClock(bool threadCpuTime);
  double seconds() const;  // since construction

 private:
  double now() const;
  bool threadCpuTime_;
  double start_;
};

struct BlockSelectionResult {
  std::vector<char> accepted;  // per block
  double welfare = 0.0;        // the programme's objective, dollars
  double bound = 0.0;          // proven upper bound on it, dollars
  bool optimal = false;        // proven optimal (within relativeGap)
  bool stoppedOnTime = false;
  std::int64_t nodes = 0;
};

// Cuts added by the no-paradoxically-accepted-block loop.
struct SelectionCuts {
  std::vector<std::vector<char>> excluded;  // "not exactly this selection"
  std::vector<char> forbidden;              // per block: must not be accepted
};

// The block selection of one call across the rounds of the no-PAB loop: it keeps the
// relaxation (its columns and warm basis) from round to round, so a round that forbids a few
// blocks starts where the last one ended. Rounds are a function of the cuts given so far.
class BlockSelector {
 public:
  BlockSelector(const ClearingProblem& problem, int seed);
  ~BlockSelector();
  BlockSelector(const BlockSelector&) = delete;
  BlockSelector& operator=(const BlockSelector&) = delete;
  [[nodiscard]] BlockSelectionResult select(const SelectionCuts& cuts, const SolverLimits& limits);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// One round on its own: BlockSelector(problem, limits.seed).select(cuts, limits).
[[nodiscard]] BlockSelectionResult selectBlocks(const ClearingProblem& problem, const SelectionCuts& cuts,
                                                const SolverLimits& limits);

}  // namespace tessera::auction
