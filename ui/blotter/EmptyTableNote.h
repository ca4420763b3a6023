#pragma once
// A line over an empty table that says why it is empty and how to fill it ("No working orders
// — drag on the grid or press F2 to place one"); hidden while the table has rows.
#include <QObject>
#include <QString>

class QAbstractItemView;
class QLabel;

namespace tessera::ui {

class EmptyTableNote : public QObject {
  Q_OBJECT
 public:
  EmptyTableNote(QAbstractItemView* view, const QString& text);
  void setText(const QString& text);
  QLabel* label() const { return label_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void update();
  QAbstractItemView* view_;
  QLabel* label_;
};

}  // namespace tessera::ui
