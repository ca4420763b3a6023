#include "ui/market/PlotStyle.h"

#include <qcustomplot.h>

namespace tessera::ui {

QColor plotForeground(bool dark) { return dark ? QColor(220, 220, 220) : QColor(30, 30, 30); }

void stylePlot(QCustomPlot* plot, bool dark) {
  const QColor bg = dark ? QColor(30, 32, 36) : QColor(255, 255, 255);
  const QColor fg = plotForeground(dark);
  plot->setBackground(bg);
  plot->legend->setBrush(bg);
  plot->legend->setTextColor(fg);
  plot->legend->setBorderPen(QPen(fg));
  for (QCPAxis* a : {plot->xAxis, plot->yAxis, plot->xAxis2, plot->yAxis2}) {
    a->setBasePen(QPen(fg));
    a->setTickPen(QPen(fg));
    a->setSubTickPen(QPen(fg));
    a->setTickLabelColor(fg);
    a->setLabelColor(fg);
    a->grid()->setPen(QPen(dark ? QColor(70, 70, 75) : QColor(220, 220, 220), 1, Qt::DotLine));
  }
}

}  // namespace tessera::ui
