#pragma once
// For README screenshots: trades a little through the GUI, the way a person would (a dragged
// rectangle that buys what the book offers, a resting bid below the market), so the pictures
// show tickets, own orders and contracts. Real orders on the running market, nothing faked.
class QObject;

namespace tessera::ui {

class MainWindow;
class TradingSession;

// Starts the tour; it runs on the GUI thread's event loop over the next ~2 seconds.
void startScreenshotTour(MainWindow& window, TradingSession& session);

}  // namespace tessera::ui
