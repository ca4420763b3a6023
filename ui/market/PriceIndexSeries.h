#pragma once
// The price index chart's data: for one tenor, a line per accelerator class over exchange
// time. Fresh values (trades in the window) and stale ones (the last value carried forward)
// are kept apart so the chart can draw them differently; NaN breaks a line where the other
// kind takes over.
#include "ui/session/SessionTypes.h"

#include <QVector>

#include <optional>
#include <vector>

namespace tessera::ui {

struct IndexLine {
  Accelerator accelerator = Accelerator::H100;
  // x: the end of the hour the value is as of, in seconds since the epoch (UTC); y: $/GPU-hour.
  QVector<double> freshX, freshY;
  // Stale runs, each starting at the fresh value it carries forward so the run joins the line.
  QVector<double> staleX, staleY;
  int freshPoints = 0;
  int stalePoints = 0;
  IndexPoint latest;
};

// One line per accelerator class that has a value in `tenor`, in accelerator order.
std::vector<IndexLine> indexLines(const IndexHistory& history, Tenor tenor);
// Where on the chart's x axis the value as of hour `asOf` goes.
double indexTimeOf(Hour asOf);

}  // namespace tessera::ui
