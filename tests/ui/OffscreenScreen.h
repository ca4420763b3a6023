#pragma once
// Runs a Qt Test object on an offscreen screen of a given size (the offscreen platform's
// configfile), for tests whose windows depend on the screen: a layout saved on a larger screen,
// a window that must fit a laptop's 1366 x 768.
#include <QApplication>
#include <QFile>
#include <QSize>
#include <QTemporaryDir>
#include <QtTest>

namespace tessera::ui::testing {

template <typename Test>
int runOnOffscreenScreen(QSize size, int argc, char** argv) {
  QTemporaryDir dir;
  const QString config = dir.filePath("screen.json");
  QFile f(config);
  if (!f.open(QIODevice::WriteOnly)) return 2;
  f.write(QStringLiteral(R"({"screens":[{"name":"screen","x":0,"y":0,"width":%1,"height":%2,)"
                         R"("logicalDpi":96,"logicalBaseDpi":96,"dpr":1}]})")
              .arg(size.width())
              .arg(size.height())
              .toUtf8());
  f.close();
  qputenv("QT_QPA_PLATFORM", ("offscreen:configfile=" + config).toLocal8Bit());
  QApplication app(argc, argv);
  Test test;
  return QTest::qExec(&test, argc, argv);
}

}  // namespace tessera::ui::testing
