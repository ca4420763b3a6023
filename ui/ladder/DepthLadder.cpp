#include "ui/ladder/DepthLadder.h"

#include "ui/shell/DisplayFormat.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace tessera::ui {

DepthLadder::DepthLadder(QWidget* parent) : QWidget(parent), model_(new DepthLadderModel(this)) {
  setObjectName("depthLadder");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  title_ = new QLabel(this);
  title_->setObjectName("ladderTitle");
  title_->setWordWrap(true);
  layout->addWidget(title_);
  empty_ = new QLabel(this);
  empty_->setObjectName("ladderEmpty");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  layout->addWidget(empty_);
  view_ = new QTableView(this);
  view_->setObjectName("ladderView");
  view_->setModel(model_);
  view_->verticalHeader()->hide();
  view_->verticalHeader()->setDefaultSectionSize(20);
  view_->setSelectionMode(QAbstractItemView::NoSelection);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  view_->horizontalHeader()->setMinimumSectionSize(40);
  view_->setMouseTracking(true);
  layout->addWidget(view_, 1);
  connect(view_, &QAbstractItemView::clicked, this, [this](const QModelIndex& i) {
    const LadderRow* r = model_->rowAt(i.row());
    if (!r) return;
    Side side = r->side;
    if (i.column() == DepthLadderModel::MyBids || i.column() == DepthLadderModel::Bids) side = Side::Buy;
    if (i.column() == DepthLadderModel::Asks || i.column() == DepthLadderModel::MyAsks) side = Side::Sell;
    emit levelClicked(side, r->price, std::max<GpuCount>(r->gpus, 1), model_->first(), model_->end());
  });
  dwell_ = new QTimer(this);
  dwell_->setSingleShot(true);
  dwell_->setInterval(kDwellMs);
  connect(dwell_, &QTimer::timeout, this, [this] {
    ticket_ = false;
    setHours(pendingFirst_, pendingEnd_);
    refresh();
  });
  refresh();
}

void DepthLadder::showTicketHours(Hour first, Hour end) {
  dwell_->stop();
  ticket_ = true;
  setHours(first, end);
  refresh();
}

void DepthLadder::followHours(Hour first, Hour end) {
  if (end - first > 1) {
    dwell_->stop();
    ticket_ = false;
    setHours(first, end);
    return;
  }
  pendingFirst_ = first;
  pendingEnd_ = end;
  dwell_->start();
}

void DepthLadder::setHours(Hour first, Hour end) {
  if (first == first_ && end == end_) return;
  first_ = first;
  end_ = end;
  scrolled_ = false;
  refresh();
}

void DepthLadder::setBook(BookSnapshotPtr book, const QString& name) {
  book_ = std::move(book);
  name_ = name;
  // Until the cursor has been on the grid, show the first hour the book has.
  if (end_ <= first_ && book_ && !book_->cells.empty()) {
    first_ = std::max(book_->firstHour, book_->now + 1);
    end_ = first_ + 1;
  }
  refresh();
}

void DepthLadder::setOwnOrders(std::vector<OrderView> own) {
  own_ = std::move(own);
  refresh();
}

int DepthLadder::rowOf(Side side, Price price) const {
  for (int r = 0; r < model_->rowCount(); ++r)
    if (model_->rowAt(r)->side == side && model_->rowAt(r)->price == price) return r;
  return -1;
}

void DepthLadder::refresh() {
  model_->setState(book_, own_, first_, end_);
  const QString hours = end_ - first_ <= 1
                            ? formatHour(first_)
                            : tr("%1 to %2 (%3 h)").arg(formatHour(first_), formatHour(end_)).arg(end_ - first_);
  title_->setText(name_.isEmpty()
                      ? tr("Depth ladder")
                      : tr("<b>%1</b>  %2%3").arg(name_, hours, ticket_ ? tr("  (the ticket's hours)") : QString()));
  QString why;
  if (!book_ || name_.isEmpty())
    why = tr("No book yet: select a cluster in the Clusters list.");
  else if (end_ <= first_)
    why = tr("Point at an hour on the grid to see its price levels.");
  else if (!model_->covered())
    why = tr("The grid's book does not cover these hours (they are past, or not loaded yet).");
  else if (model_->rowCount() == 0)
    why = end_ - first_ <= 1 ? tr("Nobody bids or offers in this hour.")
                             : tr("No price is offered or bid in every one of these hours.");
  empty_->setText(why);
  empty_->setVisible(!why.isEmpty());
  view_->setVisible(why.isEmpty());
  if (!scrolled_ && model_->rowCount() > 0) {
    // Centre on the spread: the lowest ask.
    int lowestAsk = 0;
    for (int r = 0; r < model_->rowCount(); ++r)
      if (model_->rowAt(r)->side == Side::Sell) lowestAsk = r;
    view_->scrollTo(model_->index(lowestAsk, DepthLadderModel::PriceColumn), QAbstractItemView::PositionAtCenter);
    scrolled_ = true;
  }
}

}  // namespace tessera::ui
