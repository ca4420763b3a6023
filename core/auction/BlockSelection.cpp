#include "core/auction/BlockSelection.h"

#include <coin/CbcModel.hpp>
#include <coin/CbcSolver.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>

namespace tessera::auction {

__extension__ using Wide = __int128;  // sums of notionals can exceed int64

namespace {

int noCallback(CbcModel*, int) { return 0; }

constexpr double kScale = 1e-6;  // micro-dollars to dollars
// CBC's preprocessing and root cuts ignore its time limit: on the 20,000 blocks of a
// 10,000-order call they take minutes. Calls with more allowed blocks than this stop at the
// relaxation's bound and the best selection the heuristics find.
constexpr std::size_t kExactSearchBlocks = 5'000;

// A piece of a row's divisible curve around its own crossing: `gpus` more GPUs of net block
// demand cost `price` each (up), or `gpus` more GPUs of net block supply earn `price` each (down).
struct Segment {
  std::int64_t gpus = 0;
  Price price = 0;
};

// A row of the reduced programme: its divisible orders as W(d), the best surplus of the row's
// divisible steps when blocks take net d GPUs (bids minus asks). W is concave and piecewise
// linear; `base` is W(0) (the crossing of the curves alone, micro-dollars) and `up`/`down` its
// pieces for d > 0 and d < 0, cut to the GPUs the row's blocks can take or give at most.
struct RowCurve {
  std::size_t row = 0;  // index into ClearingProblem::rows
  Wide base = 0;
  std::vector<Segment> up;    // ascending price
  std::vector<Segment> down;  // descending price
};

using Level = std::pair<Price, std::int64_t>;  // limit, GPUs

// Appends (price, gpus) to a list of segments, merging equal prices, up to `room` GPUs in all.
void take(std::vector<Segment>& into, std::int64_t& room, Price price, std::int64_t gpus) {
  const std::int64_t q = std::min(room, gpus);
  if (q <= 0) return;
  room -= q;
  if (!into.empty() && into.back().price == price)
    into.back().gpus += q;
  else
    into.push_back(Segment{q, price});
}

// The curve of one row from its bid levels (dearest first) and ask levels (cheapest first).
// Around the crossing, net block demand is met by the cheaper of the next untraded ask and the
// cheapest traded bid; net block supply by the dearer of the next untraded bid and the dearest
// traded ask. Merging the two sorted lists gives W's pieces in order.
RowCurve curveOf(std::size_t row, const std::vector<Level>& bids, const std::vector<Level>& asks, std::int64_t maxUp,
                 std::int64_t maxDown) {
  RowCurve c;
  c.row = row;
  std::vector<std::int64_t> bidTraded(bids.size(), 0), askTraded(asks.size(), 0);
  std::size_t i = 0, j = 0;
  while (i < bids.size() && j < asks.size() && bids[i].first >= asks[j].first) {
    const std::int64_t q = std::min(bids[i].second - bidTraded[i], asks[j].second - askTraded[j]);
    bidTraded[i] += q;
    askTraded[j] += q;
    c.base += static_cast<Wide>(bids[i].first - asks[j].first) * q;
    if (bidTraded[i] == bids[i].second) ++i;
    if (askTraded[j] == asks[j].second) ++j;
  }
  // Up: untraded asks ascending from j, traded bids ascending from the cheapest traded one.
  {
    std::size_t a = j;
    std::ptrdiff_t b = static_cast<std::ptrdiff_t>(i) - (i < bids.size() && bidTraded[i] > 0 ? 0 : 1);
    std::int64_t room = maxUp;
    while (room > 0 && (a < asks.size() || b >= 0)) {
      const bool useAsk = b < 0 || (a < asks.size() && asks[a].first <= bids[static_cast<std::size_t>(b)].first);
      if (useAsk)
        take(c.up, room, asks[a].first, asks[a].second - askTraded[a]), ++a;
      else
        take(c.up, room, bids[static_cast<std::size_t>(b)].first, bidTraded[static_cast<std::size_t>(b)]), --b;
    }
  }
  // Down: untraded bids descending from i, traded asks descending from the dearest traded one.
  {
    std::size_t b = i;
    std::ptrdiff_t a = static_cast<std::ptrdiff_t>(j) - (j < asks.size() && askTraded[j] > 0 ? 0 : 1);
    std::int64_t room = maxDown;
    while (room > 0 && (b < bids.size() || a >= 0)) {
      const bool useBid = a < 0 || (b < bids.size() && bids[b].first >= asks[static_cast<std::size_t>(a)].first);
      if (useBid)
        take(c.down, room, bids[b].first, bids[b].second - bidTraded[b]), ++b;
      else
        take(c.down, room, asks[static_cast<std::size_t>(a)].first, askTraded[static_cast<std::size_t>(a)]), --a;
    }
  }
  return c;
}

// W(d) - W(0) of one curve, micro-dollars; d within the curve's reach.
Wide curveChange(const RowCurve& c, std::int64_t d) {
  Wide w = 0;
  const auto& pieces = d >= 0 ? c.up : c.down;
  std::int64_t left = d >= 0 ? d : -d;
  for (const Segment& s : pieces) {
    if (left <= 0) break;
    const std::int64_t q = std::min(left, s.gpus);
    w += static_cast<Wide>(s.price) * q;
    left -= q;
  }
  return d >= 0 ? -w : w;
}

std::int64_t reach(const std::vector<Segment>& pieces) {
  std::int64_t r = 0;
  for (const Segment& s : pieces) r += s.gpus;
  return r;
}

Wide blockValue(const ClearingProblem& p, const Block& k) {
  const Wide v = static_cast<Wide>(k.limit) * k.gpus * (k.end - k.start);
  return p.orders[k.order].side == Side::Buy ? v : -v;
}

// The programme with the divisible steps replaced by the rows' curves: rows no allowed block
// touches drop out (their crossing is a constant), the others keep only the pieces of their
// curve the blocks can reach.
struct Reduced {
  const ClearingProblem* problem = nullptr;
  std::vector<char> allowed;                     // per block
  std::vector<RowCurve> curves;                  // rows some allowed block touches, ascending
  std::vector<int> curveOfRow;                   // per problem row: index into curves, or -1
  std::vector<std::int64_t> upReach, downReach;  // per curve: GPUs its pieces hold
  Wide constant = 0;                             // W(0) summed over every row, micro-dollars
};

Reduced reduce(const ClearingProblem& problem, const SelectionCuts& cuts) {
  Reduced red;
  red.problem = &problem;
  const std::size_t nRows = problem.rows.size();
  const std::size_t nBlocks = problem.blocks.size();
  red.allowed.assign(nBlocks, 1);
  for (std::size_t b = 0; b < nBlocks && !cuts.forbidden.empty(); ++b) red.allowed[b] = cuts.forbidden[b] ? 0 : 1;

  // The GPUs the allowed blocks can take from (bids) or give to (asks) each row, each exclusive
  // group counted once.
  std::vector<std::int64_t> maxUp(nRows, 0), maxDown(nRows, 0);
  std::vector<std::size_t> lastGroup(nRows, SIZE_MAX);
  for (std::size_t b = 0; b < nBlocks; ++b) {
    if (!red.allowed[b]) continue;
    const Block& k = problem.blocks[b];
    const bool bid = problem.orders[k.order].side == Side::Buy;
    const std::size_t r0 = problem.row(k.cluster, k.start);
    for (std::size_t r = r0; r < r0 + static_cast<std::size_t>(k.end - k.start); ++r) {
      if (lastGroup[r] == k.group) continue;
      lastGroup[r] = k.group;
      (bid ? maxUp : maxDown)[r] += k.gpus;
    }
  }
  // Divisible levels per row, aggregated per limit.
  std::vector<std::vector<Level>> bids(nRows), asks(nRows);
  auto add = [&](const std::vector<Step>& steps, std::vector<std::vector<Level>>& into) {
    for (const Step& s : steps) {
      const std::size_t r0 = problem.row(s.cluster, s.start);
      for (Hour h = s.start; h < s.end; ++h)
        into[r0 + static_cast<std::size_t>(h - s.start)].emplace_back(s.limit, s.gpus);
    }
  };
  add(problem.bidSteps, bids);
  add(problem.askSteps, asks);
  auto aggregate = [](std::vector<Level>& v, bool descending) {
    std::sort(v.begin(), v.end(), [descending](const Level& x, const Level& y) {
      return descending ? x.first > y.first : x.first < y.first;
    });
    std::size_t n = 0;
    for (const Level& l : v) {
      if (n > 0 && v[n - 1].first == l.first)
        v[n - 1].second += l.second;
      else
        v[n++] = l;
    }
    v.resize(n);
  };
  red.curveOfRow.assign(nRows, -1);
  for (std::size_t r = 0; r < nRows; ++r) {
    aggregate(bids[r], true);
    aggregate(asks[r], false);
    RowCurve c = curveOf(r, bids[r], asks[r], maxUp[r], maxDown[r]);
    red.constant += c.base;
    if (maxUp[r] == 0 && maxDown[r] == 0) continue;
    red.curveOfRow[r] = static_cast<int>(red.curves.size());
    red.upReach.push_back(reach(c.up));
    red.downReach.push_back(reach(c.down));
    red.curves.push_back(std::move(c));
  }
  return red;
}

// A block's column of the programme (minimising minus the welfare, in dollars): its rows
// (curve indices) and coefficients; the caller adds its group row.
struct BlockColumn {
  double cost = 0.0;
  std::vector<int> rows;
  double coef = 0.0;  // the same in every row: minus the GPUs of a bid, the GPUs of an ask
};

BlockColumn columnOf(const Reduced& red, std::size_t b) {
  const ClearingProblem& p = *red.problem;
  const Block& k = p.blocks[b];
  BlockColumn c;
  c.cost = -static_cast<double>(blockValue(p, k)) * kScale;
  c.coef = (p.orders[k.order].side == Side::Buy ? -1.0 : 1.0) * static_cast<double>(k.gpus);
  const std::size_t r0 = p.row(k.cluster, k.start);
  for (std::size_t r = r0; r < r0 + static_cast<std::size_t>(k.end - k.start); ++r) c.rows.push_back(red.curveOfRow[r]);
  return c;
}

// What block b earns at row prices `pi` (micro-dollars per GPU-hour, per curve): its value
// less their sum over its hours (a bid), or their sum less its cost (an ask).
Wide surplusAt(const Reduced& red, std::size_t b, const std::vector<Price>& pi) {
  const ClearingProblem& p = *red.problem;
  const Block& k = p.blocks[b];
  const std::size_t r0 = p.row(k.cluster, k.start);
  Wide sum = 0;
  for (std::size_t r = r0; r < r0 + static_cast<std::size_t>(k.end - k.start); ++r)
    sum += pi[static_cast<std::size_t>(red.curveOfRow[r])];
  return blockValue(p, k) - (p.orders[k.order].side == Side::Buy ? 1 : -1) * sum * k.gpus;
}

// The Lagrangian bound at row prices `pi` (micro-dollars per GPU-hour, per curve): every row
// and every exclusive group choosing freely at those prices. An upper bound on the welfare of
// every selection for any prices, computed exactly.
Wide lagrangianBound(const Reduced& red, const std::vector<Price>& pi) {
  const ClearingProblem& p = *red.problem;
  Wide bound = red.constant;
  for (std::size_t ci = 0; ci < red.curves.size(); ++ci) {
    for (const Segment& s : red.curves[ci].up)
      if (s.price < pi[ci]) bound += static_cast<Wide>(pi[ci] - s.price) * s.gpus;
    for (const Segment& s : red.curves[ci].down)
      if (s.price > pi[ci]) bound += static_cast<Wide>(s.price - pi[ci]) * s.gpus;
  }
  Wide best = 0;
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    if (b > 0 && p.blocks[b].group != p.blocks[b - 1].group) bound += best, best = 0;
    if (!red.allowed[b]) continue;
    best = std::max(best, surplusAt(red, b, pi));
  }
  return bound + best;
}

// A selection built greedily in the order given, then improved block by block: a block joins
// when its group has none yet, every row it touches stays within its curve's reach and the
// welfare rises; then, until nothing changes, an accepted block leaves or gives way to another
// block of its group when the welfare rises. Returns the welfare (micro-dollars).
Wide greedySelection(const Reduced& red, const std::vector<std::size_t>& order, std::vector<char>& accepted,
                     const std::vector<char>* start = nullptr) {
  const ClearingProblem& p = *red.problem;
  std::vector<std::int64_t> d(red.curves.size(), 0);
  std::vector<std::size_t> groupBlock(p.groups, SIZE_MAX);
  accepted.assign(p.blocks.size(), 0);
  Wide welfare = red.constant;
  auto delta = [&](std::size_t b) {
    const Block& k = p.blocks[b];
    return p.orders[k.order].side == Side::Buy ? std::int64_t{k.gpus} : -std::int64_t{k.gpus};
  };
  // The welfare change of adding (sign +1) or removing (-1) block b; empty when a row leaves
  // its reach.
  auto change = [&](std::size_t b, int sign) -> std::optional<Wide> {
    const Block& k = p.blocks[b];
    const std::int64_t q = sign * delta(b);
    const std::size_t r0 = p.row(k.cluster, k.start);
    Wide c = sign * blockValue(p, k);
    for (std::size_t r = r0; r < r0 + static_cast<std::size_t>(k.end - k.start); ++r) {
      const auto ci = static_cast<std::size_t>(red.curveOfRow[r]);
      const std::int64_t next = d[ci] + q;
      if (next > red.upReach[ci] || -next > red.downReach[ci]) return std::nullopt;
      c += curveChange(red.curves[ci], next) - curveChange(red.curves[ci], d[ci]);
    }
    return c;
  };
  auto apply = [&](std::size_t b, int sign, Wide c) {
    const Block& k = p.blocks[b];
    const std::size_t r0 = p.row(k.cluster, k.start);
    for (std::size_t r = r0; r < r0 + static_cast<std::size_t>(k.end - k.start); ++r)
      d[static_cast<std::size_t>(red.curveOfRow[r])] += sign * delta(b);
    accepted[b] = sign > 0 ? 1 : 0;
    groupBlock[k.group] = sign > 0 ? b : SIZE_MAX;
    welfare += c;
  };
  if (start)
    for (std::size_t b = 0; b < p.blocks.size(); ++b)
      if ((*start)[b])
        if (const auto c = change(b, +1)) apply(b, +1, *c);
  for (bool improved = true; improved;) {
    improved = false;
    for (std::size_t b : order) {
      if (!red.allowed[b]) continue;
      const std::size_t g = p.blocks[b].group;
      if (accepted[b]) {
        if (const auto c = change(b, -1); c && *c > 0) apply(b, -1, *c), improved = true;
      } else if (groupBlock[g] == SIZE_MAX) {
        if (const auto c = change(b, +1); c && *c > 0) apply(b, +1, *c), improved = true;
      } else {
        const std::size_t other = groupBlock[g];
        const auto out = change(other, -1);
        if (!out) continue;
        apply(other, -1, *out);
        const auto in = change(b, +1);
        if (in && *out + *in > 0)
          apply(b, +1, *in), improved = true;
        else
          apply(other, +1, -*out);
      }
    }
  }
  return welfare;
}

// The programme over the curves (minimising minus the welfare beyond the constant, dollars):
// one balance row per curve, one "at most one" row per exclusive group with two or more allowed
// blocks; columns: the curves' pieces, then blocks as they are added.
struct Master {
  OsiClpSolverInterface lp;
  std::vector<int> groupRow;          // per group: its row, or -1
  std::vector<std::size_t> colBlock;  // per block column (after the pieces): the block
  int pieces = 0;
};

void buildMaster(const Reduced& red, int seed, Master& m) {
  const ClearingProblem& p = *red.problem;
  std::vector<double> colLo, colUp, obj, rowLo, rowUp;
  std::vector<CoinBigIndex> starts{0};
  std::vector<int> rows;
  std::vector<double> vals;
  for (std::size_t ci = 0; ci < red.curves.size(); ++ci) {
    auto piece = [&](const Segment& s, double sign) {
      rows.push_back(static_cast<int>(ci)), vals.push_back(sign);
      starts.push_back(static_cast<CoinBigIndex>(rows.size()));
      colLo.push_back(0.0), colUp.push_back(static_cast<double>(s.gpus));
      obj.push_back(sign * static_cast<double>(s.price) * kScale);
    };
    for (const Segment& s : red.curves[ci].up) piece(s, 1.0);
    for (const Segment& s : red.curves[ci].down) piece(s, -1.0);
  }
  m.pieces = static_cast<int>(colLo.size());
  rowLo.assign(red.curves.size(), 0.0);
  rowUp.assign(red.curves.size(), 0.0);
  std::vector<int> count(p.groups, 0);
  for (std::size_t b = 0; b < p.blocks.size(); ++b) count[p.blocks[b].group] += red.allowed[b];
  m.groupRow.assign(p.groups, -1);
  for (std::size_t g = 0; g < p.groups; ++g) {
    if (count[g] < 2) continue;
    m.groupRow[g] = static_cast<int>(rowLo.size());
    rowLo.push_back(-COIN_DBL_MAX), rowUp.push_back(1.0);
  }
  CoinPackedMatrix matrix(true, static_cast<int>(rowLo.size()), m.pieces, static_cast<CoinBigIndex>(vals.size()),
                          vals.data(), rows.data(), starts.data(), nullptr);
  m.lp.messageHandler()->setLogLevel(0);
  m.lp.getModelPtr()->setRandomSeed(seed);
  m.lp.loadProblem(matrix, colLo.data(), colUp.data(), obj.data(), rowLo.data(), rowUp.data());
}

void addBlocks(const Reduced& red, const std::vector<std::size_t>& blocks, Master& m) {
  std::vector<CoinBigIndex> starts{0};
  std::vector<int> rows;
  std::vector<double> vals, lo, up, obj;
  for (std::size_t b : blocks) {
    const BlockColumn c = columnOf(red, b);
    for (int r : c.rows) rows.push_back(r), vals.push_back(c.coef);
    if (const int g = m.groupRow[red.problem->blocks[b].group]; g >= 0) rows.push_back(g), vals.push_back(1.0);
    starts.push_back(static_cast<CoinBigIndex>(rows.size()));
    lo.push_back(0.0), up.push_back(1.0), obj.push_back(c.cost);
    m.colBlock.push_back(b);
  }
  if (blocks.empty()) return;
  m.lp.addCols(static_cast<int>(blocks.size()), starts.data(), rows.data(), vals.data(), lo.data(), up.data(),
               obj.data());
}

// The relaxation over all allowed blocks by column generation: blocks enter while some block
// prices out at the current duals (the best of each group, at most kBatch a round), so the LP
// holds a few of the many placements. Returns the rows' duals as prices (micro-dollars) and the
// relaxed acceptance of each block; `converged` when no block prices out.
struct Relaxation {
  std::vector<Price> pi;
  std::vector<double> y;  // per block
  bool converged = false;
  bool timedOut = false;  // stopped on the deadline before converging
  int rounds = 0;
};

Relaxation relax(const Reduced& red, Master& m, const std::function<bool()>& expired) {
  constexpr std::size_t kBatch = 4000;
  constexpr double kPricesOut = -1e-7;  // dollars
  const ClearingProblem& p = *red.problem;
  std::vector<char> inLp(p.blocks.size(), 0);
  for (std::size_t b : m.colBlock) inLp[b] = 1;
  std::vector<double> dual(static_cast<std::size_t>(m.lp.getNumRows()), 0.0);
  Relaxation out;
  if (!m.colBlock.empty()) {
    // A later round: the programme of the last one, warm, with this round's bounds.
    m.lp.resolve();
    if (m.lp.isProvenOptimal()) std::copy(m.lp.getRowPrice(), m.lp.getRowPrice() + m.lp.getNumRows(), dual.begin());
    out.rounds = 1;
  } else {
    // Starting duals: each row's price at its own crossing (the cheapest GPU more).
    for (std::size_t ci = 0; ci < red.curves.size(); ++ci) {
      const RowCurve& c = red.curves[ci];
      dual[ci] = static_cast<double>(!c.up.empty()     ? c.up.front().price
                                     : !c.down.empty() ? c.down.front().price
                                                       : 0) *
                 kScale;
    }
  }
  for (;; ++out.rounds) {
    // Per group, the allowed block outside the LP with the most negative reduced cost.
    std::vector<std::pair<double, std::size_t>> entering;
    double best = 0.0;
    std::size_t bestBlock = SIZE_MAX;
    auto close = [&] {
      if (bestBlock != SIZE_MAX) entering.emplace_back(best, bestBlock);
      best = 0.0, bestBlock = SIZE_MAX;
    };
    for (std::size_t b = 0; b < p.blocks.size(); ++b) {
      if (b > 0 && p.blocks[b].group != p.blocks[b - 1].group) close();
      if (!red.allowed[b] || inLp[b]) continue;
      const BlockColumn c = columnOf(red, b);
      double rc = c.cost;
      for (int r : c.rows) rc -= c.coef * dual[static_cast<std::size_t>(r)];
      if (const int g = m.groupRow[p.blocks[b].group]; g >= 0) rc -= dual[static_cast<std::size_t>(g)];
      if (rc < kPricesOut && rc < best) best = rc, bestBlock = b;
    }
    close();
    if (entering.empty()) {
      out.converged = out.rounds > 0;
      if (out.rounds > 0) break;
    }
    std::sort(entering.begin(), entering.end());
    if (entering.size() > kBatch) entering.resize(kBatch);
    std::vector<std::size_t> blocks;
    for (const auto& [rc, b] : entering) blocks.push_back(b), inLp[b] = 1;
    const bool first = m.colBlock.empty();
    addBlocks(red, blocks, m);
    if (first)
      m.lp.initialSolve();
    else
      m.lp.resolve();
    if (!m.lp.isProvenOptimal()) break;
    std::copy(m.lp.getRowPrice(), m.lp.getRowPrice() + m.lp.getNumRows(), dual.begin());
    if (expired()) {
      out.timedOut = true;
      break;
    }
  }
  out.pi.resize(red.curves.size());
  for (std::size_t ci = 0; ci < red.curves.size(); ++ci) out.pi[ci] = std::llround(dual[ci] / kScale);
  out.y.assign(p.blocks.size(), 0.0);
  if (m.lp.isProvenOptimal()) {
    const double* x = m.lp.getColSolution();
    for (std::size_t i = 0; i < m.colBlock.size(); ++i)
      out.y[m.colBlock[i]] = x[static_cast<std::size_t>(m.pieces) + i];
  }
  return out;
}

// A selection as a column vector of the master (pieces filled in order to each curve's net
// block demand); empty when an accepted block has no column.
std::vector<double> columnsOf(const Reduced& red, const Master& m, const std::vector<char>& accepted) {
  const ClearingProblem& p = *red.problem;
  std::vector<double> x(static_cast<std::size_t>(m.lp.getNumCols()), 0.0);
  std::vector<std::int64_t> d(red.curves.size(), 0);
  std::size_t listed = 0;
  for (std::size_t i = 0; i < m.colBlock.size(); ++i) {
    const std::size_t b = m.colBlock[i];
    if (!accepted[b]) continue;
    ++listed;
    x[static_cast<std::size_t>(m.pieces) + i] = 1.0;
    const Block& k = p.blocks[b];
    const std::size_t r0 = p.row(k.cluster, k.start);
    for (std::size_t r = r0; r < r0 + static_cast<std::size_t>(k.end - k.start); ++r)
      d[static_cast<std::size_t>(red.curveOfRow[r])] +=
          p.orders[k.order].side == Side::Buy ? k.gpus : -std::int64_t{k.gpus};
  }
  if (listed != static_cast<std::size_t>(std::count(accepted.begin(), accepted.end(), 1))) return {};
  std::size_t col = 0;
  for (std::size_t ci = 0; ci < red.curves.size(); ++ci) {
    std::int64_t up = std::max<std::int64_t>(d[ci], 0), down = std::max<std::int64_t>(-d[ci], 0);
    for (const Segment& s : red.curves[ci].up) {
      const std::int64_t q = std::min(up, s.gpus);
      x[col++] = static_cast<double>(q), up -= q;
    }
    for (const Segment& s : red.curves[ci].down) {
      const std::int64_t q = std::min(down, s.gpus);
      x[col++] = static_cast<double>(q), down -= q;
    }
  }
  return x;
}

double objectiveOf(const OsiSolverInterface& lp, const std::vector<double>& x) {
  const double* c = lp.getObjCoefficients();
  double v = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) v += c[i] * x[i];
  return v;
}

// The welfare of a selection (micro-dollars) when it balances every row, exactly.
std::optional<Wide> welfareOfSelection(const Reduced& red, const std::vector<char>& accepted) {
  const ClearingProblem& p = *red.problem;
  std::vector<std::int64_t> d(red.curves.size(), 0);
  Wide w = red.constant;
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    if (!accepted[b]) continue;
    if (!red.allowed[b]) return std::nullopt;
    const Block& k = p.blocks[b];
    w += blockValue(p, k);
    const std::size_t r0 = p.row(k.cluster, k.start);
    for (std::size_t r = r0; r < r0 + static_cast<std::size_t>(k.end - k.start); ++r)
      d[static_cast<std::size_t>(red.curveOfRow[r])] +=
          p.orders[k.order].side == Side::Buy ? k.gpus : -std::int64_t{k.gpus};
  }
  for (std::size_t ci = 0; ci < red.curves.size(); ++ci) {
    if (d[ci] > red.upReach[ci] || -d[ci] > red.downReach[ci]) return std::nullopt;
    w += curveChange(red.curves[ci], d[ci]);
  }
  return w;
}

// The blocks the greedy selection tries, in its order: those the relaxation accepts, most
// accepted first, then the others within a dollar per GPU of breaking even at its prices, by
// surplus there; ties in the call's order.
std::vector<std::size_t> candidates(const Reduced& red, const Relaxation& rel) {
  const ClearingProblem& p = *red.problem;
  std::vector<std::pair<double, std::size_t>> accepted;
  std::vector<std::pair<Wide, std::size_t>> others;
  for (std::size_t b = 0; b < p.blocks.size(); ++b) {
    if (!red.allowed[b]) continue;
    if (rel.y[b] > 1e-9) {
      accepted.emplace_back(-rel.y[b], b);
      continue;
    }
    const Wide surplus = surplusAt(red, b, rel.pi);
    if (surplus > -Wide{1'000'000} * p.blocks[b].gpus) others.emplace_back(-surplus, b);
  }
  std::stable_sort(accepted.begin(), accepted.end());
  std::stable_sort(others.begin(), others.end());
  std::vector<std::size_t> order;
  for (const auto& [key, b] : accepted) order.push_back(b);
  for (const auto& [key, b] : others) order.push_back(b);
  return order;
}

}  // namespace

SolveClock::SolveClock(bool threadCpuTime) : threadCpuTime_(threadCpuTime), start_(now()) {}

double SolveClock::now() const {
  if (!threadCpuTime_)
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double SolveClock::seconds() const { return now() - start_; }

struct BlockSelector::State {
  Reduced red;
  Master master;
  std::unique_ptr<CoinWarmStart> basis;  // the relaxation's, before this round's dive
};

BlockSelector::BlockSelector(const ClearingProblem& problem, int seed) : state_(std::make_unique<State>()) {
  // Every block's reach: a later round's forbidden blocks only leave pieces unused.
  state_->red = reduce(problem, SelectionCuts{});
  buildMaster(state_->red, seed, state_->master);
}

BlockSelector::~BlockSelector() = default;

BlockSelectionResult selectBlocks(const ClearingProblem& problem, const SelectionCuts& cuts,
                                  const SolverLimits& limits) {
  return BlockSelector(problem, limits.seed).select(cuts, limits);
}

BlockSelectionResult BlockSelector::select(const SelectionCuts& cuts, const SolverLimits& limits) {
  const SolveClock clock(limits.threadCpuTime);
  auto secondsLeft = [&] { return std::max(0.0, limits.seconds - clock.seconds()); };
  Reduced& red = state_->red;
  const ClearingProblem& problem = *red.problem;
  const std::size_t nBlocks = problem.blocks.size();
  for (std::size_t b = 0; b < nBlocks; ++b) red.allowed[b] = cuts.forbidden.empty() || !cuts.forbidden[b] ? 1 : 0;
  BlockSelectionResult out;
  out.accepted.assign(nBlocks, 0);
  if (std::find(red.allowed.begin(), red.allowed.end(), 1) == red.allowed.end()) {  // no allowed block
    out.welfare = out.bound = static_cast<double>(red.constant) * kScale;
    out.optimal = true;
    return out;
  }
  Master& master = state_->master;
  for (std::size_t i = 0; i < master.colBlock.size(); ++i) {
    master.lp.setColLower(master.pieces + static_cast<int>(i), 0.0);
    master.lp.setColUpper(master.pieces + static_cast<int>(i), red.allowed[master.colBlock[i]] ? 1.0 : 0.0);
  }
  if (state_->basis) master.lp.setWarmStart(state_->basis.get());
  auto isExcluded = [&](const std::vector<char>& selection) {
    for (const auto& s : cuts.excluded)
      if (s == selection) return true;
    return false;
  };
  // Appends the "not exactly this selection" rows to a programme holding the given block columns
  // (a selection with a block outside them is cut off already).
  auto addExclusions = [&](Master& m) {
    std::vector<int> col(nBlocks, -1);
    for (std::size_t i = 0; i < m.colBlock.size(); ++i) col[m.colBlock[i]] = m.pieces + static_cast<int>(i);
    for (const std::vector<char>& s : cuts.excluded) {
      std::vector<int> idx;
      std::vector<double> val;
      double chosen = 0;
      bool outside = false;
      for (std::size_t b = 0; b < nBlocks; ++b) {
        if (col[b] < 0) {
          outside = outside || s[b];
          continue;
        }
        idx.push_back(col[b]), val.push_back(s[b] ? -1.0 : 1.0);
        chosen += s[b] ? 1.0 : 0.0;
      }
      if (!outside) m.lp.addRow(static_cast<int>(idx.size()), idx.data(), val.data(), 1.0 - chosen, COIN_DBL_MAX);
    }
  };

  // 1. The relaxation (column generation): its prices give the bound, its acceptance the order
  // of the greedy selection.
  const Relaxation rel = relax(red, master, [&] { return secondsLeft() <= 0; });
  state_->basis.reset(master.lp.getWarmStart());
  Wide bound = lagrangianBound(red, rel.pi);
  const std::vector<std::size_t> order = candidates(red, rel);
  std::vector<char> best(nBlocks, 0);
  Wide bestWelfare = red.constant;  // no blocks: never excluded (its cut is never needed)
  {
    std::vector<char> greedy;
    const Wide w = greedySelection(red, order, greedy);
    if (!isExcluded(greedy) && w > bestWelfare) best = std::move(greedy), bestWelfare = w;
  }
  auto closed = [&] {
    const Wide gap = bound - bestWelfare;
    return !isExcluded(best) &&
           (gap <= 0 || static_cast<double>(gap) <= limits.relativeGap * std::abs(static_cast<double>(bestWelfare)));
  };
  auto consider = [&](const double* x, const Master& m) {
    std::vector<char> selection(nBlocks, 0);
    for (std::size_t i = 0; i < m.colBlock.size(); ++i)
      selection[m.colBlock[i]] = x[static_cast<std::size_t>(m.pieces) + i] > 0.5 ? 1 : 0;
    const auto w = welfareOfSelection(red, selection);
    if (w && *w > bestWelfare && !isExcluded(selection)) best = std::move(selection), bestWelfare = *w;
  };
  // Branch and cut (CBC's standard strategy: preprocessing, cuts, heuristics) on a programme,
  // starting from the incumbent, stopping within the relative gap or the limits.
  struct Search {
    double bestPossible = -COIN_DBL_MAX;  // CBC's bound on its objective
    double objective = COIN_DBL_MAX;      // its best solution's
    bool provenOptimal = false;           // within the allowable gap
  };
  bool timedOut = rel.timedOut;
  auto branch = [&](Master& m, double allowedGap) {
    for (std::size_t i = 0; i < m.colBlock.size(); ++i) m.lp.setInteger(m.pieces + static_cast<int>(i));
    CbcModel model(m.lp);
    model.setLogLevel(0);
    CbcSolverUsefulData data;
    data.noPrinting_ = true;
    data.useSignalHandler_ = false;
    CbcMain0(model, data);
    model.messageHandler()->setLogLevel(0);
    model.solver()->messageHandler()->setLogLevel(0);
    if (auto* clp = dynamic_cast<OsiClpSolverInterface*>(model.solver())) clp->getModelPtr()->setLogLevel(0);
    if (const auto x = columnsOf(red, m, best); !x.empty())
      model.setBestSolution(x.data(), static_cast<int>(x.size()), objectiveOf(m.lp, x), true);
    const std::string seed = std::to_string(limits.seed);
    const std::string seconds = std::to_string(std::max(secondsLeft(), 0.01));
    const std::string nodes = std::to_string(limits.nodes);
    const std::string gap = std::to_string(allowedGap * kScale);
    std::vector<const char*> argv = {"tessera-call",
                                     "-log",
                                     "0",
                                     "-slog",
                                     "0",
                                     "-threads",
                                     "0",
                                     "-randomCbcSeed",
                                     seed.c_str(),
                                     "-randomSeed",
                                     seed.c_str(),
                                     "-sec",
                                     seconds.c_str(),
                                     "-maxNodes",
                                     nodes.c_str(),
                                     "-heuristicsOnOff",
                                     limits.heuristics ? "on" : "off"};
    if (allowedGap > 0) argv.insert(argv.end(), {"-allowableGap", gap.c_str()});
    argv.insert(argv.end(), {"-solve", "-quit"});
    CbcMain1(static_cast<int>(argv.size()), argv.data(), model, noCallback, data);
    if (model.bestSolution()) consider(model.bestSolution(), m);
    out.nodes += model.getNodeCount();
    timedOut = timedOut || model.isSecondsLimitReached();
    return Search{model.getBestPossibleObjValue(), model.bestSolution() ? model.getObjValue() : COIN_DBL_MAX,
                  model.isProvenOptimal()};
  };

  // 2. A dive from the relaxation: accept every block it accepts at least kFix (if none, the
  // one it accepts most) and solve again, until the relaxation is whole; an acceptance that
  // leaves the programme infeasible becomes a rejection. The dive's selection, improved block
  // by block, may beat the greedy one.
  if (!closed() && master.lp.isProvenOptimal()) {
    constexpr double kFix = 0.4;
    OsiClpSolverInterface& lp = master.lp;
    const int nCols = static_cast<int>(master.colBlock.size());
    for (int dive = 0; dive < 200; ++dive) {
      if (secondsLeft() <= 0) {
        timedOut = true;
        break;
      }
      const double* x = lp.getColSolution();
      std::vector<int> fix;
      int most = -1;
      for (int i = 0; i < nCols; ++i) {
        const double y = x[master.pieces + i];
        if (y <= 1e-6 || y >= 1 - 1e-6) continue;
        if (y >= kFix) fix.push_back(i);
        if (most < 0 || y > x[master.pieces + most]) most = i;
      }
      if (most < 0) {
        consider(x, master);
        break;
      }
      if (fix.empty()) fix.push_back(most);
      for (int i : fix) lp.setColLower(master.pieces + i, 1.0);
      lp.resolve();
      if (!lp.isProvenOptimal()) {
        for (int i : fix) lp.setColLower(master.pieces + i, 0.0), lp.setColUpper(master.pieces + i, 0.0);
        lp.resolve();
        if (!lp.isProvenOptimal()) break;
      }
    }
    std::vector<char> improved;
    const Wide w = greedySelection(red, order, improved, &best);
    if (!isExcluded(improved) && w > bestWelfare) best = std::move(improved), bestWelfare = w;
  }

  // 3. Every allowed block: CBC's exact search, bounded by the limits, on calls small enough
  // that its preprocessing and root cuts (which do not watch the time limit) stay short.
  const auto allowedBlocks = static_cast<std::size_t>(std::count(red.allowed.begin(), red.allowed.end(), 1));
  if (!closed() && allowedBlocks <= kExactSearchBlocks) {
    if (secondsLeft() <= 0) timedOut = true;
    Master full;
    buildMaster(red, limits.seed, full);
    std::vector<std::size_t> all;
    for (std::size_t b = 0; b < nBlocks; ++b)
      if (red.allowed[b]) all.push_back(b);
    addBlocks(red, all, full);
    addExclusions(full);
    // The absolute gap (micro-dollars) that is the relative one of the whole call's welfare.
    const double allowedGap = limits.relativeGap * static_cast<double>(bestWelfare);
    const Search model = secondsLeft() > 0 ? branch(full, allowedGap) : Search{};
    // CBC's objectives are minus the welfare beyond the constant, in dollars; back in
    // micro-dollars they are rounded to the safe side by CBC's own tolerance. A proven optimum
    // bounds the welfare by its solution's plus the allowed gap (its solution may be the
    // incumbent it was given, its bound then the relaxation's); otherwise its bound does.
    auto welfareAt = [&](double objective) {
      const double w = static_cast<double>(red.constant) - objective / kScale;
      return static_cast<Wide>(std::ceil(w - 1e-9 * std::abs(w)));
    };
    if (model.provenOptimal && model.objective < COIN_DBL_MAX)
      bound = std::min(bound, std::max(bestWelfare, welfareAt(model.objective) + static_cast<Wide>(allowedGap)));
    else if (model.bestPossible > -COIN_DBL_MAX / 2)
      bound = std::min(bound, std::max(bestWelfare, welfareAt(model.bestPossible)));
  }

  out.accepted = best;
  out.welfare = static_cast<double>(bestWelfare) * kScale;
  out.bound = static_cast<double>(bound) * kScale;
  out.optimal = closed();
  out.stoppedOnTime = timedOut;
  return out;
}

}  // namespace tessera::auction
