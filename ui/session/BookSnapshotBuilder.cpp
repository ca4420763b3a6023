#include "ui/session/BookSnapshotBuilder.h"

#include <algorithm>
#include <map>
#include <set>

namespace tessera::ui {
namespace {

// Merges `more` into `into`, both best first for `side`, keeping at most `maxLevels`.
void mergeLevels(std::vector<BookLevel>& into, const std::vector<BookLevel>& more, Side side,
                 std::size_t maxLevels) {
  if (more.empty()) return;
  if (into.empty()) {
    into = more;
    return;
  }
  std::map<Price, BookLevel> byPrice;
  auto add = [&byPrice](const std::vector<BookLevel>& v) {
    for (const BookLevel& l : v) {
      BookLevel& m = byPrice[l.price];
      m.price = l.price;
      m.gpus += l.gpus;
      m.orders += l.orders;
    }
  };
  add(into);
  add(more);
  into.clear();
  if (side == Side::Sell) {
    for (auto& [p, l] : byPrice) into.push_back(l);
  } else {
    for (auto it = byPrice.rbegin(); it != byPrice.rend(); ++it) into.push_back(it->second);
  }
  if (into.size() > maxLevels) into.resize(maxLevels);
}

}  // namespace

BookSnapshot takeBookSnapshot(const Matcher& book, const std::vector<ClusterId>& clusters,
                              Hour firstHour, int hours, std::size_t maxLevels) {
  BookSnapshot s;
  s.clusters = clusters;
  s.firstHour = firstHour;
  s.now = book.now();
  s.cells.resize(static_cast<std::size_t>(std::max(0, hours)));
  for (ClusterId c : clusters) {
    if (!book.cluster(c)) continue;
    for (int i = 0; i < hours; ++i) {
      const Hour h = firstHour + i;
      BookCell& cell = s.cells[static_cast<std::size_t>(i)];
      mergeLevels(cell.asks, book.depth(c, h, Side::Sell, maxLevels), Side::Sell, maxLevels);
      mergeLevels(cell.bids, book.depth(c, h, Side::Buy, maxLevels), Side::Buy, maxLevels);
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
