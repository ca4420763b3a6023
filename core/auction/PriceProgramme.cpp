#include "core/auction/PriceProgramme.h"

#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>

#include <cmath>

namespace tessera::auction {

__extension__ using Wide = __int128;  // sums of notionals can exceed int64

Money blockLoss(const ClearingProblem& problem, std::size_t block, const std::vector<Price>& prices) {
  const Block& k = problem.blocks[block];
  const std::size_t r0 = problem.row(k.cluster, k.start);
  Wide sum = 0;
  for (Hour h = k.start; h < k.end; ++h) sum += prices[r0 + static_cast<std::size_t>(h - k.start)];
  const Wide value = static_cast<Wide>(k.limit) * (k.end - k.start);
  const Wide perGpu = problem.orders[k.order].side == Side::Buy ? sum - value : value - sum;
  return static_cast<Money>(perGpu * k.gpus);
}

std::optional<std::vector<Price>> solvePrices(const ClearingProblem& problem, const std::vector<char>& accepted,
                                              const HourlyClearing& clearing) {
  const std::size_t n = problem.rows.size();
  std::vector<Price> targets(n);
  for (std::size_t r = 0; r < n; ++r) targets[r] = clearing.rows[r].target;
  std::vector<std::size_t> chosen;
  for (std::size_t b = 0; b < problem.blocks.size(); ++b)
    if (accepted[b]) chosen.push_back(b);
  if (chosen.empty()) return targets;  // the targets lie in the intervals
  bool allInMoney = true;
  for (std::size_t b : chosen) allInMoney = allInMoney && blockLoss(problem, b, targets) <= 0;
  if (allInMoney) return targets;

  // Columns: p_r (bounds [low, high]), u_r, v_r >= 0 with p_r - u_r + v_r = target_r; minimise
  // sum (u + v). Prices in dollars keep the programme well scaled.
  constexpr double kScale = 1e-6;
  const int cols = static_cast<int>(3 * n);
  std::vector<double> colLo(cols, 0.0), colUp(cols, COIN_DBL_MAX), obj(cols, 0.0);
  for (std::size_t r = 0; r < n; ++r) {
    colLo[r] = static_cast<double>(clearing.rows[r].low) * kScale;
    colUp[r] = static_cast<double>(clearing.rows[r].high) * kScale;
    obj[n + r] = 1.0;
    obj[2 * n + r] = 1.0;
  }
  CoinPackedMatrix m(false, 0, 0);
  m.setDimensions(0, cols);
  std::vector<double> rowLo, rowUp;
  for (std::size_t r = 0; r < n; ++r) {
    const int idx[3] = {static_cast<int>(r), static_cast<int>(n + r), static_cast<int>(2 * n + r)};
    const double val[3] = {1.0, -1.0, 1.0};
    m.appendRow(3, idx, val);
    rowLo.push_back(static_cast<double>(targets[r]) * kScale);
    rowUp.push_back(static_cast<double>(targets[r]) * kScale);
  }
  for (std::size_t b : chosen) {
    const Block& k = problem.blocks[b];
    const std::size_t r0 = problem.row(k.cluster, k.start);
    std::vector<int> idx;
    for (Hour h = k.start; h < k.end; ++h) idx.push_back(static_cast<int>(r0 + static_cast<std::size_t>(h - k.start)));
    const std::vector<double> val(idx.size(), 1.0);
    m.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
    const double total = static_cast<double>(k.limit) * static_cast<double>(k.end - k.start) * kScale;
    if (problem.orders[k.order].side == Side::Buy) {
      rowLo.push_back(-COIN_DBL_MAX);
      rowUp.push_back(total);
    } else {
      rowLo.push_back(total);
      rowUp.push_back(COIN_DBL_MAX);
    }
  }
  ClpSimplex lp;
  lp.setLogLevel(0);
  lp.loadProblem(m, colLo.data(), colUp.data(), obj.data(), rowLo.data(), rowUp.data());
  lp.setPrimalTolerance(1e-9);
  lp.dual();
  if (lp.isProvenPrimalInfeasible() || !lp.isProvenOptimal()) return std::nullopt;
  const double* x = lp.primalColumnSolution();
  std::vector<Price> prices(n);
  for (std::size_t r = 0; r < n; ++r) prices[r] = std::llround(x[r] / kScale);
  // The vertex is whole micro-dollars; check it exactly, so a rounding can never accept a loss.
  for (std::size_t r = 0; r < n; ++r)
    if (prices[r] < clearing.rows[r].low || prices[r] > clearing.rows[r].high) return std::nullopt;
  for (std::size_t b : chosen)
    if (blockLoss(problem, b, prices) > 0) return std::nullopt;
  return prices;
}

}  // namespace tessera::auction
