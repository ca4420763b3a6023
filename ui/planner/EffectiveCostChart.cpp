#include "ui/planner/EffectiveCostChart.h"

#include "ui/planner/PlannerColors.h"
#include "ui/planner/PlannerFormat.h"

#include <QFontMetrics>
#include <QResizeEvent>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>

namespace tessera::planner {

namespace {

double termValue(const cost::CostBreakdown& b, CostTerm which) {
  const cost::CostTerms& t = b.terms;
  // The instance term is GPU-hours making progress: split by the step's compute and exposed sync.
  const double computeShare = b.stepSeconds > 0 ? b.computeSecondsPerStep / b.stepSeconds : 1.0;
  switch (which) {
    case CostTerm::Compute: return t.instance * computeShare;
    case CostTerm::CommunicationStall: return t.instance * (1.0 - computeShare);
    case CostTerm::StorageAndEgress: return t.storageAndEgress;
    case CostTerm::Orchestration: return t.orchestration;
    case CostTerm::FailedWork: return t.failedWork;
    case CostTerm::MigrationOrRestart: return t.migrationOrRestart;
  }
  return 0;
}

// Dollars shown in the unit that keeps axis labels short.
struct MoneyScale {
  double divisor;
  QString suffix;
};
MoneyScale scaleFor(double maxDollars) {
  if (maxDollars >= 1e6) return {1e6, "M"};
  if (maxDollars >= 1e3) return {1e3, "k"};
  return {1, ""};
}

}  // namespace

EffectiveCostChart::EffectiveCostChart(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumSize(240, 140);  // fits the planner dock on a 1366 x 768 screen
  plot_->plotLayout()->insertRow(0);
  title_ = new QCPTextElement(plot_, "Effective cost by offer", QFont("sans", 11, QFont::Bold));
  plot_->plotLayout()->addElement(0, 0, title_);
  plot_->plotLayout()->insertRow(1);
  whyLine_ = new QCPTextElement(plot_, QString(), QFont("sans", 9));
  plot_->plotLayout()->addElement(1, 0, whyLine_);

  for (int i = 0; i < kCostTermCount; ++i) {
    const auto term = static_cast<CostTerm>(i);
    auto* b = new QCPBars(plot_->xAxis, plot_->yAxis);
    b->setName(costTermName(term));
    b->setPen(QPen(costTermColor(term).darker(130)));
    b->setBrush(costTermColor(term));
    b->setWidth(0.55);
    b->setStackingGap(0);
    if (!bars_.empty()) b->moveAbove(bars_.back());
    bars_.push_back(b);
  }
  rate_ = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  rate_->setName("hourly rate ($/GPU-h, right axis)");
  rate_->setLineStyle(QCPGraph::lsNone);
  rate_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(Qt::black, 1.5), QColor(0xff, 0xeb, 0x3b), 13));

  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel("hourly rate ($ per GPU-hour)");
  plot_->xAxis->setLabel("offer");
  plot_->yAxis->grid()->setSubGridVisible(false);
  plot_->xAxis->grid()->setVisible(false);
  plot_->legend->setVisible(true);
  plot_->legend->setBrush(QColor(255, 255, 255, 220));
  QFont lf = plot_->legend->font();
  lf.setPointSize(8);
  plot_->legend->setFont(lf);
  // The legend sits in its own row under the plot, so it never hides a bar or a rate marker.
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->plotLayout()->addElement(3, 0, plot_->legend);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->legend->setWrap(4);
  plot_->plotLayout()->setRowStretchFactor(3, 0.001);
  setOffers({});
}

void EffectiveCostChart::setPlotStyle(const std::function<void(QCustomPlot*)>& style) {
  style(plot_);
  // Text elements and the rate marker follow the axes' colour.
  const QColor text = plot_->xAxis->labelColor();
  for (int i = 0; i < plot_->plotLayout()->elementCount(); ++i)
    if (auto* e = qobject_cast<QCPTextElement*>(plot_->plotLayout()->elementAt(i))) e->setTextColor(text);
  rate_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(text, 1.5), QColor(0xff, 0xeb, 0x3b), 13));
  plot_->replot();
}

double EffectiveCostChart::stackedTotal(int index) const {
  double sum = 0;
  for (auto* b : bars_) {
    auto it = b->data()->findBegin(index + 1, false);
    if (it != b->data()->constEnd() && qFuzzyCompare(it->key, index + 1.0)) sum += it->value;
  }
  return sum;
}

QString EffectiveCostChart::statusLine() const { return status_; }

namespace {
// Breaks each line of `text` at spaces so that none is wider than `width` pixels in `font`.
QString wrapToWidth(const QString& text, const QFont& font, int width) {
  const QFontMetrics m(font);
  QStringList out;
  for (const QString& paragraph : text.split('\n')) {
    QString line;
    for (const QString& word : paragraph.split(' ', Qt::SkipEmptyParts)) {
      const QString longer = line.isEmpty() ? word : line + ' ' + word;
      if (!line.isEmpty() && m.horizontalAdvance(longer) > width) {
        out << line;
        line = word;
      } else {
        line = longer;
      }
    }
    out << line;
  }
  return out.join('\n');
}
}  // namespace

void EffectiveCostChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitTextToWidth();
}

void EffectiveCostChart::fitTextToWidth() {
  // The title, the why-line and the legend fit the chart's width: the why-line wraps, the legend
  // takes as many columns as fit, so nothing is cut at the dock's width.
  const int width = std::max(120, plot_->width() - 24);
  // A short chart (a docked planner on a small screen) keeps its title, the why-line's first
  // sentence, the bars and their names: the legend, the axis title, the MFU line and the tick
  // labels' figures (they are in the table) give way, rather than everything being squeezed.
  // (Until it is shown the chart has no real size: it keeps everything.)
  const int columns = std::clamp(width / 200, 1, kCostTermCount + 1);
  const int legendRows = (kCostTermCount + 1 + columns - 1) / columns;
  const bool roomy = !plot_->isVisible() || plot_->height() >= 260 + 24 * legendRows;
  whyLine_->setText(wrapToWidth(roomy ? status_ : status_.section('\n', 0, 0), whyLine_->font(), width));
  plot_->legend->setWrap(columns);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst, true);  // re-flows the items into the new wrap
  // Each bar's label fits its slot: names are elided in the middle when the bars are narrow.
  const int slot = std::max(40, (plot_->width() - 110) / std::max(1, shown_) - 8);  // less the two axes
  const QFontMetrics tickFont(plot_->xAxis->tickLabelFont());
  QMap<double, QString> ticks = roomy ? ticks_ : compactTicks_;
  for (auto it = ticks.begin(); plot_->isVisible() && it != ticks.end(); ++it) {
    QStringList lines = it.value().split('\n');
    for (QString& line : lines) line = tickFont.elidedText(line, Qt::ElideMiddle, slot);
    it.value() = lines.join('\n');
  }
  if (auto ticker = plot_->xAxis->ticker().dynamicCast<QCPAxisTickerText>()) ticker->setTicks(ticks);
  if (plot_->legend->visible() != roomy) {
    plot_->legend->setVisible(roomy);
    if (roomy) {
      plot_->plotLayout()->addElement(3, 0, plot_->legend);
      plot_->plotLayout()->setRowStretchFactor(3, 0.001);
    } else {
      plot_->plotLayout()->take(plot_->legend);
      plot_->plotLayout()->simplify();
    }
  }
  plot_->xAxis->setLabel(roomy ? xLabel_ : QString());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void EffectiveCostChart::setOffers(const std::vector<ChartOffer>& offers, const QString& workloadName,
                                   const QString& emptyText) {
  double maxTotal = 0, maxRate = 0;
  std::vector<const cost::CostBreakdown*> shown;
  std::vector<QString> labels;
  QStringList unservable;
  for (const ChartOffer& o : offers) {
    if (const auto* b = std::get_if<cost::CostBreakdown>(&o.result)) {
      shown.push_back(b);
      labels.push_back(QString::fromStdString(o.label));
      maxTotal = std::max(maxTotal, b->terms.total());
      maxRate = std::max(maxRate, b->pricePerGpuHour);
    } else {
      unservable << QString::fromStdString(o.label);
    }
  }
  shown_ = static_cast<int>(shown.size());
  cheapestRate_ = cheapestReal_ = -1;
  for (int i = 0; i < shown_; ++i) {
    if (cheapestRate_ < 0 || shown[i]->pricePerGpuHour < shown[cheapestRate_]->pricePerGpuHour) cheapestRate_ = i;
    if (cheapestReal_ < 0 || shown[i]->terms.total() < shown[cheapestReal_]->terms.total()) cheapestReal_ = i;
  }
  const MoneyScale money = scaleFor(maxTotal);

  QVector<double> keys;
  for (int i = 0; i < shown_; ++i) keys << i + 1;
  for (int t = 0; t < kCostTermCount; ++t) {
    QVector<double> values;
    for (const auto* b : shown) values << termValue(*b, static_cast<CostTerm>(t)) / money.divisor;
    bars_[t]->setData(keys, values, true);
  }
  QVector<double> rates;
  for (const auto* b : shown) rates << b->pricePerGpuHour;
  rate_->setData(keys, rates, true);

  ticks_.clear();
  compactTicks_.clear();
  for (int i = 0; i < shown_; ++i) {
    const QString facts = moneyText(shown[i]->terms.total()) + ", " + durationText(shown[i]->wallClockHours);
    QString text = labels[i] + "\n" + facts;
    QString compact = labels[i];  // a short chart: the name only (the table has the figures)
    if (i == cheapestReal_) text += "\n★ cheapest real", compact.prepend("★ ");
    if (i == cheapestRate_) text += "\n◆ cheapest rate", compact.prepend("◆ ");
    ticks_.insert(i + 1, text);
    compactTicks_.insert(i + 1, compact);
  }
  plot_->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>::create());
  plot_->xAxis->setTickLabelRotation(0);
  QFont tf = plot_->xAxis->tickLabelFont();
  tf.setPointSize(shown_ > 5 ? 7 : 8);
  plot_->xAxis->setTickLabelFont(tf);
  plot_->xAxis->setRange(0.4, std::max(1, shown_) + 0.6);
  plot_->yAxis->setLabel("effective cost ($" + money.suffix + ")");
  plot_->yAxis->setRange(0, maxTotal > 0 ? maxTotal / money.divisor * 1.12 : 1);
  plot_->yAxis2->setRange(0, maxRate > 0 ? maxRate * 1.12 : 1);
  why_.clear();
  if (shown_ >= 2) {
    // Against the next cheapest: the term that saves the most, and the model's note that explains it.
    int second = -1;
    for (int i = 0; i < shown_; ++i)
      if (i != cheapestReal_ && (second < 0 || shown[i]->terms.total() < shown[second]->terms.total())) second = i;
    const auto* a = shown[cheapestReal_];
    const auto* b = shown[second];
    int term = 0;
    double saved = -1;
    for (int t = 0; t < kCostTermCount; ++t) {
      const double d = termValue(*b, static_cast<CostTerm>(t)) - termValue(*a, static_cast<CostTerm>(t));
      if (d > saved) {
        saved = d;
        term = t;
      }
    }
    why_ = QString("%1 is cheapest: its %2 is %3 less than on %4")
               .arg(labels[cheapestReal_], QString::fromUtf8(costTermName(static_cast<CostTerm>(term))),
                    moneyText(saved), labels[second]);
    if (a->mfu && b->mfu)
      why_ += QString("\n(MFU %1% vs %2%, %3 vs %4 per GPU-hour)")
                  .arg(100 * *a->mfu, 0, 'f', 1)
                  .arg(100 * *b->mfu, 0, 'f', 1)
                  .arg(rateText(a->pricePerGpuHour), rateText(b->pricePerGpuHour));
    for (const auto& note : a->notes)
      if (note.rfind("compute scaled", 0) == 0 || note.rfind("throughput scaled", 0) == 0)
        why_ += "; " + QString::fromStdString(note);
  }
  status_ = shown_ == 0 ? (emptyText.isEmpty() ? QStringLiteral("No offer to show.") : emptyText) : why_;
  xLabel_ = workloadName.isEmpty() ? "offer" : "offers for " + workloadName;
  if (!unservable.isEmpty()) xLabel_ += "   (cannot serve it: " + unservable.join(", ") + ")";
  fitTextToWidth();
  plot_->replot();
}

}  // namespace tessera::planner
