#pragma once
// For README screenshots: trades a little through the GUI, the way a person would (a dragged
// rectangle that buys what the book offers, a resting bid below the market), so the pictures
// show tickets, own orders and contracts. Real orders on the running market, nothing faked.
#include <QStringList>

class QObject;

namespace tessera::ui {

class MainWindow;
class TradingSession;

// Starts the tour; it runs on the GUI thread's event loop over the next ~2 seconds.
void startScreenshotTour(MainWindow& window, TradingSession& session);
// Pictures of what the window shot cannot show at once, into `folder`: the blotter's contracts
// and settlement tabs, a sell ticket with its listing terms, a buy ticket with the terms of the
// asks, and the grid with its hover tooltip. Returns the files written (or errors).
QStringList saveTourShots(MainWindow& window, const QString& folder);

}  // namespace tessera::ui
