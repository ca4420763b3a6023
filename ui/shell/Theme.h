#pragma once
// Dark and light palettes for the whole application (Fusion style, so they look the same
// on every desktop).
class QApplication;

namespace tessera::ui {

enum class Theme { Dark, Light };

void applyTheme(QApplication& app, Theme theme);

}  // namespace tessera::ui
