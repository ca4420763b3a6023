// The embedded exchange's market mode: Settings > "Embedded exchange trades in calls", chosen
// with real mouse clicks on the menu bar and the menu, is remembered (QSettings) and, once the
// user agrees to restart, the terminal's next embedded exchange on the same paper account
// trades every cluster in calls: its logon_ack says so, and the grid shows the countdown and
// the next call's indicative prices out of the box. `tessera --market-mode` sets the same.
//
// Mutations seen failing: makeBackend not passing embeddedCallMode() to the backend (the
// exchange's schedule has no call-mode cluster); MainWindow's action not calling
// setEmbeddedCallMode (the setting stays continuous).
#include "TestSettings.h"
#include "ui/grid/OrderBookGridView.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"
#include "ui/shell/TerminalOptions.h"

#include <QAbstractButton>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;

namespace {

// The terminal as tessera's main() makes it for `options` on the paper account `journal`.
struct Terminal {
  Terminal(const TerminalOptions& options, const QString& journal)
      : session(std::move(std::get<std::unique_ptr<MarketBackend>>(makeBackend(options, journal)))), window(session) {
    window.setPaperAccount(journal);
    window.setEmbeddedMarketMode(embeddedCallMode());
    window.resize(1500, 950);
    window.show();
    session.start();
  }
  TradingSession session;
  MainWindow window;
};

// Clicks `text` in the menu bar's menu `menuTitle`, as a user does: the title, then the item.
void clickMenu(MainWindow& w, const QString& menuTitle, const QString& text) {
  QMenuBar* bar = w.menuBar();
  QAction* title = nullptr;
  for (QAction* a : bar->actions())
    if (a->text().remove('&') == menuTitle) title = a;
  QVERIFY(title && title->menu());
  QTest::mouseClick(bar, Qt::LeftButton, {}, bar->actionGeometry(title).center());
  QMenu* menu = title->menu();
  QTRY_VERIFY(menu->isVisible());
  QAction* item = nullptr;
  for (QAction* a : menu->actions())
    if (a->text().remove('&') == text) item = a;
  QVERIFY(item && item->isVisible());
  QTest::mouseClick(menu, Qt::LeftButton, {}, menu->actionGeometry(item).center());
}

}  // namespace

class TestEmbeddedMarketMode : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_embedded_market_mode"); }

  void theSettingsMenuPutsTheEmbeddedExchangeInCalls() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString journal = dir.filePath("exchange.db");
    TerminalOptions options;
    options.simulatedHoursPerMinute = 60;
    QVERIFY(!embeddedCallMode());  // continuous unless chosen
    {
      Terminal t(options, journal);
      QTRY_VERIFY_WITH_TIMEOUT(t.session.connection() == ConnectionState::Connected, 10000);
      QTRY_VERIFY_WITH_TIMEOUT(!t.session.clusters().empty(), 10000);
      QVERIFY(!t.session.callAuction().any());  // the exchange trades continuously
      QApplication::setActiveWindow(&t.window);
      QVERIFY(QTest::qWaitForWindowActive(&t.window));
      QSignalSpy restart(&t.window, &MainWindow::embeddedRestartRequested);
      QString asked;
      QTimer::singleShot(0, &t.window, [&] {
        for (int i = 0; i < 500 && !QApplication::activeModalWidget(); ++i) QTest::qWait(10);
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        asked = box->text();
        QTest::mouseClick(box->button(QMessageBox::Yes), Qt::LeftButton);
      });
      clickMenu(t.window, "Settings", "Embedded exchange trades in calls");
      QTRY_COMPARE(restart.count(), 1);
      QVERIFY2(asked.contains("will trade in calls"), qPrintable(asked));
      QVERIFY(embeddedCallMode());
      QCOMPARE(QSettings().value("embeddedExchange/marketMode").toString(), QString("calls"));
    }  // main() closes this terminal and starts the next on the same paper account

    Terminal t(options, journal);
    QTRY_VERIFY_WITH_TIMEOUT(t.session.connection() == ConnectionState::Connected, 10000);
    // The exchange's own schedule (logon_ack): every cluster trades in calls, every 30 s.
    QTRY_VERIFY_WITH_TIMEOUT(t.session.callAuction().schedule.allClusters, 10000);
    QCOMPARE(t.session.callAuction().schedule.periodSeconds, 30);
    auto* grid = t.window.findChild<OrderBookGridView*>("orderBookGrid");
    QVERIFY(grid);
    QTRY_VERIFY2_WITH_TIMEOUT(grid->callBanner().startsWith("Call auction: next call in"),
                              qPrintable(grid->callBanner()), 10000);
    // The simulated market's orders wait for the call: the next call's indicative clearing
    // prices hours of the watched cluster.
    auto priced = [&] {
      const auto& v = t.session.callAuction().indicative;
      if (!v) return false;
      for (const auto& p : v->prices)
        if (grid->indicativePrice(p.hour)) return true;
      return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(priced(), 60000);
    // The menu says the mode now in force.
    QAction* action = t.window.findChild<QAction*>("embeddedCallModeAction");
    QVERIFY(action && action->isVisible() && action->isChecked());
  }

  void theCommandLineChoosesTheModeForTheEmbeddedExchangeOnly() {
    auto parse = [](QStringList args) {
      args.prepend("tessera");
      return parseTerminalOptions(args);
    };
    auto calls = parse({"--market-mode", "calls"});
    QVERIFY(std::holds_alternative<TerminalOptions>(calls));
    QCOMPARE(std::get<TerminalOptions>(calls).callMode, std::optional<bool>(true));
    QCOMPARE(std::get<TerminalOptions>(parse({"--market-mode", "continuous"})).callMode, std::optional<bool>(false));
    QVERIFY(!std::get<TerminalOptions>(parse({})).callMode);
    auto bad = parse({"--market-mode", "auction"});
    QVERIFY(std::holds_alternative<QString>(bad));
    QVERIFY2(std::get<QString>(bad).contains("'calls' or 'continuous'"), qPrintable(std::get<QString>(bad)));
    auto remote = parse({"--market-mode", "calls", "--connect", "host:7400"});
    QVERIFY(std::holds_alternative<QString>(remote));
    QVERIFY(std::get<QString>(remote).contains("--market-mode"));
    setEmbeddedCallMode(false);
    QVERIFY(!embeddedCallMode());
  }
};

QTEST_MAIN(TestEmbeddedMarketMode)
#include "test_embedded_market_mode.moc"
