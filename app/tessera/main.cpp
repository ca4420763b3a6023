// tessera: the desktop trading terminal. All logic lives in tessera_ui.
#include "ui/session/PaperAccount.h"
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
#include <memory>

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
  // --market-mode is remembered, as the Settings menu's choice is.
  if (options.callMode) tessera::ui::setEmbeddedCallMode(*options.callMode);

  // The paper account stays locked by this process across a restart for a new one.
  std::unique_ptr<tessera::ui::PaperAccount> paper;
  if (tessera::ui::usesPaperAccount(options)) {
    paper = std::make_unique<tessera::ui::PaperAccount>(
        options.paperAccount.isEmpty() ? tessera::ui::PaperAccount::defaultJournalPath() : options.paperAccount);
  }
  bool fresh = options.fresh;
  for (;;) {
    QString journal;
    if (paper) {
      auto chosen = tessera::ui::chooseJournal(*paper, fresh, [](const QString& why) {
        std::fprintf(stderr, "tessera: %s\n", qPrintable(QString(why).replace('\n', ' ')));
        return QMessageBox::question(nullptr, "Tessera",
                                     why +
                                         "\n\nRun this terminal with a temporary paper account in memory instead? "
                                         "Nothing of it is kept when it quits.",
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::No) == QMessageBox::Yes;
      });
      if (!chosen) return 1;
      journal = *chosen;
      fresh = false;
    }
    auto backend = tessera::ui::makeBackend(options, journal);
    if (auto* error = std::get_if<QString>(&backend)) {
      QMessageBox::critical(nullptr, "Tessera", *error);
      std::fprintf(stderr, "tessera: %s\n", qPrintable(*error));
      return 1;
    }
    bool startOver = false;  // a new paper account
    bool restart = false;    // the same paper account, in the market mode now chosen
    {
      const std::function<QString()> exchange = tessera::ui::exchangeAddress(options, *std::get<0>(backend));
      tessera::ui::TradingSession session(std::move(std::get<0>(backend)));
      tessera::ui::MainWindow window(session);
      if (paper && paper->owned() && journal == paper->journalPath()) window.setPaperAccount(journal);
      if (tessera::ui::usesPaperAccount(options)) window.setEmbeddedMarketMode(tessera::ui::embeddedCallMode());
      if (const QString onFill = tessera::ui::onFillStatePath(options, journal); !onFill.isEmpty())
        window.enableOnFill(onFill, options.account, exchange);
      QObject::connect(&window, &tessera::ui::MainWindow::newPaperAccountRequested, &window, [&] {
        startOver = true;
        window.close();
        QApplication::quit();
      });
      QObject::connect(&window, &tessera::ui::MainWindow::embeddedRestartRequested, &window, [&] {
        restart = true;
        window.close();
        QApplication::quit();
      });
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
      const int rc = QApplication::exec();
      if (!startOver && !restart) return rc;
    }  // the session stops the exchange and closes its journal here
    fresh = startOver;
  }
}
