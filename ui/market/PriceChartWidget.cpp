#include "ui/market/PriceChartWidget.h"
#include "ui/market/PlotStyle.h"

#include "ui/shell/DisplayFormat.h"

#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>
#include <map>

namespace tessera::ui {

std::optional<Tenor> tenorOf(const TradePrint& t) {
  // A trade can deliver from an hour already started: lead 0 at least.
  return tessera::tenorOf(std::max<Hour>(0, t.start - t.exchangeTime));
}

PriceChartWidget::PriceChartWidget(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  setObjectName("priceChart");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  plot_->setMinimumHeight(160);
  const QColor colours[] = {QColor(60, 140, 230), QColor(240, 150, 40), QColor(160, 90, 210)};
  const QString names[] = {tr("delivery in next 24 h"), tr("next week"), tr("next month")};
  for (int i = 0; i < 3; ++i) {
    QCPGraph* g = plot_->addGraph();
    g->setName(names[i]);
    g->setPen(QPen(colours[i], 2));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
  }
  auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
  ticker->setDateTimeSpec(Qt::UTC);
  ticker->setDateTimeFormat(QStringLiteral("ddd dd MMM\nHH:00"));
  plot_->xAxis->setTicker(ticker);
  plot_->xAxis->setLabel(tr("Exchange time (UTC)"));
  plot_->yAxis->setLabel(tr("$ per GPU-hour (hourly VWAP)"));
  plot_->legend->setVisible(true);
  // The legend sits in its own row under the axis rect, in one line, so it never covers the
  // prices (a small dock leaves no free corner inside the plot).
  auto* legendRow = new QCPLayoutGrid;
  plot_->plotLayout()->addElement(1, 0, legendRow);
  legendRow->setMargins(QMargins(0, 0, 0, 4));
  legendRow->addElement(0, 0, plot_->legend);
  plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
  plot_->plotLayout()->setRowStretchFactor(1, 0.001);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->axisRect()->setRangeZoom(Qt::Horizontal);
  plot_->axisRect()->setRangeDrag(Qt::Horizontal);
  auto* title = new QCPTextElement(plot_, tr("Traded price"), QFont(font().family(), font().pointSize(), QFont::Bold));
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, title);
  empty_ = new QCPItemText(plot_);
  empty_->setObjectName("priceChartEmpty");
  empty_->setClipToAxisRect(true);
  empty_->position->setType(QCPItemPosition::ptAxisRectRatio);
  empty_->position->setCoords(0.5, 0.5);
  updateEmpty(true);
}

void PriceChartWidget::setClusters(std::vector<ClusterId> clusters, QString title) {
  clusters_ = std::move(clusters);
  title_ = title;
  if (auto* t = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0)))
    t->setText(tr("Traded price: %1").arg(title));
  updateEmpty(empty_->visible());
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PriceChartWidget::setTrades(const std::deque<TradePrint>& trades) {
  // Hourly VWAP per tenor: (exchange hour) -> (notional, GPU-hours).
  std::map<Hour, std::pair<double, double>> buckets[3];
  for (const TradePrint& t : trades) {
    if (std::find(clusters_.begin(), clusters_.end(), t.cluster) == clusters_.end()) continue;
    const auto tenor = tenorOf(t);
    if (!tenor) continue;
    const double gh = static_cast<double>(t.gpus) * static_cast<double>(t.end - t.start);
    auto& b = buckets[static_cast<int>(*tenor)][t.exchangeTime];
    b.first += dollars(t.price) * gh;
    b.second += gh;
  }
  double lo = 1e18, hi = -1e18;
  double tlo = 1e18, thi = -1e18;
  for (int i = 0; i < 3; ++i) {
    QVector<double> x, y;
    for (const auto& [h, b] : buckets[i]) {
      x.push_back(static_cast<double>(h) * 3600.0 + 1800.0);
      y.push_back(b.first / b.second);
      lo = std::min(lo, y.back());
      hi = std::max(hi, y.back());
      tlo = std::min(tlo, x.back());
      thi = std::max(thi, x.back());
    }
    plot_->graph(i)->setData(x, y, true);
  }
  updateEmpty(hi < lo);
  if (hi >= lo) {
    const double pad = std::max(0.05, (hi - lo) * 0.1);
    plot_->yAxis->setRange(lo - pad, hi + pad);
    plot_->xAxis->setRange(tlo - 1800, std::max(thi + 1800, tlo + 6 * 3600));
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PriceChartWidget::updateEmpty(bool empty) {
  empty_->setVisible(empty);
  // Short lines: the note sits in the middle of a dock that may be a third of the screen wide.
  empty_->setText(clusters_.empty() ? tr("No cluster selected:\npick one in the Clusters list.")
                                    : tr("No trades on %1 yet.\nThe chart shows the hourly average price\n"
                                         "(volume-weighted) of the trades on the tape.")
                                          .arg(title_));
  // An empty chart has no times or prices of its own: its axes keep their titles but show no
  // made-up dates (the default range starts at 1970).
  plot_->xAxis->setTickLabels(!empty);
  plot_->yAxis->setTickLabels(!empty);
}

int PriceChartWidget::pointCount(Tenor t) const { return plot_->graph(static_cast<int>(t))->dataCount(); }

void PriceChartWidget::setDark(bool dark) {
  stylePlot(plot_, dark);
  const QColor fg = plotForeground(dark);
  empty_->setColor(fg);
  if (auto* t = qobject_cast<QCPTextElement*>(plot_->plotLayout()->element(0, 0))) t->setTextColor(fg);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace tessera::ui
