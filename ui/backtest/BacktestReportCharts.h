#pragma once
// The backtest charts (equity curve, price paid vs market, drawdown) drawn with QCustomPlot
// into the dock's interactive plots. The report files draw the same specs as SVG
// (backtest/SvgChart).
#include "backtest/BacktestResult.h"
#include "backtest/SvgChart.h"

class QCustomPlot;

namespace tessera::ui {

// Replaces the contents of `plot` with `spec` (series, axis labels, legend, title).
void drawChart(QCustomPlot& plot, const backtest::ChartSpec& spec);

}  // namespace tessera::ui
