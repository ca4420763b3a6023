#pragma once
// Mouse helpers for driving custom-painted widgets in offscreen GUI tests.
#include <QApplication>
#include <QMouseEvent>
#include <QWidget>

namespace tessera::ui::testing {

inline void sendMouse(QWidget* w, QEvent::Type type, QPointF pos, Qt::MouseButton button, Qt::MouseButtons buttons) {
  QMouseEvent e(type, pos, w->mapToGlobal(pos), button, buttons, Qt::NoModifier);
  QApplication::sendEvent(w, &e);
}

inline void drag(QWidget* w, QPointF from, QPointF to) {
  sendMouse(w, QEvent::MouseButtonPress, from, Qt::LeftButton, Qt::LeftButton);
  sendMouse(w, QEvent::MouseMove, (from + to) / 2, Qt::NoButton, Qt::LeftButton);
  sendMouse(w, QEvent::MouseMove, to, Qt::NoButton, Qt::LeftButton);
  sendMouse(w, QEvent::MouseButtonRelease, to, Qt::LeftButton, Qt::NoButton);
}

}  // namespace tessera::ui::testing
