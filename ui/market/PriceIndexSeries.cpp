#include "ui/market/PriceIndexSeries.h"

#include "ui/shell/DisplayFormat.h"

#include <limits>

namespace tessera::ui {

double indexTimeOf(Hour asOf) { return static_cast<double>(asOf + 1) * 3600.0; }

std::vector<IndexLine> indexLines(const IndexHistory& history, Tenor tenor) {
  constexpr double kBreak = std::numeric_limits<double>::quiet_NaN();
  std::vector<IndexLine> lines;
  IndexLine* line = nullptr;
  bool lastStale = false;
  std::optional<std::pair<double, double>> lastFresh;
  // The map is ordered by (class, tenor, hour): each class's values of a tenor are one run.
  for (const auto& [key, s] : history) {
    if (s.tenor != tenor) continue;
    if (!line || line->accelerator != s.accelerator) {
      lines.push_back(IndexLine{});
      line = &lines.back();
      line->accelerator = s.accelerator;
      lastStale = false;
      lastFresh.reset();
    }
    const double x = indexTimeOf(s.asOf);
    const double y = dollars(s.price);
    if (s.stale) {
      if (!lastStale) {
        // A new stale run: break off the previous one just before it starts.
        const double from = lastFresh ? lastFresh->first : x;
        if (!line->staleX.isEmpty()) {
          line->staleX.push_back(from - 1);
          line->staleY.push_back(kBreak);
        }
        if (lastFresh) {
          line->staleX.push_back(lastFresh->first);
          line->staleY.push_back(lastFresh->second);
        }
      }
      line->staleX.push_back(x);
      line->staleY.push_back(y);
      ++line->stalePoints;
    } else {
      if (lastStale && !line->freshX.isEmpty()) {
        // Do not draw the fresh line across the stale run it resumes after.
        line->freshX.push_back(x - 1);
        line->freshY.push_back(kBreak);
      }
      line->freshX.push_back(x);
      line->freshY.push_back(y);
      ++line->freshPoints;
      lastFresh = std::pair{x, y};
    }
    lastStale = s.stale;
    line->latest = s;
  }
  return lines;
}

}  // namespace tessera::ui
