#include "ui/shell/Screenshots.h"

#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QMainWindow>
#include <QPixmap>

namespace tessera::ui {

QStringList saveScreenshots(QMainWindow& window, const QString& windowFile, const QString& dockFolder) {
  QStringList out;
  auto save = [&out](QWidget& w, const QString& file) {
    if (w.grab().save(file))
      out << file;
    else
      out << QStringLiteral("error: could not write %1").arg(file);
  };
  if (!windowFile.isEmpty()) save(window, windowFile);
  if (!dockFolder.isEmpty()) {
    QDir().mkpath(dockFolder);
    for (QDockWidget* d : window.findChildren<QDockWidget*>()) {
      if (!d->isVisible()) continue;
      // A dock tabbed behind another shows nothing until raised.
      d->raise();
      QCoreApplication::processEvents();
      QCoreApplication::processEvents();
      save(*d, QDir(dockFolder).filePath(d->objectName() + ".png"));
    }
  }
  return out;
}

}  // namespace tessera::ui
