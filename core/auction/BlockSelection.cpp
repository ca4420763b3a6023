#include "core/auction/BlockSelection.h"

#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <map>
#include <string>
#include <tuple>

namespace tessera::auction {

namespace {

int noCallback(CbcModel*, int) { return 0; }

}  // namespace

BlockSelectionResult selectBlocks(const ClearingProblem& problem, const SelectionCuts& cuts,
                                  const SolverLimits& limits) {
  constexpr double kScale = 1e-6;  // micro-dollars to dollars
  const std::size_t nRows = problem.rows.size();
  const std::size_t nBlocks = problem.blocks.size();

  // Aggregated divisible columns: (row, side, limit) -> GPUs offered. A std::map keeps the
  // columns in one order on every run.
  std::map<std::tuple<std::size_t, int, Price>, std::int64_t> steps;
  auto add = [&](const Step& s, int side) {
    const std::size_t r0 = problem.row(s.cluster, s.start);
    for (Hour h = s.start; h < s.end; ++h) steps[{r0 + static_cast<std::size_t>(h - s.start), side, s.limit}] += s.gpus;
  };
  for (const Step& s : problem.bidSteps) add(s, +1);
  for (const Step& s : problem.askSteps) add(s, -1);

  // Minimise minus the welfare (so CBC's bound is a plain lower bound).
  std::vector<double> colLo, colUp, obj;
  std::vector<std::vector<std::pair<int, double>>> rowsOf(nRows);
  int col = 0;
  for (std::size_t b = 0; b < nBlocks; ++b, ++col) {
    const Block& k = problem.blocks[b];
    const double sign = problem.orders[k.order].side == Side::Buy ? 1.0 : -1.0;
    colLo.push_back(0.0);
    colUp.push_back(cuts.forbidden.empty() || !cuts.forbidden[b] ? 1.0 : 0.0);
    obj.push_back(-sign * static_cast<double>(k.limit) * kScale * static_cast<double>(k.gpus) *
                  static_cast<double>(k.end - k.start));
    const std::size_t r0 = problem.row(k.cluster, k.start);
    for (Hour h = k.start; h < k.end; ++h)
      rowsOf[r0 + static_cast<std::size_t>(h - k.start)].emplace_back(col, sign * k.gpus);
  }
  for (const auto& [key, gpus] : steps) {
    const auto& [r, side, limit] = key;
    colLo.push_back(0.0);
    colUp.push_back(static_cast<double>(gpus));
    obj.push_back(-side * static_cast<double>(limit) * kScale);
    rowsOf[r].emplace_back(col, static_cast<double>(side));
    ++col;
  }

  CoinPackedMatrix m(false, 0, 0);
  m.setDimensions(0, col);
  std::vector<double> rowLo, rowUp;
  std::vector<int> idx;
  std::vector<double> val;
  for (std::size_t r = 0; r < nRows; ++r) {
    idx.clear();
    val.clear();
    for (const auto& [c, v] : rowsOf[r]) idx.push_back(c), val.push_back(v);
    m.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
    rowLo.push_back(0.0);
    rowUp.push_back(0.0);
  }
  // Exclusive groups: blocks of one group are consecutive.
  for (std::size_t b = 0; b < nBlocks;) {
    std::size_t e = b;
    while (e < nBlocks && problem.blocks[e].group == problem.blocks[b].group) ++e;
    if (e - b > 1) {
      idx.clear();
      val.clear();
      for (std::size_t k = b; k < e; ++k) idx.push_back(static_cast<int>(k)), val.push_back(1.0);
      m.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
      rowLo.push_back(-COIN_DBL_MAX);
      rowUp.push_back(1.0);
    }
    b = e;
  }
  for (const std::vector<char>& s : cuts.excluded) {
    idx.clear();
    val.clear();
    double chosen = 0;
    for (std::size_t b = 0; b < nBlocks; ++b) {
      idx.push_back(static_cast<int>(b));
      val.push_back(s[b] ? -1.0 : 1.0);
      chosen += s[b] ? 1.0 : 0.0;
    }
    m.appendRow(static_cast<int>(idx.size()), idx.data(), val.data());
    rowLo.push_back(1.0 - chosen);
    rowUp.push_back(COIN_DBL_MAX);
  }

  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(m, colLo.data(), colUp.data(), obj.data(), rowLo.data(), rowUp.data());
  for (std::size_t b = 0; b < nBlocks; ++b) solver.setInteger(static_cast<int>(b));

  BlockSelectionResult out;
  out.accepted.assign(nBlocks, 0);
  CbcModel model(solver);
  model.setLogLevel(0);
  CbcSolverUsefulData data;
  data.noPrinting_ = true;
  data.useSignalHandler_ = false;
  CbcMain0(model, data);
  const std::string seed = std::to_string(limits.seed);
  const std::string seconds = std::to_string(limits.seconds);
  const std::string nodes = std::to_string(limits.nodes);
  const std::string gap = std::to_string(limits.relativeGap);
  const char* argv[] = {"tessera-call", "-log", "0", "-threads", "0", "-randomCbcSeed", seed.c_str(),
                        "-randomSeed", seed.c_str(), "-sec", seconds.c_str(), "-maxNodes", nodes.c_str(),
                        "-ratioGap", gap.c_str(), "-heuristicsOnOff", limits.heuristics ? "on" : "off",
                        "-solve", "-quit"};
  CbcMain1(static_cast<int>(std::size(argv)), argv, model, noCallback, data);

  const double* x = model.bestSolution();
  if (x) {
    for (std::size_t b = 0; b < nBlocks; ++b) out.accepted[b] = x[b] > 0.5 ? 1 : 0;
    out.welfare = -model.getObjValue();
  }
  out.bound = -model.getBestPossibleObjValue();
  out.optimal = model.isProvenOptimal();
  out.stoppedOnTime = model.isSecondsLimitReached();
  out.nodes = model.getNodeCount();
  return out;
}

}  // namespace tessera::auction
