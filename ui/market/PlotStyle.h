#pragma once
// The terminal's one look for its QCustomPlot charts (background, legend, axes, grid) in the
// light and dark themes, so every chart changes theme the same way.
#include <QColor>

class QCustomPlot;

namespace tessera::ui {

QColor plotForeground(bool dark);
void stylePlot(QCustomPlot* plot, bool dark);  // does not replot

}  // namespace tessera::ui
