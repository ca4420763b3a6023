#include "ui/blotter/ContractDetailDialog.h"

#include "ui/blotter/ContractsModel.h"
#include "ui/market/PlotStyle.h"
#include "ui/shell/DisplayFormat.h"
#include "ui/shell/TermsFormat.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace tessera::ui {
namespace {

double secs(Hour h) { return static_cast<double>(h) * 3600.0; }

// Points of a step function over [start, end) for QCustomPlot's lsStepLeft, closed at the end.
void addSteps(QCPGraph* g, const std::vector<HeldStep>& steps) {
  QVector<double> x, y;
  for (const HeldStep& s : steps) {
    x << secs(s.start);
    y << s.gpus;
  }
  if (!steps.empty()) {
    x << secs(steps.back().end);
    y << steps.back().gpus;
  }
  g->setData(x, y, true);
}

}  // namespace

ContractDetailDialog::ContractDetailDialog(const Contract& c, const ContractMark* held, Hour now,
                                           const ClusterNames& names, QWidget* parent)
    : QDialog(parent) {
  setObjectName("contractDetail");
  setWindowTitle(tr("Contract #%1").arg(c.id));
  auto* layout = new QVBoxLayout(this);
  auto* heading = new QLabel(tr("<b>Contract #%1</b>").arg(c.id), this);
  layout->addWidget(heading);
  auto* facts = new QFormLayout;
  const bool bought = held != nullptr;
  facts->addRow(tr("Side"), new QLabel(bought ? tr("Held (bought)") : tr("Sold"), this));
  facts->addRow(tr("Cluster"), new QLabel(names(c.cluster), this));
  facts->addRow(
      tr("Window"),
      new QLabel(tr("%1 to %2 (%3 h)").arg(formatHour(c.start), formatHour(c.end)).arg(c.end - c.start), this));
  facts->addRow(
      tr("Contracted"),
      new QLabel(tr("%1 GPUs at %2/GPU-h, %3").arg(c.gpus).arg(formatPrice(c.price), formatMoney(c.notional())), this));
  auto* terms = new QLabel(describeTerms(c.terms), this);
  terms->setWordWrap(true);
  facts->addRow(tr("Terms"), terms);
  if (bought) {
    auto* shape = new QLabel(ContractsModel::shapeText(c, *held), this);
    shape->setObjectName("contractHeldShape");
    shape->setWordWrap(true);
    facts->addRow(tr("Held now"), shape);
    facts->addRow(tr("GPU-hours sold from it"),
                  new QLabel(QLocale().toString(static_cast<qlonglong>(held->soldGpuHours)), this));
    auto* realised = new QLabel(formatMoney(held->realisedPnl), this);
    realised->setObjectName("contractRealised");
    facts->addRow(tr("Realised P&&L on them"), realised);
    facts->addRow(tr("Remaining held, at marks"), new QLabel(formatMoney(held->markValue), this));
    facts->addRow(tr("Unrealised P&&L"), new QLabel(formatMoney(held->pnl()), this));
  }
  layout->addLayout(facts);

  if (bought) {
    chart_ = new QCustomPlot(this);
    chart_->setObjectName("contractShapeChart");
    chart_->setMinimumSize(520, 220);
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    stylePlot(chart_, dark);
    auto ticker = QSharedPointer<QCPAxisTickerDateTime>::create();
    ticker->setDateTimeSpec(Qt::UTC);
    ticker->setDateTimeFormat(QStringLiteral("ddd HH:00"));
    chart_->xAxis->setTicker(ticker);
    chart_->xAxis->setLabel(tr("Delivery hour (UTC)"));
    chart_->yAxis->setLabel(tr("GPUs"));
    QCPGraph* contracted = chart_->addGraph();
    contracted->setName(tr("Bought"));
    contracted->setLineStyle(QCPGraph::lsStepLeft);
    contracted->setPen(QPen(plotForeground(dark), 1.5, Qt::DashLine));
    addSteps(contracted, {HeldStep{c.start, c.end, c.gpus}});
    QCPGraph* now_held = chart_->addGraph();
    now_held->setName(tr("Held now (after sales)"));
    now_held->setLineStyle(QCPGraph::lsStepLeft);
    now_held->setPen(QPen(QColor(60, 150, 240), 2));
    now_held->setBrush(QColor(60, 150, 240, 70));
    addSteps(now_held, held->held);
    if (now > c.start && now < c.end) {
      auto* line = new QCPItemStraightLine(chart_);
      line->point1->setCoords(secs(now), 0);
      line->point2->setCoords(secs(now), 1);
      line->setPen(QPen(QColor(230, 160, 40), 1, Qt::DotLine));
      auto* label = new QCPItemText(chart_);
      label->position->setCoords(secs(now), c.gpus * 1.08);
      label->setText(tr("now"));
      label->setColor(QColor(230, 160, 40));
    }
    chart_->xAxis->setRange(secs(c.start) - 1800, secs(c.end) + 1800);
    // Headroom above the contract for the legend, so it never covers the shape.
    chart_->yAxis->setRange(0, std::max<double>(1, c.gpus * 1.6));
    chart_->legend->setVisible(true);
    chart_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    chart_->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    chart_->replot();
    layout->addWidget(chart_, 1);

    steps_ = new QTableWidget(static_cast<int>(held->held.size()), 4, this);
    steps_->setObjectName("contractHeldSteps");
    steps_->setHorizontalHeaderLabels({tr("From"), tr("Until"), tr("GPUs held"), tr("GPUs sold")});
    steps_->verticalHeader()->hide();
    steps_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int r = 0; r < static_cast<int>(held->held.size()); ++r) {
      const HeldStep& s = held->held[static_cast<std::size_t>(r)];
      steps_->setItem(r, 0, new QTableWidgetItem(formatHour(s.start)));
      steps_->setItem(r, 1, new QTableWidgetItem(formatHour(s.end)));
      steps_->setItem(r, 2, new QTableWidgetItem(QString::number(s.gpus)));
      steps_->setItem(r, 3, new QTableWidgetItem(QString::number(c.gpus - s.gpus)));
    }
    steps_->verticalHeader()->setDefaultSectionSize(steps_->fontMetrics().height() + 8);
    steps_->resizeColumnsToContents();
    steps_->horizontalHeader()->setStretchLastSection(true);
    // Every step in sight up to eight of them; more scroll.
    const int shown = std::min<int>(8, steps_->rowCount());
    steps_->setFixedHeight(shown * steps_->verticalHeader()->defaultSectionSize() +
                           steps_->horizontalHeader()->sizeHint().height() + 2 * steps_->frameWidth() + 2);
    layout->addWidget(steps_);
  }
  auto* box = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(box);
  // Wide enough that the wrapped facts (terms, held shape) take two lines at most, and as tall
  // as they then need.
  setMinimumWidth(660);
  resize(660, layout->heightForWidth(660) > 0 ? layout->heightForWidth(660) : sizeHint().height());
}

}  // namespace tessera::ui
