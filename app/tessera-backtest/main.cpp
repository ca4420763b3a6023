// tessera-backtest: market histories, replay, strategies and sweeps (docs/backtest.md).
#include "backtest/BacktestCommand.h"

#include <iostream>

#ifdef HAVE_TESSERA_UI_BACKTEST
#include "ui/backtest/BacktestReportCharts.h"

#include <QApplication>
#endif

int main(int argc, char** argv) {
#ifdef HAVE_TESSERA_UI_BACKTEST
  // The PNG charts are drawn by QCustomPlot; no display is needed.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  return tessera::backtest::runBacktestCommand(argc, argv, std::cout, std::cerr, tessera::ui::renderReportChartsPng);
#else
  return tessera::backtest::runBacktestCommand(argc, argv, std::cout, std::cerr);
#endif
}
