#pragma once
// Saves PNGs of the main window and of each dock (for the README and for checking layouts).
#include <QString>

class QMainWindow;

namespace tessera::ui {

// Returns the files written, or throws nothing: a file that cannot be written is reported in
// the returned list as "error: ...".
QStringList saveScreenshots(QMainWindow& window, const QString& windowFile, const QString& dockFolder);

}  // namespace tessera::ui
