// The main window: every frequent action has a shortcut listed in Help, themes switch the
// palette, and the layout and theme survive a restart (QSettings).
#include "TestSettings.h"
#include "OffscreenScreen.h"
#include "ScriptedMarket.h"

#include "ui/session/LocalMarketBackend.h"
#include "ui/session/TradingSession.h"
#include "ui/shell/MainWindow.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

using namespace tessera;
using namespace tessera::ui;
using namespace tessera::ui::testing;

namespace {

std::unique_ptr<MarketBackend> backend() {
  LocalMarketOptions o;
  o.tickMs = 20;
  o.publishMs = 20;
  return std::make_unique<LocalMarketBackend>(ScriptedFeed::factory(), "trader", o);
}

}  // namespace

class TestMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { tessera::ui::testing::useTestSettings("test_main_window"); }

  void frequentActionsHaveShortcuts() {
    TradingSession session(backend());
    MainWindow w(session);
    QStringList keys;
    for (QAction* a : w.shortcutActions()) keys << a->shortcut().toString();
    for (const char* k :
         {"F1", "F2", "F3", "F4", "Ctrl+K", "Ctrl+Shift+K", "Ctrl+E", "Ctrl+T", "Ctrl+1", "Ctrl+F", "Home"})
      QVERIFY2(keys.contains(k), qPrintable(QString("%1 missing from %2").arg(k, keys.join(' '))));
    QCOMPARE(keys.size(), QSet<QString>(keys.begin(), keys.end()).size());  // no shortcut twice
  }

  void themesSwitchThePalette() {
    TradingSession session(backend());
    MainWindow w(session);
    w.setTheme(Theme::Dark);
    const QColor dark = QApplication::palette().color(QPalette::Base);
    w.setTheme(Theme::Light);
    const QColor light = QApplication::palette().color(QPalette::Base);
    QVERIFY(dark.lightness() < 80);
    QVERIFY(light.lightness() > 200);
    QCOMPARE(QSettings().value("ui/theme").toString(), QString("light"));
  }

  void priceIndexDockIsInTheViewMenuAndTheLayout() {
    {
      TradingSession session(backend());
      MainWindow w(session);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      auto* dock = w.findChild<QDockWidget*>("indexDock");
      QVERIFY(dock);
      QCOMPARE(dock->windowTitle(), QString("Price index"));
      bool inViewMenu = false;
      for (QMenu* m : w.menuBar()->findChildren<QMenu*>()) {
        if (m->title().remove('&') == "View") inViewMenu = m->actions().contains(dock->toggleViewAction());
      }
      QVERIFY(inViewMenu);
      // Shown by default (tabbed with the price chart); hidden from the menu, it stays hidden.
      QVERIFY(!dock->isHidden());
      dock->toggleViewAction()->trigger();
      QVERIFY(dock->isHidden());
      w.close();  // saves
    }
    TradingSession session(backend());
    MainWindow w(session);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.findChild<QDockWidget*>("indexDock")->isHidden());
    w.findChild<QDockWidget*>("indexDock")->show();
    w.close();
  }

  void layoutSurvivesARestart() {
    {
      TradingSession session(backend());
      MainWindow w(session);
      w.resize(1400, 1000);
      w.show();
      QVERIFY(QTest::qWaitForWindowExposed(&w));
      w.findChild<QDockWidget*>("tapeDock")->hide();
      w.close();  // saves
    }
    TradingSession session(backend());
    MainWindow w(session);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(!w.findChild<QDockWidget*>("tapeDock")->isVisible());
    QVERIFY(w.findChild<QDockWidget*>("blotterDock")->isVisible());
    QCOMPARE(w.size(), QSize(1400, 1000));
  }
};

// A 1920 x 1080 screen: the 1400 x 1000 window the layout test saves fits it, so it comes back
// at that size (a saved window larger than the screen is brought within it: test_layout_fit).
int main(int argc, char** argv) { return runOnOffscreenScreen<TestMainWindow>(QSize(1920, 1080), argc, argv); }
#include "test_main_window.moc"
