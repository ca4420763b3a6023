#include "ui/grid/OrderBookGridView.h"

#include "ui/shell/DisplayFormat.h"
#include "ui/shell/TermsFormat.h"

#include <QDateTime>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace tessera::ui {
namespace {

constexpr double kLeft = 64;
constexpr double kRight = 96;
constexpr double kTop = 28;
constexpr double kBottom = 58;  // time labels, axis title, scrollbar
constexpr int kScrollHeight = 14;
constexpr qint64 kFlashMs = 1500;
constexpr double kMinViewHours = 6;
constexpr double kMaxViewHours = 24 * 62;

// The smallest "nice" number (1, 2, 5 x 10^n) at or above v.
double niceCeil(double v) {
  if (v <= 0) return 1;
  const double e = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (m * e >= v) return m * e;
  }
  return 10 * e;
}

double niceStep(double range, int targetTicks) {
  // Tick steps stay on 1, 2, 5 x 10^n so labels read as round numbers.
  const double raw = range / std::max(1, targetTicks);
  const double e = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * e >= raw) return m * e;
  }
  return 10 * e;
}

}  // namespace

OrderBookGridView::OrderBookGridView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setMinimumSize(480, 300);
  setAttribute(Qt::WA_OpaquePaintEvent);
  clock_.start();
  flashTimer_ = new QTimer(this);
  flashTimer_->setInterval(33);  // ~30 fps while something flashes, idle otherwise
  connect(flashTimer_, &QTimer::timeout, this, [this] {
    const qint64 t = clock_.elapsed();
    while (!flashes_.empty() && t - flashes_.front().atMs > kFlashMs) flashes_.pop_front();
    if (flashes_.empty()) flashTimer_->stop();
    update();
  });
  scroll_ = new QScrollBar(Qt::Horizontal, this);
  scroll_->setObjectName("gridScroll");
  connect(scroll_, &QScrollBar::valueChanged, this, [this](int v) {
    if (syncingScroll_) return;
    setVisibleHours(v, viewHours_);
  });
}

void OrderBookGridView::setSnapshot(BookSnapshotPtr snapshot) {
  const bool hadHours = model_.hours() > 0;
  model_.setSnapshot(std::move(snapshot));
  if (selecting_) {
    // A drag is measured in the scales it started with: they change after the release.
    update();
    return;
  }
  // Bring the view onto the book when the first real one arrives, or the book moved away from it.
  if (model_.hours() > 0 && (!hadHours || viewStart_ + viewHours_ <= model_.firstHour() ||
                             viewStart_ >= model_.firstHour() + model_.hours())) {
    setVisibleHours(model_.firstHour(), std::min<double>(viewHours_, std::max(24, model_.hours())));
  }
  updateScales();
  syncScrollBar();
  update();
}

void OrderBookGridView::setTitle(const QString& title) {
  title_ = title;
  update();
}

void OrderBookGridView::setNow(Hour now) {
  now_ = now;
  update();
}

void OrderBookGridView::setOwnOrders(std::vector<OrderView> orders) {
  ownOrders_ = std::move(orders);
  update();
}

void OrderBookGridView::setOwnContracts(std::vector<Contract> contracts, AccountId me, std::vector<ContractMark> held) {
  ownContracts_ = std::move(contracts);
  held_ = std::move(held);
  me_ = me;
  update();
}

void OrderBookGridView::flashTrades(const std::vector<TradePrint>& trades) {
  const auto snap = model_.snapshot();
  if (!snap) return;
  const qint64 t = clock_.elapsed();
  for (const TradePrint& tp : trades) {
    if (std::find(snap->clusters.begin(), snap->clusters.end(), tp.cluster) == snap->clusters.end()) continue;
    flashes_.push_back(Flash{tp, t});
  }
  while (flashes_.size() > 400) flashes_.pop_front();
  if (!flashes_.empty() && !flashTimer_->isActive()) flashTimer_->start();
}

void OrderBookGridView::setVisibleHours(Hour first, double hours) {
  if (selecting_) return;  // the view holds still under a drag
  viewHours_ = std::clamp(hours, kMinViewHours, kMaxViewHours);
  double lo = static_cast<double>(first);
  if (model_.snapshot()) {
    const double domainLo = model_.firstHour();
    const double domainHi = model_.firstHour() + std::max<double>(model_.hours(), viewHours_);
    lo = std::clamp(lo, domainLo, std::max(domainLo, domainHi - viewHours_));
  }
  viewStart_ = lo;
  syncScrollBar();
  emit visibleHoursChanged(viewStart_, viewHours_);
  update();
}

void OrderBookGridView::zoomBy(double factor, double aroundHour) {
  const double newHours = std::clamp(viewHours_ * factor, kMinViewHours, kMaxViewHours);
  const double frac = (aroundHour - viewStart_) / viewHours_;
  const double start = aroundHour - frac * newHours;
  viewHours_ = newHours;
  setVisibleHours(static_cast<Hour>(std::llround(start)), newHours);
}

void OrderBookGridView::panBy(double hours) {
  setVisibleHours(static_cast<Hour>(std::llround(viewStart_ + hours)), viewHours_);
}

void OrderBookGridView::updateScales() {
  // Round the axes up to nice values so the picture does not breathe with every update.
  const double ask = niceCeil(std::max<double>(8, model_.maxAskDepth() * 1.05));
  const double bid = niceCeil(std::max<double>(4, model_.maxBidDepth() * 1.05));
  yAskMax_ = ask;
  yBidMax_ = std::max(bid, ask * 0.3);
  if (model_.minPrice() && model_.maxPrice()) {
    // The middle 90% of the book's GPU-hours span the colours; prices beyond take the end colours.
    const Price cent = kMicrosPerDollar / 100;
    const Price lo = (*model_.pricePercentile(kColourLowShare) / cent) * cent;
    const Price hi = ((*model_.pricePercentile(kColourHighShare) + cent - 1) / cent) * cent;
    colours_.setRange(lo, std::max(hi, lo + 10 * cent));
    clippedBelow_ = *model_.minPrice() < colours_.low();
    clippedAbove_ = *model_.maxPrice() > colours_.high();
  }
}

void OrderBookGridView::syncScrollBar() {
  syncingScroll_ = true;
  const int lo = static_cast<int>(model_.snapshot() ? model_.firstHour() : 0);
  const int hi = static_cast<int>(model_.snapshot() ? model_.firstHour() + model_.hours() - viewHours_ : 0);
  scroll_->setRange(lo, std::max(lo, hi));
  scroll_->setPageStep(static_cast<int>(viewHours_));
  scroll_->setSingleStep(std::max(1, static_cast<int>(viewHours_ / 10)));
  scroll_->setValue(static_cast<int>(std::llround(viewStart_)));
  syncingScroll_ = false;
}

QRectF OrderBookGridView::plotRect() const {
  return QRectF(kLeft, kTop, std::max(10.0, width() - kLeft - kRight), std::max(10.0, height() - kTop - kBottom));
}

QPointF OrderBookGridView::pointOf(double hour, double gpu) const {
  const QRectF r = plotRect();
  const double x = r.left() + (hour - viewStart_) / viewHours_ * r.width();
  const double perGpu = r.height() / (yAskMax_ + yBidMax_);
  const double axis = r.top() + yAskMax_ * perGpu;
  return {x, axis - gpu * perGpu};
}

double OrderBookGridView::hourAt(double x) const {
  const QRectF r = plotRect();
  return viewStart_ + (x - r.left()) / r.width() * viewHours_;
}

double OrderBookGridView::gpuAt(double y) const {
  const QRectF r = plotRect();
  const double perGpu = r.height() / (yAskMax_ + yBidMax_);
  const double axis = r.top() + yAskMax_ * perGpu;
  return (axis - y) / perGpu;
}

QRectF OrderBookGridView::rectOf(Hour start, Hour end, double gpuLow, double gpuHigh) const {
  return QRectF(pointOf(static_cast<double>(start), gpuHigh), pointOf(static_cast<double>(end), gpuLow)).normalized();
}

void OrderBookGridView::resizeEvent(QResizeEvent*) {
  scroll_->setGeometry(static_cast<int>(kLeft), height() - kScrollHeight, static_cast<int>(plotRect().width()),
                       kScrollHeight);
}

void OrderBookGridView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().color(QPalette::Base));
  const QRectF plot = plotRect();
  p.save();
  p.setClipRect(plot);
  // Hours already delivered cannot trade: shade them.
  const double nowX = pointOf(static_cast<double>(now_), 0).x();
  if (nowX > plot.left()) {
    QColor past = palette().color(QPalette::Text);
    past.setAlpha(18);
    p.fillRect(QRectF(plot.left(), plot.top(), std::min(nowX, plot.right()) - plot.left(), plot.height()), past);
  }
  paintColumns(p, plot);
  paintOverlays(p, plot);
  paintCall(p, plot);
  p.restore();
  paintAxes(p, plot);
  paintLegend(p, plot);

  QFont tf = font();
  tf.setBold(true);
  p.setFont(tf);
  p.setPen(palette().color(QPalette::Text));
  // The title may run over the colour legend's column; on a narrow grid it is elided, never cut.
  const double titleWidth = width() - kLeft - 8;
  p.drawText(QRectF(kLeft, 4, titleWidth, kTop - 6), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetrics(tf).elidedText(title_.isEmpty() ? tr("Order book") : title_, Qt::ElideRight,
                                         static_cast<int>(titleWidth)));
  p.setFont(font());
  if (!model_.snapshot() || model_.hours() == 0) {
    p.drawText(plot, Qt::AlignCenter, tr("No book yet: select a cluster in the cluster list"));
  }
}

void OrderBookGridView::paintColumns(QPainter& p, const QRectF& plot) const {
  if (!model_.snapshot()) return;
  // Columns are written straight into an image, pixel rows at a time: a month of a cluster
  // group is ~10^5 ladder segments, far too many for one fillRect each.
  const int iw = static_cast<int>(std::ceil(plot.width()));
  const int ih = static_cast<int>(std::ceil(plot.height()));
  if (iw <= 0 || ih <= 0) return;
  QImage img(iw, ih, QImage::Format_ARGB32_Premultiplied);
  img.fill(Qt::transparent);
  const double ox = plot.left();
  const double oy = plot.top();
  auto fill = [&](int x0, int x1, int y0, int y1, QRgb c) {
    x0 = std::max(x0, 0);
    x1 = std::min(x1, iw);
    y0 = std::max(y0, 0);
    y1 = std::min(y1, ih);
    for (int y = y0; y < y1; ++y) {
      auto* row = reinterpret_cast<QRgb*>(img.scanLine(y));
      std::fill(row + x0, row + x1, c);
    }
  };
  auto premultiplied = [this](Price price, int alpha) {
    const QColor c = colours_.colour(price);
    return qPremultiply(qRgba(c.red(), c.green(), c.blue(), alpha));
  };
  const Hour h0 = static_cast<Hour>(std::floor(viewStart_));
  const Hour h1 = static_cast<Hour>(std::ceil(viewStart_ + viewHours_));
  const double colWidth = plot.width() / viewHours_;
  const int gap = colWidth > 6 ? 1 : 0;
  auto ladder = [&](const std::vector<GridSegment>& segs, int x0, int x1, bool up, int alpha) {
    // Segments thinner than a pixel fold into the next whole pixel, in the colour of the best
    // price among them.
    int runStart = -1;
    Price runPrice = 0;
    for (const GridSegment& s : segs) {
      const int yFrom = static_cast<int>(std::lround(pointOf(0, up ? s.from : -s.from).y() - oy));
      const int yTo = static_cast<int>(std::lround(pointOf(0, up ? s.to : -s.to).y() - oy));
      if (runStart < 0) {
        runStart = yFrom;
        runPrice = s.price;
      }
      if (yTo == runStart) continue;
      const int top = std::min(runStart, yTo), bottom = std::max(runStart, yTo);
      // A 1-pixel seam between levels once they are tall enough to read as separate.
      fill(x0, x1, top, bottom - (bottom - top > 4 ? 1 : 0), premultiplied(runPrice, alpha));
      runStart = -1;
    }
    if (runStart >= 0) {
      const int yEnd = static_cast<int>(std::lround(pointOf(0, up ? segs.back().to : -segs.back().to).y() - oy));
      const int top = std::min(runStart, yEnd), bottom = std::max({runStart, yEnd, top + 1});
      fill(x0, x1, top, bottom, premultiplied(runPrice, alpha));
    }
  };
  for (Hour h = h0; h < h1; ++h) {
    const GridColumn* c = model_.column(h);
    if (!c) continue;
    const int x0 = static_cast<int>(std::lround(pointOf(static_cast<double>(h), 0).x() - ox));
    const int x1 =
        std::max(x0 + 1, static_cast<int>(std::lround(pointOf(static_cast<double>(h + 1), 0).x() - ox)) - gap);
    ladder(c->asks, x0, x1, true, 255);
    ladder(c->bids, x0, x1, false, 170);  // bids a little paler, so the sides read apart
  }
  p.drawImage(QPointF(ox, oy), img);
}

void OrderBookGridView::paintOverlays(QPainter& p, const QRectF& plot) const {
  p.setRenderHint(QPainter::Antialiasing, true);
  // All-or-none bids: dashed outlines below the axis, over their (flexible) window.
  if (auto snap = model_.snapshot()) {
    for (const OrderView& o : snap->allOrNoneBids) {
      QPen pen(colours_.colour(o.request.limit), 1.5, o.request.duration ? Qt::DotLine : Qt::DashLine);
      p.setPen(pen);
      p.setBrush(Qt::NoBrush);
      p.drawRect(rectOf(o.request.start, o.request.end, -o.request.gpus, 0));
    }
  }
  const QColor accent = palette().color(QPalette::Highlight);
  // Own contracts: filled, hatched, above the axis.
  for (const Contract& c : ownContracts_) {
    if (auto snap = model_.snapshot();
        !snap || std::find(snap->clusters.begin(), snap->clusters.end(), c.cluster) == snap->clusters.end())
      continue;
    QColor fill = accent;
    fill.setAlpha(c.buyer == me_ ? 110 : 50);
    std::vector<HeldStep> steps{HeldStep{c.start, c.end, c.gpus}};
    if (c.buyer == me_) {
      const auto h =
          std::find_if(held_.begin(), held_.end(), [&](const ContractMark& m) { return m.contract == c.id; });
      if (h != held_.end()) steps = h->held;  // what is left after sales
    }
    for (const HeldStep& s : steps) {
      if (s.gpus <= 0) continue;
      p.setPen(QPen(accent, 1));
      p.setBrush(fill);
      p.drawRect(rectOf(s.start, s.end, 0, s.gpus));
      p.setBrush(QBrush(palette().color(QPalette::HighlightedText), Qt::BDiagPattern));
      p.drawRect(rectOf(s.start, s.end, 0, s.gpus));
    }
  }
  // Own working orders: bold outlines, sells above the axis, buys below.
  for (const OrderView& o : ownOrders_) {
    const OrderRequest& r = o.request;
    if (auto snap = model_.snapshot(); !snap || (r.cluster && std::find(snap->clusters.begin(), snap->clusters.end(),
                                                                        *r.cluster) == snap->clusters.end()))
      continue;
    p.setPen(QPen(QColor(255, 80, 220), 2.5, r.duration ? Qt::DashLine : Qt::SolidLine));
    p.setBrush(Qt::NoBrush);
    const QRectF rr = r.side == Side::Sell ? rectOf(r.start, r.end, 0, r.gpus) : rectOf(r.start, r.end, -r.gpus, 0);
    p.drawRect(rr.adjusted(1, 1, -1, -1));
  }
  // Trades flash white and fade.
  const qint64 t = clock_.elapsed();
  p.setPen(Qt::NoPen);
  for (const Flash& f : flashes_) {
    const double age = static_cast<double>(t - f.atMs) / kFlashMs;
    if (age >= 1) continue;
    QColor c = f.trade.mine ? QColor(255, 80, 220) : QColor(255, 255, 255);
    c.setAlpha(static_cast<int>(220 * (1 - age)));
    p.setBrush(c);
    p.drawRect(rectOf(f.trade.start, f.trade.end, 0, f.trade.gpus));
  }
  // The exchange clock.
  const double nowX = pointOf(static_cast<double>(now_), 0).x();
  p.setPen(QPen(QColor(230, 70, 70), 1.5, Qt::DashLine));
  p.drawLine(QPointF(nowX, plot.top()), QPointF(nowX, plot.bottom()));
  // The rectangle being dragged: exactly the order it will open.
  if (selecting_) {
    const GridSelection& sel = current_;
    const QRectF r =
        sel.side == Side::Buy ? rectOf(sel.start, sel.end, 0, sel.gpus) : rectOf(sel.start, sel.end, -sel.gpus, 0);
    QColor fill = palette().color(QPalette::Text);
    fill.setAlpha(40);
    p.setBrush(fill);
    p.setPen(QPen(palette().color(QPalette::Text), 1.5, Qt::DashLine));
    p.drawRect(r);
    const QString nodes = gpuStep_ > 1 && sel.gpus % gpuStep_ == 0
                              ? tr(" (%1 node%2)").arg(sel.gpus / gpuStep_).arg(sel.gpus / gpuStep_ == 1 ? "" : "s")
                              : QString();
    const QString label = tr("%1 %2 GPUs%3 x %4 h\n%5 to %6 UTC")
                              .arg(sel.side == Side::Buy ? tr("Buy") : tr("Sell"))
                              .arg(sel.gpus)
                              .arg(nodes)
                              .arg(sel.end - sel.start)
                              .arg(formatHour(sel.start), formatHour(sel.end));
    const QFontMetrics fm(font());
    QRectF box = fm.boundingRect(QRect(0, 0, 600, 100), Qt::AlignLeft, label).adjusted(-5, -3, 5, 3);
    box.moveTopLeft(QPointF(std::clamp(r.left() + 4, plot.left() + 2, plot.right() - box.width() - 2),
                            std::clamp(sel.side == Side::Buy ? r.top() - box.height() - 4 : r.bottom() + 4,
                                       plot.top() + 2, plot.bottom() - box.height() - 2)));
    QColor bg = palette().color(QPalette::Base);
    bg.setAlpha(225);
    p.setPen(QPen(palette().color(QPalette::Text), 1));
    p.setBrush(bg);
    p.drawRect(box);
    p.drawText(box.adjusted(5, 3, -5, -3), Qt::AlignLeft | Qt::AlignTop, label);
  }
}

void OrderBookGridView::paintAxes(QPainter& p, const QRectF& plot) const {
  p.setRenderHint(QPainter::Antialiasing, false);
  const QColor text = palette().color(QPalette::Text);
  QColor grid = text;
  grid.setAlpha(40);
  p.setPen(text);
  p.drawRect(plot);
  // GPU axis: asks upward, bids downward, labelled in GPUs either way.
  const double step = niceStep(yAskMax_ + yBidMax_, std::max(2, static_cast<int>(plot.height() / 40)));
  const QFontMetrics fm(font());
  for (double g = -std::floor(yBidMax_ / step) * step; g <= yAskMax_ + 1e-9; g += step) {
    const double y = pointOf(0, g).y();
    if (y < plot.top() - 1 || y > plot.bottom() + 1) continue;
    p.setPen(grid);
    p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    p.setPen(text);
    p.drawLine(QPointF(plot.left() - 4, y), QPointF(plot.left(), y));
    p.drawText(QRectF(0, y - 8, kLeft - 8, 16), Qt::AlignRight | Qt::AlignVCenter, QString::number(std::abs(g)));
  }
  const double axisY = pointOf(0, 0).y();
  p.setPen(QPen(text, 1.5));
  p.drawLine(QPointF(plot.left(), axisY), QPointF(plot.right(), axisY));
  p.save();
  p.translate(12, plot.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-plot.height() / 2, -8, plot.height(), 16), Qt::AlignCenter,
             tr("GPUs   (bids below | asks above)"));
  p.restore();

  // Time axis: pick a step that leaves room for the labels.
  const double pxPerHour = plot.width() / viewHours_;
  Hour tstep = 1;
  for (Hour s : {1, 2, 3, 6, 12, 24, 48, 72, 168, 336}) {
    tstep = s;
    if (s * pxPerHour >= 88) break;  // room for a day label ("Fri 04 Dec") at each midnight
  }
  const Hour h0 = static_cast<Hour>(std::ceil(viewStart_ / tstep)) * tstep;
  for (Hour h = h0; h <= viewStart_ + viewHours_; h += tstep) {
    const double x = pointOf(static_cast<double>(h), 0).x();
    p.setPen(grid);
    p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
    p.setPen(text);
    p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 4));
    const bool midnight = h % 24 == 0;
    const QString label = tstep >= 24 ? formatDay(h) : (midnight ? formatDay(h) : formatHourShort(h));
    QFont f = font();
    f.setBold(midnight && tstep < 24);
    p.setFont(f);
    p.drawText(QRectF(x - 50, plot.bottom() + 5, 100, 16), Qt::AlignHCenter | Qt::AlignTop, label);
  }
  p.setFont(font());
  // The longest caption that fits the plot's width.
  QString caption;
  for (const QString& c :
       {tr("Delivery hour (UTC)   -   red dashed line: exchange time %1").arg(formatHour(now_)),
        tr("Delivery hour (UTC); red dashed line: now, %1").arg(formatHour(now_)), tr("Delivery hour (UTC)")}) {
    caption = c;
    if (p.fontMetrics().horizontalAdvance(c) <= plot.width()) break;
  }
  p.drawText(QRectF(plot.left(), plot.bottom() + 22, plot.width(), 16), Qt::AlignCenter, caption);
}

QString OrderBookGridView::legendNote() const { return tr("middle 90%"); }

QString OrderBookGridView::legendText() const {
  return tr("Colour: %1 to %2 per GPU-hour, the middle 90% of the GPU-hours shown%3")
      .arg(formatPrice(colours_.low()), formatPrice(colours_.high()),
           clippedBelow_ || clippedAbove_ ? tr("; prices beyond take the end colours") : QString());
}

void OrderBookGridView::paintLegend(QPainter& p, const QRectF& plot) const {
  const QColor text = palette().color(QPalette::Text);
  const QRectF bar(plot.right() + 14, plot.top() + 20, 16, plot.height() - 40);
  for (int i = 0; i < static_cast<int>(bar.height()); ++i) {
    const double t = 1.0 - i / bar.height();
    p.fillRect(QRectF(bar.left(), bar.top() + i, bar.width(), 1), PriceColourScale::colourAt(t));
  }
  p.setPen(text);
  p.drawRect(bar);
  p.drawText(QRectF(plot.right() + 4, plot.top(), kRight, 16), Qt::AlignLeft, tr("$/GPU-h"));
  for (int i = 0; i <= 4; ++i) {
    const double t = i / 4.0;
    const Price price = colours_.low() + static_cast<Price>(t * static_cast<double>(colours_.high() - colours_.low()));
    const double y = bar.bottom() - t * bar.height();
    p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
    // The ends say when prices beyond them share their colour.
    const QString prefix = i == 0 && clippedBelow_   ? QStringLiteral("≤")
                           : i == 4 && clippedAbove_ ? QStringLiteral("≥")
                                                     : QString();
    p.drawText(QRectF(bar.right() + 6, y - 8, kRight - 36, 16), Qt::AlignLeft | Qt::AlignVCenter,
               prefix + formatPrice(price));
  }
  p.drawText(QRectF(plot.right() + 4, bar.bottom() + 4, kRight - 4, 16), Qt::AlignLeft, legendNote());
}

GridSelection OrderBookGridView::selectionOf(QPointF a, QPointF b, bool singleGpus) const {
  GridSelection s;
  // Both edges go to the nearest hour boundary; a drag shorter than half an hour is one hour.
  const double ha = frame_.hourAt(a.x());
  const double hb = frame_.hourAt(b.x());
  s.start = static_cast<Hour>(std::llround(std::min(ha, hb)));
  s.end = std::max<Hour>(s.start + 1, static_cast<Hour>(std::llround(std::max(ha, hb))));
  const double ga = frame_.gpuAt(a.y());
  const double gb = frame_.gpuAt(b.y());
  // Which side is decided by where the drag started: above the axis are the asks to buy.
  s.side = ga >= 0 ? Side::Buy : Side::Sell;
  const GpuCount step = singleGpus ? 1 : gpuStep_;
  const auto steps = std::llround(std::abs(gb - ga) / static_cast<double>(step));
  s.gpus = static_cast<GpuCount>(std::max<long long>(1, steps)) * step;
  return s;
}

std::optional<OrderId> OrderBookGridView::ownOrderAt(QPointF pos) const {
  const auto snap = model_.snapshot();
  std::optional<OrderId> best;
  double bestDistance = 6;  // pixels from the outline that still count as on it
  for (const OrderView& o : ownOrders_) {
    const OrderRequest& r = o.request;
    if (!snap ||
        (r.cluster && std::find(snap->clusters.begin(), snap->clusters.end(), *r.cluster) == snap->clusters.end()))
      continue;
    const QRectF rr = r.side == Side::Sell ? rectOf(r.start, r.end, 0, r.gpus) : rectOf(r.start, r.end, -r.gpus, 0);
    if (!rr.adjusted(-bestDistance, -bestDistance, bestDistance, bestDistance).contains(pos)) continue;
    // Inside counts too (a thin order is mostly outline); the nearest edge wins.
    const double d = std::min({std::abs(pos.x() - rr.left()), std::abs(pos.x() - rr.right()),
                               std::abs(pos.y() - rr.top()), std::abs(pos.y() - rr.bottom())});
    if (!best || d < bestDistance || rr.contains(pos)) {
      best = r.id;
      bestDistance = std::min(bestDistance, d);
    }
  }
  return best;
}

void OrderBookGridView::showOrderMenu(OrderId id, QPoint globalPos) {
  auto* menu = new QMenu(this);
  menu->setObjectName("gridOrderMenu");
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->addAction(tr("Amend order #%1 (price, GPUs)...").arg(id), this, [this, id] { emit amendOrderRequested(id); });
  menu->addAction(tr("Cancel order #%1").arg(id), this, [this, id] { emit cancelOrderRequested(id); });
  menu->popup(globalPos);
}

void OrderBookGridView::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton && plotRect().contains(e->position())) {
    selecting_ = true;
    selectFrom_ = selectTo_ = e->position();
    frame_ = DragFrame{plotRect(), viewStart_, viewHours_, yAskMax_, yBidMax_};
    current_ = selectionOf(selectFrom_, selectTo_, e->modifiers() & Qt::ShiftModifier);
  } else if (e->button() == Qt::MiddleButton || e->button() == Qt::RightButton) {
    panning_ = true;
    rightMoved_ = false;
    panFrom_ = e->position();
    panStartHour_ = viewStart_;
    setCursor(Qt::ClosedHandCursor);
  }
}

void OrderBookGridView::mouseMoveEvent(QMouseEvent* e) {
  if (selecting_) {
    const QRectF r = frame_.plot;
    selectTo_ =
        QPointF(std::clamp(e->position().x(), r.left(), r.right()), std::clamp(e->position().y(), r.top(), r.bottom()));
    current_ = selectionOf(selectFrom_, selectTo_, e->modifiers() & Qt::ShiftModifier);
    if (current_.end > current_.start) noteHoursUnderCursor(current_.start, current_.end);
    update();
  } else if (panning_) {
    if ((e->position() - panFrom_).manhattanLength() >= 3) rightMoved_ = true;
    const double dh = (panFrom_.x() - e->position().x()) / plotRect().width() * viewHours_;
    setVisibleHours(static_cast<Hour>(std::llround(panStartHour_ + dh)), viewHours_);
  } else if (plotRect().contains(e->position())) {
    const Hour h = static_cast<Hour>(std::floor(hourAt(e->position().x())));
    noteHoursUnderCursor(h, h + 1);
  }
}

void OrderBookGridView::noteHoursUnderCursor(Hour first, Hour end) {
  if (first == cursorFirst_ && end == cursorEnd_) return;
  cursorFirst_ = first;
  cursorEnd_ = end;
  emit hoursUnderCursor(first, end);
}

void OrderBookGridView::mouseReleaseEvent(QMouseEvent* e) {
  if (selecting_ && e->button() == Qt::LeftButton) {
    const bool dragged = std::abs(selectTo_.y() - selectFrom_.y()) >= 3;
    const GridSelection chosen = current_;  // what the preview showed, not measured again
    selecting_ = false;
    updateScales();
    syncScrollBar();
    update();
    if (dragged)
      emit selectionMade(chosen);
    else if (const auto id = ownOrderAt(selectFrom_))
      emit ownOrderClicked(*id);
  } else if (panning_) {
    panning_ = false;
    unsetCursor();
    if (e->button() == Qt::RightButton && !rightMoved_) {
      if (e->position().y() < plotRect().top()) {
        emit titleMenuRequested(e->globalPosition().toPoint());
      } else if (const auto id = ownOrderAt(e->position())) {
        emit ownOrderClicked(*id);
        showOrderMenu(*id, e->globalPosition().toPoint());
      }
    }
  }
}

void OrderBookGridView::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  if (e->modifiers() & Qt::ShiftModifier) {
    panBy(-steps * viewHours_ / 10);
  } else {
    zoomBy(std::pow(0.85, steps), hourAt(e->position().x()));
  }
  e->accept();
}

void OrderBookGridView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomBy(0.8, viewStart_ + viewHours_ / 2); break;
    case Qt::Key_Minus: zoomBy(1.25, viewStart_ + viewHours_ / 2); break;
    case Qt::Key_Left: panBy(-viewHours_ / 10); break;
    case Qt::Key_Right: panBy(viewHours_ / 10); break;
    default: QWidget::keyPressEvent(e); return;
  }
}

QString OrderBookGridView::termsTooltip(Hour h, const std::optional<GridHit>& hit) const {
  const BookSnapshotPtr snap = model_.snapshot();
  const BookCell* cell = snap ? snap->cell(h) : nullptr;
  if (!cell || cell->asks.empty()) return {};
  // Over an ask level: that level's terms; anywhere else in the hour: the best ask's, which a
  // buy would trade against first.
  const BookLevel* level = &cell->asks.front();
  QString which = tr("Best ask terms");
  if (hit && hit->side == Side::Sell) {
    for (const BookLevel& l : cell->asks) {
      if (l.price != hit->segment.price) continue;
      level = &l;
      which = tr("Terms of this level");
      break;
    }
  }
  return tr("%1:\n%2").arg(which, describeTerms(level->terms));
}

QString OrderBookGridView::describeAt(QPoint pos) const {
  if (!plotRect().contains(pos)) return {};
  const Hour h = static_cast<Hour>(std::floor(hourAt(pos.x())));
  const double g = gpuAt(pos.y());
  QString text = formatHour(h) + QStringLiteral(" UTC");
  if (auto hit = model_.hit(h, g)) {
    const bool ask = hit->side == Side::Sell;
    text += tr("\n%1 level: GPUs %2-%3, cumulative %4 GPUs\n%5 per GPU-hour, %6 order(s)")
                .arg(ask ? tr("Ask") : tr("Bid"))
                .arg(hit->segment.from + 1)
                .arg(hit->segment.to)
                .arg(hit->segment.to)
                .arg(formatPrice(hit->segment.price))
                .arg(hit->segment.orders);
  } else if (const GridColumn* c = model_.column(h)) {
    text += tr("\n%1 GPUs offered, %2 GPUs bid").arg(c->askDepth()).arg(c->bidDepth());
  }
  if (callMode_ && calls_.indicative)
    for (const net::CallPrice& c : calls_.indicative->prices)
      if (c.cluster == callCluster_ && c.hour == h)
        text += tr("\nNext call (indicative): %1 per GPU-hour, %2 GPUs").arg(formatPrice(c.price)).arg(c.volume);
  if (const QString terms = termsTooltip(h, model_.hit(h, g)); !terms.isEmpty()) text += QLatin1Char('\n') + terms;
  return text;
}

void OrderBookGridView::setCallAuction(const CallAuctionView& view, ClusterId shown) {
  calls_ = view;
  callCluster_ = shown;
  callMode_ = shown != 0 && view.callMode(shown);
  if (callMode_ && !callTimer_) {
    callTimer_ = new QTimer(this);
    connect(callTimer_, &QTimer::timeout, this, qOverload<>(&QWidget::update));
  }
  if (callTimer_) {
    if (callMode_)
      callTimer_->start(1000);
    else
      callTimer_->stop();
  }
  update();
}

QString OrderBookGridView::callBanner() const {
  if (!callMode_) return {};
  const QString when =
      tr("next call %1").arg(formatNextCall(calls_.schedule.nextCallUnix, calls_.schedule.periodSeconds));
  QString what = tr("nothing would trade");
  if (calls_.indicative) {
    int hours = 0;
    GpuCount gpus = 0;
    for (const net::CallPrice& c : calls_.indicative->prices)
      if (c.cluster == callCluster_ && c.volume > 0) ++hours, gpus = std::max(gpus, c.volume);
    if (hours > 0) what = tr("indicative: %n hour(s) would trade, up to %1 GPUs an hour", nullptr, hours).arg(gpus);
  }
  return tr("Call auction: %1; %2").arg(when, what);
}

std::optional<Price> OrderBookGridView::indicativePrice(Hour h) const {
  if (!callMode_ || !calls_.indicative) return std::nullopt;
  for (const net::CallPrice& c : calls_.indicative->prices)
    if (c.cluster == callCluster_ && c.hour == h) return c.price;
  return std::nullopt;
}

void OrderBookGridView::paintCall(QPainter& p, const QRectF& plot) const {
  if (!callMode_) return;
  const QColor mark = palette().color(QPalette::Highlight);
  if (calls_.indicative) {
    // Accepted blocks: outlined where they would trade (bids below the axis, asks above).
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(mark, 2, Qt::DashDotLine));
    for (const net::CallBlock& b : calls_.indicative->blocks)
      if (b.cluster == callCluster_)
        p.drawRect(b.side == Side::Buy ? rectOf(b.start, b.end, -b.gpus, 0) : rectOf(b.start, b.end, 0, b.gpus));
    // Each priced hour: a bar on the axis as wide as the hour, the price above it when it fits.
    const QFontMetrics fm(font());
    for (const net::CallPrice& c : calls_.indicative->prices) {
      if (c.cluster != callCluster_) continue;
      const QRectF cell = rectOf(c.hour, c.hour + 1, 0, c.volume);
      if (cell.right() < plot.left() || cell.left() > plot.right()) continue;
      p.fillRect(QRectF(cell.left(), cell.bottom() - 3, cell.width(), 6), mark);
      const QString text = formatPrice(c.price);
      if (fm.horizontalAdvance(text) + 4 < cell.width()) {
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(cell.left(), cell.bottom() - 4 - fm.height(), cell.width(), fm.height()), Qt::AlignCenter,
                   text);
      }
    }
  }
  // The countdown, in the plot's top-left corner.
  const QString banner = callBanner();
  const QRectF box(plot.left() + 6, plot.top() + 6,
                   std::min(plot.width() - 12, 12.0 + QFontMetrics(font()).horizontalAdvance(banner)),
                   QFontMetrics(font()).height() + 6);
  QColor back = palette().color(QPalette::Base);
  back.setAlpha(220);
  p.fillRect(box, back);
  p.setPen(mark);
  p.drawRect(box);
  p.setPen(palette().color(QPalette::Text));
  p.drawText(box, Qt::AlignCenter, banner);
}

bool OrderBookGridView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* he = static_cast<QHelpEvent*>(e);
    // Over the colour legend: what its range is.
    const QRectF plot = plotRect();
    const QString t = he->pos().x() > plot.right() + 8 ? legendText() : describeAt(he->pos());
    if (t.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(he->globalPos(), t, this);
    return true;
  }
  return QWidget::event(e);
}

}  // namespace tessera::ui
