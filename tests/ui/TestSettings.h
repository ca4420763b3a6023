#pragma once
// The terminal's tests keep their settings apart from the user's and from each other: Qt's test
// mode (QStandardPaths' test locations), the organisation "TesseraTest" and the test's own
// application name. `fresh` clears what an earlier run saved, so a test starts from the default
// layout; a test that clears in init() or never saves passes false.
#include <QCoreApplication>
#include <QSettings>
#include <QStandardPaths>

namespace tessera::ui::testing {

inline void useTestSettings(const char* testName, bool fresh = true) {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("TesseraTest");
  QCoreApplication::setApplicationName(testName);
  if (fresh) QSettings().clear();
}

}  // namespace tessera::ui::testing
