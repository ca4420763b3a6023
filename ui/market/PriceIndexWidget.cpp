#include "ui/market/PriceIndexWidget.h"
#include "ui/market/PlotStyle.h"

#include "ui/shell/DisplayFormat.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace tessera::ui {
namespace {

// One colour per accelerator class, the same whatever the tenor.
QColor classColour(Accelerator a) {
  static const QColor colours[] = {QColor(120, 170, 240), QColor(60, 200, 120),  QColor(240, 150, 40),
                                   QColor(220, 80, 160),  QColor(170, 120, 240), QColor(230, 70, 60),
                                   QColor(40, 190, 200),  QColor(200, 200, 70)};
  return colours[static_cast<std::size_t>(a) % std::size(colours)];
}

QString tenorLabel(Tenor t) {
  switch (t) {
    case Tenor::NextDay: return QObject::tr("Next day (delivery within 24 h)");
    case Tenor::NextWeek: return QObject::tr("Next week (1 to 7 days ahead)");
    case Tenor::NextMonth: return QObject::tr("Next month (7 to 30 days ahead)");
  }
  return {};
}

}  // namespace

PriceIndexWidget::PriceIndexWidget(QWidget* parent) : QWidget(parent) {
  setObjectName("priceIndex");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Tenor:"), this));
  tenor_ = new QComboBox(this);
  tenor_->setObjectName("indexTenor");
  for (Tenor t : kTenors) tenor_->addItem(tenorLabel(t), static_cast<int>(t));
  bar->addWidget(tenor_);
  bar->addStretch();
  source_label_ = new QLabel(this);
  source_label_->setObjectName("indexSource");
  bar->addWidget(source_label_);
  layout->addLayout(bar);

  auto* split = split_ = new QSplitter(Qt::Horizontal, this);
  plot_ = new QCustomPlot(split);
  plot_->setMinimumHeight(150);
  plot_->setMinimumWidth(200);
  auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
  ticker->setDateTimeSpec(Qt::UTC);
  ticker->setDateTimeFormat(QStringLiteral("dd MMM\nHH:00"));
  ticker->setTickCount(3);
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setLabel(tr("Exchange time (UTC)"));
  plot_->yAxis->setLabel(tr("$/GPU-hour"));
  plot_->legend->setVisible(true);
  // The legend in its own row under the plot, as in the price chart: it never covers a line.
  auto* legendRow = new QCPLayoutGrid;
  plot_->plotLayout()->addElement(1, 0, legendRow);
  legendRow->setMargins(QMargins(0, 0, 0, 2));
  legendRow->addElement(0, 0, plot_->legend);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setWrap(4);
  QFont legendFont = font();
  legendFont.setPointSizeF(legendFont.pointSizeF() * 0.85);
  plot_->legend->setFont(legendFont);
  plot_->legend->setIconSize(14, 8);
  plot_->legend->setColumnSpacing(4);
  plot_->legend->setRowSpacing(0);
  plot_->plotLayout()->setRowStretchFactor(1, 0.001);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  empty_ = new QCPItemText(plot_);
  empty_->setClipToAxisRect(true);
  empty_->position->setType(QCPItemPosition::ptAxisRectRatio);
  empty_->position->setCoords(0.5, 0.5);
  empty_->setText(tr("No index values yet"));

  table_ = new QTableWidget(0, 4, split);
  table_->setObjectName("indexTable");
  table_->setHorizontalHeaderLabels({tr("Class"), tr("Index"), tr("GPU-h 24 h"), tr("Trades")});
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(20);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setMinimumWidth(120);
  split->addWidget(plot_);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  split->setChildrenCollapsible(false);
  connect(split, &QSplitter::splitterMoved, this, [this] { splitMoved_ = true; });
  layout->addWidget(split, 1);
  note_ = new QLabel(this);
  note_->setObjectName("indexNote");
  note_->setWordWrap(true);
  QFont small = note_->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  note_->setFont(small);
  layout->addWidget(note_);

  connect(tenor_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  updateNote();
  rebuild();
}

Tenor PriceIndexWidget::tenor() const { return static_cast<Tenor>(tenor_->currentData().toInt()); }

void PriceIndexWidget::setTenor(Tenor t) {
  const int i = tenor_->findData(static_cast<int>(t));
  if (i >= 0) tenor_->setCurrentIndex(i);
}

void PriceIndexWidget::setSource(IndexSource source) {
  source_ = source;
  switch (source_) {
    case IndexSource::Exchange: source_label_->setText(tr("published by the exchange")); break;
    case IndexSource::ComputedLocally:
      source_label_->setText(tr("computed in the terminal (in-process market)"));
      break;
    case IndexSource::None: source_label_->setText(tr("not published by this market")); break;
  }
  updateNote();
}

void PriceIndexWidget::setHistory(const IndexHistory& history) {
  history_ = history;
  rebuild();
}

void PriceIndexWidget::setNow(Hour now) {
  if (now == now_) return;
  now_ = now;
  if (lines_.empty()) rebuild();
}

void PriceIndexWidget::updateNote() {
  QString text;
  if (source_ == IndexSource::None) {
    text = tr("This market publishes no price index.");
  } else if (lines_.empty()) {
    text = tr("No value in this tenor yet: the index starts with the first trades of the tenor.");
    if (source_ == IndexSource::ComputedLocally)
      text += QLatin1Char(' ') +
              tr("In-process, the terminal computes it from the trades it sees, by the exchange's method.");
  } else {
    Hour asOf = 0;
    for (const IndexLine& l : lines_) asOf = std::max(asOf, l.latest.asOf);
    text = tr("Volume-weighted price of the tenor's trades over the trailing 24 h, as of %1 UTC. "
              "Dashed with hollow markers: stale (no trade in the window, the last value carried).")
               .arg(formatHour(asOf + 1));
  }
  note_->setText(text);
}

void PriceIndexWidget::rebuild() {
  lines_ = indexLines(history_, tenor());
  plot_->clearGraphs();
  double lo = 1e18, hi = -1e18, tlo = 1e18, thi = -1e18;
  auto extend = [&](const QVector<double>& xs, const QVector<double>& ys) {
    for (int i = 0; i < xs.size(); ++i) {
      if (std::isnan(ys[i])) continue;
      lo = std::min(lo, ys[i]);
      hi = std::max(hi, ys[i]);
      tlo = std::min(tlo, xs[i]);
      thi = std::max(thi, xs[i]);
    }
  };
  for (const IndexLine& l : lines_) {
    const QColor c = classColour(l.accelerator);
    QCPGraph* fresh = plot_->addGraph();
    fresh->setName(toQString(toString(l.accelerator)));
    fresh->setPen(QPen(c, 2));
    // Markers on every hour only while they can be told apart.
    if (l.freshPoints + l.stalePoints <= 72) fresh->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 4));
    fresh->setData(l.freshX, l.freshY, true);
    extend(l.freshX, l.freshY);
    if (!l.staleX.isEmpty()) {
      QCPGraph* stale = plot_->addGraph();
      stale->setName(tr("%1 (stale)").arg(toQString(toString(l.accelerator))));
      stale->setPen(QPen(c, 1.5, Qt::DashLine));
      stale->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(c, 1.2), QBrush(Qt::NoBrush), 5));
      stale->setData(l.staleX, l.staleY, true);
      stale->removeFromLegend();
      extend(l.staleX, l.staleY);
    }
  }
  empty_->setVisible(lines_.empty());
  if (hi >= lo) {
    const double pad = std::max(0.05, (hi - lo) * 0.1);
    plot_->yAxis->setRange(lo - pad, hi + pad);
    plot_->xAxis->setRange(tlo - 1800, std::max(thi + 1800, tlo + 6 * 3600));
  } else if (now_ > 0) {
    // Nothing to draw: the last day up to the exchange clock, so the axis still reads as time.
    plot_->xAxis->setRange(static_cast<double>(now_ - kHoursPerDay) * 3600.0, static_cast<double>(now_ + 1) * 3600.0);
    plot_->yAxis->setRange(0, 5);
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);

  table_->setRowCount(static_cast<int>(lines_.size()));
  for (int r = 0; r < static_cast<int>(lines_.size()); ++r) {
    const IndexLine& l = lines_[static_cast<std::size_t>(r)];
    const IndexPoint& s = l.latest;
    auto* cls = new QTableWidgetItem(toQString(toString(l.accelerator)));
    cls->setForeground(classColour(l.accelerator));
    auto* price = new QTableWidgetItem(formatPrice(s.price) + (s.stale ? tr(" (stale)") : QString()));
    price->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    price->setToolTip(
        s.stale ? tr("No trade in the last 24 h: the value as of %1 UTC, carried forward.").arg(formatHour(s.asOf + 1))
                : tr("As of %1 UTC").arg(formatHour(s.asOf + 1)));
    auto* volume = new QTableWidgetItem(QString::number(s.gpuHours));
    volume->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    auto* trades = new QTableWidgetItem(QString::number(s.trades));
    trades->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    if (s.stale) {
      QFont f = price->font();
      f.setItalic(true);
      for (auto* it : {cls, price, volume, trades}) it->setFont(f);
    }
    table_->setItem(r, 0, cls);
    table_->setItem(r, 1, price);
    table_->setItem(r, 2, volume);
    table_->setItem(r, 3, trades);
  }
  updateNote();
}

void PriceIndexWidget::resizeEvent(QResizeEvent* e) {
  QWidget::resizeEvent(e);
  // The chart gets most of the width; the table of current values the rest.
  if (!splitMoved_) split_->setSizes({width() * 7 / 10, width() - width() * 7 / 10});
  // As many legend entries to a row as fit the plot's width.
  const int wrap = std::max(2, width() * 2 / 3 / 64);  // the plot takes about two thirds
  if (wrap != plot_->legend->wrap()) {
    plot_->legend->setWrap(wrap);
    plot_->replot(QCustomPlot::rpQueuedReplot);
  }
}

void PriceIndexWidget::setDark(bool dark) {
  dark_ = dark;
  stylePlot(plot_, dark);
  const QColor fg = plotForeground(dark);
  empty_->setColor(fg);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace tessera::ui
