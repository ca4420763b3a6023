// tessera: the desktop trading terminal. All logic lives in tessera_ui.
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/ScreenshotTour.h"
#include "ui/shell/Screenshots.h"
#include "ui/shell/TerminalOptions.h"

#include <QApplication>
#include <QMessageBox>
#include <QSettings>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName("Tessera");
  QApplication::setApplicationName("tessera");
  QApplication::setApplicationVersion(TESSERA_VERSION);
  QApplication::setApplicationDisplayName("Tessera");

  auto parsed = tessera::ui::parseTerminalOptions(QApplication::arguments());
  if (auto* message = std::get_if<QString>(&parsed)) {
    std::fprintf(stdout, "%s\n", qPrintable(*message));
    return message->startsWith("Usage") || message->startsWith("tessera ") ? 0 : 2;
  }
  const auto& options = std::get<tessera::ui::TerminalOptions>(parsed);
  if (options.resetLayout) QSettings().remove("window");

  auto backend = tessera::ui::makeBackend(options);
  if (auto* error = std::get_if<QString>(&backend)) {
    QMessageBox::critical(nullptr, "Tessera", *error);
    std::fprintf(stderr, "tessera: %s\n", qPrintable(*error));
    return 1;
  }
  tessera::ui::TradingSession session(std::move(std::get<0>(backend)));
  tessera::ui::MainWindow window(session);
  window.show();
  session.start();

  if (options.screenshotTour) tessera::ui::startScreenshotTour(window, session);
  if (!options.screenshot.isEmpty() || !options.screenshotDocks.isEmpty()) {
    QTimer::singleShot(static_cast<int>(options.screenshotAfterSeconds * 1000), &window, [&] {
      for (const QString& f : tessera::ui::saveScreenshots(window, options.screenshot, options.screenshotDocks))
        std::fprintf(stdout, "%s\n", qPrintable(f));
      if (options.screenshotTour && !options.screenshotDocks.isEmpty()) {
        for (const QString& f : tessera::ui::saveTourShots(window, options.screenshotDocks))
          std::fprintf(stdout, "%s\n", qPrintable(f));
      }
      QApplication::quit();
    });
  }
  return QApplication::exec();
}
