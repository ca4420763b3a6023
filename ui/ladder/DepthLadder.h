#pragma once
// The "Depth ladder" dock: the DOM of the hour (or hours) under the grid's cursor on the watched
// cluster, with the account's own orders; a click on a level asks for a ticket at its price for
// those hours, on the side of the column clicked as in TWS's BookTrader (bid columns: buy, ask
// columns: sell; the price column: the level's own side). Says why it is empty when it is.
#include "ui/ladder/DepthLadderModel.h"

#include <QWidget>

class QLabel;
class QTableView;
class QTimer;

namespace tessera::ui {

class DepthLadder : public QWidget {
  Q_OBJECT
 public:
  explicit DepthLadder(QWidget* parent = nullptr);
  // Which hours [first, end) the ladder shows.
  void setHours(Hour first, Hour end);
  // The hours under the grid's cursor: one hour is shown once the cursor rests on it for a
  // moment (kDwellMs), so sweeping across the grid on the way to the ladder changes nothing;
  // the hours of a drag are shown at once.
  void followHours(Hour first, Hour end);
  static constexpr int kDwellMs = 250;
  // The hours of the ticket being written: shown at once, until the cursor rests on the grid.
  void showTicketHours(Hour first, Hour end);
  bool showsTicket() const { return ticket_; }
  // The watched book, its name ("us-east-h100-a"), and the account's working orders.
  void setBook(BookSnapshotPtr book, const QString& name);
  void setOwnOrders(std::vector<OrderView> own);
  const DepthLadderModel& model() const { return *model_; }
  QTableView* view() const { return view_; }
  // The view row of the level at `price` on `side`, or -1.
  int rowOf(Side side, Price price) const;

 signals:
  // A level was clicked: an order of `side` at `price` for hours [first, end); `gpus` at the level.
  void levelClicked(tessera::Side side, tessera::Price price, tessera::GpuCount gpus, tessera::Hour first,
                    tessera::Hour end);

 private:
  void refresh();

  DepthLadderModel* model_;
  QLabel* title_;
  QLabel* empty_;
  QTableView* view_;
  BookSnapshotPtr book_;
  QString name_;
  std::vector<OrderView> own_;
  Hour first_ = 0;
  Hour end_ = 0;
  bool scrolled_ = false;
  bool ticket_ = false;  // the hours shown are the ticket's
  QTimer* dwell_;
  Hour pendingFirst_ = 0;
  Hour pendingEnd_ = 0;
};

}  // namespace tessera::ui
