#pragma once
// The backtest report charts (equity curve, price paid vs market, drawdown) drawn with
// QCustomPlot: into the dock's plots, and as PNG files for the HTML report.
#include "backtest/BacktestResult.h"
#include "backtest/SvgChart.h"

#include <string>
#include <vector>

class QCustomPlot;

namespace tessera::ui {

// Replaces the contents of `plot` with `spec` (series, axis labels, legend, title).
void drawChart(QCustomPlot& plot, const backtest::ChartSpec& spec);

// Writes equity.png, price.png and drawdown.png into `dir` and returns their names; on failure
// returns nothing and says why in `error`. Needs a QApplication (any platform, offscreen too).
std::vector<std::string> renderReportChartsPng(const backtest::BacktestResult& r, const std::string& dir,
                                               std::string& error);

}  // namespace tessera::ui
