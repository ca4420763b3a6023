#include "ui/blotter/EmptyTableNote.h"

#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QEvent>
#include <QLabel>

namespace tessera::ui {

EmptyTableNote::EmptyTableNote(QAbstractItemView* view, const QString& text)
    : QObject(view), view_(view), label_(new QLabel(text, view->viewport())) {
  label_->setObjectName("emptyTableNote");
  label_->setAlignment(Qt::AlignCenter);
  label_->setWordWrap(true);
  label_->setMargin(12);
  label_->setEnabled(false);  // the palette's disabled text: a hint, not data
  view_->viewport()->installEventFilter(this);
  QAbstractItemModel* m = view_->model();
  for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
    connect(m, signal, this, [this] { update(); });
  connect(m, &QAbstractItemModel::modelReset, this, [this] { update(); });
  connect(m, &QAbstractItemModel::layoutChanged, this, [this] { update(); });
  update();
}

void EmptyTableNote::setText(const QString& text) { label_->setText(text); }

bool EmptyTableNote::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::Resize) label_->setGeometry(view_->viewport()->rect());
  return QObject::eventFilter(watched, event);
}

void EmptyTableNote::update() {
  label_->setGeometry(view_->viewport()->rect());
  label_->setVisible(view_->model()->rowCount() == 0);
}

}  // namespace tessera::ui
