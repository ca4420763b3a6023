#include "ui/session/BookSnapshotBuilder.h"

#include <algorithm>
#include <set>

namespace tessera::ui {
namespace {

// Merges `more` into `into`, both best first for `side`, keeping at most `maxLevels`.
// A linear merge of two sorted ladders: this runs for every cell of a cluster group.
void mergeLevels(std::vector<BookLevel>& into, const std::vector<BookLevel>& more, Side side, std::size_t maxLevels,
                 std::vector<BookLevel>& scratch) {
  if (more.empty()) return;
  if (into.empty()) {
    into = more;
    return;
  }
  auto better = [side](Price a, Price b) { return side == Side::Sell ? a < b : a > b; };
  scratch.clear();
  std::size_t i = 0, j = 0;
  while ((i < into.size() || j < more.size()) && scratch.size() < maxLevels) {
    if (j == more.size() || (i < into.size() && better(into[i].price, more[j].price))) {
      scratch.push_back(into[i++]);
    } else if (i == into.size() || better(more[j].price, into[i].price)) {
      scratch.push_back(more[j++]);
    } else {
      BookLevel l = into[i++];
      l.gpus += more[j].gpus;
      l.orders += more[j++].orders;
      scratch.push_back(l);
    }
  }
  into.swap(scratch);
}

}  // namespace

BookSnapshot takeBookSnapshot(const Matcher& book, const std::vector<ClusterId>& clusters, Hour firstHour, int hours,
                              std::size_t maxLevels) {
  BookSnapshot s;
  s.clusters = clusters;
  s.firstHour = firstHour;
  s.now = book.now();
  s.cells.resize(static_cast<std::size_t>(std::max(0, hours)));
  std::vector<BookLevel> scratch;
  for (ClusterId c : clusters) {
    if (!book.cluster(c)) continue;
    for (int i = 0; i < hours; ++i) {
      const Hour h = firstHour + i;
      BookCell& cell = s.cells[static_cast<std::size_t>(i)];
      mergeLevels(cell.asks, book.depth(c, h, Side::Sell, maxLevels), Side::Sell, maxLevels, scratch);
      mergeLevels(cell.bids, book.depth(c, h, Side::Buy, maxLevels), Side::Buy, maxLevels, scratch);
    }
  }
  // An all-or-none bid can match several clusters of the group: list it once.
  std::set<OrderId> seen;
  for (ClusterId c : clusters) {
    if (!book.cluster(c)) continue;
    for (OrderView& o : book.allOrNoneBids(c)) {
      if (seen.insert(o.request.id).second) s.allOrNoneBids.push_back(std::move(o));
    }
  }
  return s;
}

}  // namespace tessera::ui
