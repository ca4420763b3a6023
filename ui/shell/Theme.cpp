#include "ui/shell/Theme.h"

#include <QApplication>
#include <QPalette>
#include <QStyle>
#include <QStyleFactory>

namespace tessera::ui {

void applyTheme(QApplication& app, Theme theme) {
  app.setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
  QPalette p;
  if (theme == Theme::Dark) {
    const QColor window(37, 39, 43), base(24, 26, 29), text(222, 224, 228), mid(60, 63, 68);
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, QColor(32, 34, 38));
    p.setColor(QPalette::ToolTipBase, QColor(50, 52, 58));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, window);
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(255, 90, 90));
    p.setColor(QPalette::Highlight, QColor(45, 140, 235));
    p.setColor(QPalette::HighlightedText, QColor(255, 255, 255));
    p.setColor(QPalette::Link, QColor(90, 170, 255));
    p.setColor(QPalette::Mid, mid);
    p.setColor(QPalette::PlaceholderText, QColor(130, 133, 140));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(120, 122, 128));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(120, 122, 128));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(120, 122, 128));
  } else {
    p = app.style()->standardPalette();
    p.setColor(QPalette::Highlight, QColor(30, 110, 210));
    p.setColor(QPalette::Base, QColor(252, 252, 252));
  }
  app.setPalette(p);
}

}  // namespace tessera::ui
