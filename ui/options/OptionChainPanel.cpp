#include "ui/options/OptionChainPanel.h"
#include "core/domain/HourText.h"
#include "core/settlement/ContractSettlement.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <map>

namespace tessera::ui {
namespace {

using namespace tessera::indexoptions;

QString money(std::optional<Price> p) { return p ? QString::fromStdString(toDollars(*p)) : QStringLiteral("–"); }
QString percent(std::optional<double> v) { return v ? QString::number(*v * 100, 'f', 1) + "%" : QStringLiteral("–"); }
QString fraction(std::optional<double> v) { return v ? QString::number(*v, 'f', 2) : QStringLiteral("–"); }

}  // namespace

OptionChainPanel::OptionChainPanel(QWidget* parent) : QWidget(parent) {
  accelerator_ = new QComboBox(this);
  for (Accelerator a : {Accelerator::H100, Accelerator::H200, Accelerator::MI300X, Accelerator::A100, Accelerator::B200,
                        Accelerator::GB200, Accelerator::L40S, Accelerator::RTX4090})
    accelerator_->addItem(QString::fromUtf8(toString(a).data()), static_cast<int>(a));
  period_ = new QComboBox(this);
  period_->setToolTip(tr("Delivery period: the option settles on the mean next-day index over it"));
  curve_ = new QLabel(this);
  curve_->setMinimumWidth(0);
  curve_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  auto* pick = new QHBoxLayout;
  pick->addWidget(new QLabel(tr("Class"), this));
  pick->addWidget(accelerator_);
  pick->addWidget(new QLabel(tr("Period"), this));
  pick->addWidget(period_);
  pick->addWidget(curve_, 1);

  table_ = new QTableWidget(0, Columns, this);
  // Calls left of the strike, puts right of it: short headers, the side in each tooltip.
  const QStringList names{tr("Bid"), tr("Ask"), tr("Value"), tr("IV"), tr("Δ")};
  for (int c = 0; c < Columns; ++c) {
    const bool call = c < Strike;
    auto* header = new QTableWidgetItem(c == Strike ? tr("Strike") : names[call ? c : c - PutBid]);
    if (c != Strike) header->setToolTip((call ? tr("Call: ") : tr("Put: ")) + header->text());
    table_->setHorizontalHeaderItem(c, header);
  }
  table_->setToolTip(tr(
      "Dollars per GPU-hour of notional. Value: the exchange's Black-76 reference value; IV: the "
      "implied volatility of the book's mid. Click a price to fill the order ticket: an ask to buy, a bid to write."));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->setWordWrap(false);

  // The exchange's last word on an option order or position; the earlier ones in the tooltip.
  notices_ = new QListWidget(this);
  notices_->setMaximumHeight(notices_->fontMetrics().height() * 2 + 8);
  notices_->setVisible(false);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->setSpacing(4);
  layout->addLayout(pick);
  layout->addWidget(status_);
  layout->addWidget(table_, 1);
  layout->addWidget(notices_);

  connect(accelerator_, &QComboBox::currentIndexChanged, this, [this] { emit chainWanted(selectedAccelerator()); });
  connect(period_, &QComboBox::currentIndexChanged, this, [this] { fillTable(); });
  connect(table_, &QTableWidget::cellClicked, this, [this](int row, int column) { pickCell(row, column); });
  setAvailable(false, tr("Waiting for the exchange…"));
}

void OptionChainPanel::setAvailable(bool available, const QString& whyNot) {
  available_ = available;
  status_->setText(available ? QString() : whyNot);
  status_->setVisible(!available);
}

void OptionChainPanel::showAccelerator(Accelerator a) {
  const int i = accelerator_->findData(static_cast<int>(a));
  if (i == accelerator_->currentIndex())
    emit chainWanted(a);
  else
    accelerator_->setCurrentIndex(i);
}

Accelerator OptionChainPanel::selectedAccelerator() const {
  return static_cast<Accelerator>(accelerator_->currentData().toInt());
}

void OptionChainPanel::setChain(const net::OptionChainView& chain) {
  if (chain.accelerator != selectedAccelerator()) return;
  const QString keep = period_->currentText();
  chain_ = chain;
  {
    const QSignalBlocker block(period_);
    period_->clear();
    for (const auto& p : chain.periods)
      period_->addItem(QString::fromStdString(p.name), QVariant::fromValue(p.period.start));
    const int at = period_->findText(keep);
    period_->setCurrentIndex(at >= 0 ? at : 0);
  }
  setAvailable(available_, status_->text());
  fillTable();
}

void OptionChainPanel::fillTable() {
  table_->setRowCount(0);
  const int index = period_->currentIndex();
  if (index < 0 || index >= static_cast<int>(chain_.periods.size())) {
    curve_->clear();
    return;
  }
  const auto& period = chain_.periods[static_cast<std::size_t>(index)];
  curve_->setText(
      tr("Forward %1 · vol %2 · calls left, puts right").arg(money(period.forward), percent(chain_.volatility)));
  curve_->setToolTip(curve_->text());
  period_->setToolTip(tr("Delivery %1 to %2 UTC: the option settles on the mean next-day index over it")
                          .arg(QString::fromStdString(isoHour(period.period.start)).left(10),
                               QString::fromStdString(isoHour(period.period.end)).left(10)));
  std::map<Price, std::pair<const net::OptionChainRow*, const net::OptionChainRow*>> byStrike;
  for (const auto& r : chain_.rows) {
    if (r.series.periodKind != period.period.kind || r.series.start != period.period.start) continue;
    auto& slot = byStrike[r.series.strike];
    (r.series.kind == OptionKind::Call ? slot.first : slot.second) = &r;
  }
  table_->setRowCount(static_cast<int>(byStrike.size()));
  int row = 0;
  for (const auto& [strike, pair] : byStrike) {
    auto set = [&](int column, const QString& text, Qt::Alignment align = Qt::AlignRight | Qt::AlignVCenter) {
      auto* item = new QTableWidgetItem(text);
      item->setTextAlignment(align);
      table_->setItem(row, column, item);
    };
    for (const auto& [r, first] : {std::pair{pair.first, int(CallBid)}, std::pair{pair.second, int(PutBid)}}) {
      if (!r) continue;
      set(first + 0, money(r->bid));
      set(first + 1, money(r->ask));
      set(first + 2, money(r->value));
      set(first + 3, percent(r->iv));
      set(first + 4, fraction(r->delta));
    }
    set(Strike, QString::fromStdString(toDollars(strike)), Qt::AlignCenter);
    QFont bold = table_->item(row, Strike)->font();
    bold.setBold(true);
    table_->item(row, Strike)->setFont(bold);
    table_->item(row, Strike)->setData(Qt::UserRole, QVariant::fromValue(strike));
    ++row;
  }
}

void OptionChainPanel::pickCell(int row, int column) {
  const int index = period_->currentIndex();
  if (column == Strike || !table_->item(row, Strike) || index < 0 || index >= static_cast<int>(chain_.periods.size()))
    return;
  const bool call = column < Strike;
  const int offset = column - (call ? CallBid : PutBid);
  const auto& period = chain_.periods[static_cast<std::size_t>(index)].period;
  const Price strike = table_->item(row, Strike)->data(Qt::UserRole).toLongLong();
  for (const auto& r : chain_.rows) {
    if (r.series.periodKind != period.kind || r.series.start != period.start || r.series.strike != strike ||
        (r.series.kind == OptionKind::Call) != call)
      continue;
    // A bid is there to be written to; an ask, or any other cell, to be bought.
    const Side side = offset == 0 ? Side::Sell : Side::Buy;
    const std::optional<Price> at = offset == 0 ? r.bid : offset == 1 ? r.ask : std::nullopt;
    emit seriesPicked(r.series, side, at ? at : r.value);
    return;
  }
}

void OptionChainPanel::addNotice(const QString& text) {
  notices_->insertItem(0, text);
  notices_->setVisible(true);
  while (notices_->count() > 200) delete notices_->takeItem(notices_->count() - 1);
}

}  // namespace tessera::ui
