// tessera-backtest: market histories, replay, strategies and sweeps (docs/backtest.md).
#include "backtest/BacktestCommand.h"

#include <iostream>
#include <string_view>

#ifdef HAVE_TESSERA_BACKTEST_LIVE
#include "backtest/live/LiveCommand.h"
#endif

#ifdef HAVE_TESSERA_UI_BACKTEST
#include "ui/backtest/BacktestReportCharts.h"

#include <QApplication>

#include <memory>
#endif

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--version") {
    std::cout << "tessera-backtest " << TESSERA_VERSION << "\n";
    return 0;
  }
#ifdef HAVE_TESSERA_BACKTEST_LIVE
  if (argc >= 2 && std::string_view(argv[1]) == "live") return tessera::backtest::runLiveCommand(argc, argv, std::cout, std::cerr);
#endif
#ifdef HAVE_TESSERA_UI_BACKTEST
  // PNG charts are drawn by QCustomPlot, which needs a QApplication but no display. It is
  // created only when a report is written, so the other commands stay plain and quiet.
  int qtArgc = 1;
  char* qtArgv[] = {argv[0], nullptr};
  // Destroyed at the end of main, before Qt's own statics.
  std::unique_ptr<QApplication> app;
  auto charts = [&](const tessera::backtest::BacktestResult& r, const std::string& dir, std::string& error) {
    if (!app) {
      if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
      // Qt's complaint about a missing XDG_RUNTIME_DIR is noise for a command-line tool.
      qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& msg) {
        if (type != QtDebugMsg && !msg.contains("XDG_RUNTIME_DIR")) std::cerr << msg.toStdString() << '\n';
      });
      app = std::make_unique<QApplication>(qtArgc, qtArgv);
    }
    return tessera::ui::renderReportChartsPng(r, dir, error);
  };
  return tessera::backtest::runBacktestCommand(argc, argv, std::cout, std::cerr, charts);
#else
  return tessera::backtest::runBacktestCommand(argc, argv, std::cout, std::cerr);
#endif
}
