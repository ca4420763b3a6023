#pragma once
// The centre of the terminal: delivery hours across, GPUs up (asks) and down (bids), colour
// for price. Wheel zooms, middle-drag or the scrollbar pans, left-drag selects a rectangle of
// GPUs x hours for an order ticket. Own orders are outlined, own contracts filled, trades flash.
// A drag is the order: the scales and the zero line hold still from press to release, the
// rectangle snaps to whole hours and whole nodes (Shift: single GPUs), and the selection shown
// while dragging is the one handed on. Clicking an own order's outline selects it; its context
// menu amends or cancels it.
#include "ui/grid/OrderBookGridModel.h"
#include "ui/grid/PriceColourScale.h"

#include <QElapsedTimer>
#include <QWidget>

#include <deque>
#include <optional>

class QScrollBar;
class QTimer;

namespace tessera::ui {

// What a dragged rectangle asks for. Dragged above the axis: buy those asks; below: sell.
struct GridSelection {
  Hour start = 0;
  Hour end = 0;
  GpuCount gpus = 0;
  Side side = Side::Buy;
  bool operator==(const GridSelection&) const = default;
};

class OrderBookGridView : public QWidget {
  Q_OBJECT
 public:
  explicit OrderBookGridView(QWidget* parent = nullptr);

  void setSnapshot(BookSnapshotPtr snapshot);
  const OrderBookGridModel& model() const { return model_; }
  // The colour scale: the 5th to the 95th percentile of the shown book's prices by GPU-hours.
  const PriceColourScale& colourScale() const { return colours_; }
  static constexpr double kColourLowShare = 0.05;
  static constexpr double kColourHighShare = 0.95;
  // What the legend says of the range, in words (its tooltip, and for a test).
  QString legendText() const;
  void setTitle(const QString& title);
  void setNow(Hour now);
  void setOwnOrders(std::vector<OrderView> orders);
  // GPUs per step of a drag without Shift (the cluster's GPUs per node).
  void setGpuStep(GpuCount step) { gpuStep_ = std::max<GpuCount>(1, step); }
  GpuCount gpuStep() const { return gpuStep_; }
  // The rectangle being dragged, as it will be handed on at release.
  std::optional<GridSelection> dragSelection() const { return selecting_ ? std::optional(current_) : std::nullopt; }
  // The own working order whose outline is at `pos`, if any.
  std::optional<OrderId> ownOrderAt(QPointF pos) const;
  // `held`: the shape left of each bought contract after its sales (drawn instead of the whole rectangle).
  void setOwnContracts(std::vector<Contract> contracts, AccountId me, std::vector<ContractMark> held = {});
  void flashTrades(const std::vector<TradePrint>& trades);
  // The call mode for the cluster shown: when it trades in calls, the next call's indicative
  // clearing (a price mark per hour, accepted blocks outlined) and a countdown to the call.
  void setCallAuction(const CallAuctionView& view, ClusterId shown);
  // The countdown line ("" for a continuous cluster) and the indicative price of an hour.
  QString callBanner() const;
  std::optional<Price> indicativePrice(Hour h) const;

  // The visible window of delivery hours.
  void setVisibleHours(Hour first, double hours);
  double visibleFirstHour() const { return viewStart_; }
  double visibleHourCount() const { return viewHours_; }
  void zoomBy(double factor, double aroundHour);
  void panBy(double hours);

  // Widget coordinates of the point (hour, gpu); gpu < 0 is below the axis (bids).
  QPointF pointOf(double hour, double gpu) const;
  double hourAt(double x) const;
  double gpuAt(double y) const;
  QRectF plotRect() const;
  QString describeAt(QPoint pos) const;  // the hover text
  // The terms line of the hover text: the hovered ask level's, else the hour's best ask's.
  QString termsTooltip(Hour h, const std::optional<GridHit>& hit) const;

 signals:
  void selectionMade(const tessera::ui::GridSelection& selection);
  void ownOrderClicked(tessera::OrderId order);
  void amendOrderRequested(tessera::OrderId order);
  // A right click on the title (the watched cluster): the caller offers its menu there.
  void titleMenuRequested(QPoint globalPos);
  void cancelOrderRequested(tessera::OrderId order);
  void visibleHoursChanged(double first, double hours);
  // The delivery hours [first, end) under the cursor (one hour), or of the drag being made.
  void hoursUnderCursor(tessera::Hour first, tessera::Hour end);

 protected:
  void paintEvent(QPaintEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void keyPressEvent(QKeyEvent*) override;
  bool event(QEvent*) override;

 private:
  void updateScales();
  void noteHoursUnderCursor(Hour first, Hour end);
  Hour cursorFirst_ = 0;
  Hour cursorEnd_ = 0;
  void syncScrollBar();
  void paintColumns(QPainter& p, const QRectF& plot) const;
  void paintOverlays(QPainter& p, const QRectF& plot) const;
  void paintAxes(QPainter& p, const QRectF& plot) const;
  void paintLegend(QPainter& p, const QRectF& plot) const;
  QRectF rectOf(Hour start, Hour end, double gpuLow, double gpuHigh) const;
  // The scales a drag is measured in, fixed at the press.
  struct DragFrame {
    QRectF plot;
    double viewStart = 0;
    double viewHours = 1;
    double yAskMax = 1;
    double yBidMax = 1;
    double hourAt(double x) const { return viewStart + (x - plot.left()) / plot.width() * viewHours; }
    double gpuAt(double y) const {
      const double perGpu = plot.height() / (yAskMax + yBidMax);
      return (plot.top() + yAskMax * perGpu - y) / perGpu;
    }
  };
  GridSelection selectionOf(QPointF a, QPointF b, bool singleGpus) const;
  void showOrderMenu(OrderId id, QPoint globalPos);

  OrderBookGridModel model_;
  PriceColourScale colours_;
  bool clippedBelow_ = false;  // some prices lie below the scale's low end
  bool clippedAbove_ = false;
  QString legendNote() const;
  QString title_;
  Hour now_ = 0;
  std::vector<OrderView> ownOrders_;
  std::vector<Contract> ownContracts_;
  std::vector<ContractMark> held_;
  AccountId me_ = 0;
  struct Flash {
    TradePrint trade;
    qint64 atMs = 0;
  };
  std::deque<Flash> flashes_;
  bool callMode_ = false;
  CallAuctionView calls_;
  ClusterId callCluster_ = 0;
  QTimer* callTimer_ = nullptr;  // the countdown's repaint, once a second
  void paintCall(QPainter& p, const QRectF& plot) const;
  QElapsedTimer clock_;
  QTimer* flashTimer_ = nullptr;
  QScrollBar* scroll_ = nullptr;
  bool syncingScroll_ = false;

  double viewStart_ = 0;
  double viewHours_ = 24 * 7;
  double yAskMax_ = 8;
  double yBidMax_ = 8;

  bool selecting_ = false;
  QPointF selectFrom_;
  QPointF selectTo_;
  DragFrame frame_;
  GridSelection current_;
  GpuCount gpuStep_ = 8;
  bool rightMoved_ = false;
  bool panning_ = false;
  QPointF panFrom_;
  double panStartHour_ = 0;
};

}  // namespace tessera::ui

Q_DECLARE_METATYPE(tessera::ui::GridSelection)
