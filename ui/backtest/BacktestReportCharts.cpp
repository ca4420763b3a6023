#include "ui/backtest/BacktestReportCharts.h"

#include <QApplication>
#include <qcustomplot.h>

namespace tessera::ui {

void drawChart(QCustomPlot& plot, const backtest::ChartSpec& spec) {
  plot.clearGraphs();
  plot.clearPlottables();
  if (plot.plotLayout()->rowCount() > 1) {
    plot.plotLayout()->removeAt(plot.plotLayout()->rowColToIndex(0, 0));
    plot.plotLayout()->simplify();
  }
  plot.plotLayout()->insertRow(0);
  auto* title = new QCPTextElement(&plot, QString::fromStdString(spec.title),
                                   QFont(QApplication::font().family(), 11, QFont::Bold));
  plot.plotLayout()->addElement(0, 0, title);
  plot.xAxis->setLabel(QString::fromStdString(spec.xLabel));
  plot.yAxis->setLabel(QString::fromStdString(spec.yLabel));
  plot.legend->setVisible(true);
  plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  bool any = false;
  for (const auto& s : spec.series) {
    auto* g = plot.addGraph();
    g->setName(QString::fromStdString(s.name));
    QPen pen(QColor(QString::fromStdString(s.color)));
    pen.setWidthF(2.0);
    g->setPen(pen);
    if (s.filled) {
      QColor fill(QString::fromStdString(s.color));
      fill.setAlpha(60);
      g->setBrush(fill);
    }
    QVector<double> x, y;
    x.reserve(static_cast<int>(s.points.size()));
    y.reserve(static_cast<int>(s.points.size()));
    for (auto [px, py] : s.points) {
      x.push_back(px);
      y.push_back(py);
    }
    g->setData(x, y, true);
    any = any || !s.points.empty();
  }
  if (any) {
    plot.rescaleAxes();
    // A flat line (e.g. no trades) still gets a readable axis.
    const QCPRange yr = plot.yAxis->range();
    if (yr.size() < 1e-9)
      plot.yAxis->setRange(yr.lower - 1, yr.upper + 1);
    else
      plot.yAxis->scaleRange(1.1, yr.center());
  }
  plot.replot();
}

}  // namespace tessera::ui
