#include "ui/ticket/OrderTicket.h"

#include "ui/shell/DisplayFormat.h"
#include "ui/shell/TermsFormat.h"
#include "ui/ticket/ListingTermsEditor.h"

#include "core/engine/MarketLimits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTimeEdit>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QShortcut>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>
#include <map>

namespace tessera::ui {
namespace {

QDateTimeEdit* hourEdit(QWidget* parent) {
  auto* e = new QDateTimeEdit(parent);
  e->setTimeSpec(Qt::UTC);
  e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:00 'UTC'"));
  e->setCalendarPopup(true);
  return e;
}

constexpr Accelerator kAccelerators[] = {Accelerator::A100,  Accelerator::H100,   Accelerator::H200,
                                         Accelerator::B200,  Accelerator::GB200,  Accelerator::MI300X,
                                         Accelerator::L40S,  Accelerator::RTX4090};

}  // namespace

OrderTicket::OrderTicket(QWidget* parent) : QWidget(parent) {
  setObjectName("orderTicket");
  auto* outer = new QVBoxLayout(this);
  form_ = new QFormLayout;
  outer->addLayout(form_);

  kind_ = new QComboBox(this);
  kind_->setObjectName("ticketKind");
  kind_->addItem(tr("Buy all-or-none (training run)"), static_cast<int>(TicketKind::AllOrNoneBuy));
  kind_->addItem(tr("Buy divisible"), static_cast<int>(TicketKind::DivisibleBuy));
  kind_->addItem(tr("Sell divisible (list capacity)"), static_cast<int>(TicketKind::DivisibleSell));
  kind_->addItem(tr("Buy flexible window (all-or-none)"), static_cast<int>(TicketKind::FlexibleBuy));
  kind_->addItem(tr("Buy any cluster matching constraints"), static_cast<int>(TicketKind::ConstraintBuy));
  kind_->addItem(tr("Sell back part of a held contract"), static_cast<int>(TicketKind::SellBack));
  form_->addRow(tr("&Order type"), kind_);

  cluster_ = new QComboBox(this);
  cluster_->setObjectName("ticketCluster");
  cluster_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  cluster_->setMinimumContentsLength(22);
  form_->addRow(tr("C&luster"), cluster_);
  contract_ = new QComboBox(this);
  contract_->setObjectName("ticketContract");
  contract_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  contract_->setMinimumContentsLength(22);
  form_->addRow(tr("Co&ntract"), contract_);

  constraints_ = new QGroupBox(tr("Constraints (empty: any)"), this);
  auto* cf = new QFormLayout(constraints_);
  accelerators_ = new QListWidget(constraints_);
  accelerators_->setMaximumHeight(90);
  for (Accelerator a : kAccelerators) {
    auto* item = new QListWidgetItem(toQString(toString(a)), accelerators_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(Qt::Unchecked);
    item->setData(Qt::UserRole, static_cast<int>(a));
  }
  cf->addRow(tr("Accelerators"), accelerators_);
  minMemory_ = new QSpinBox(constraints_);
  minMemory_->setRange(0, 1024);
  minMemory_->setSuffix(tr(" GB"));
  cf->addRow(tr("Min GPU memory"), minMemory_);
  regions_ = new QLineEdit(constraints_);
  regions_->setPlaceholderText(tr("us-east, eu-north"));
  cf->addRow(tr("Regions"), regions_);
  minFabric_ = new QComboBox(constraints_);
  minFabric_->addItem(tr("any"), -1);
  minFabric_->addItem("Ethernet", static_cast<int>(FabricClass::Ethernet));
  minFabric_->addItem("RoCE", static_cast<int>(FabricClass::RoCE));
  minFabric_->addItem("InfiniBand", static_cast<int>(FabricClass::InfiniBand));
  cf->addRow(tr("Min fabric"), minFabric_);
  maxCarbon_ = new QSpinBox(constraints_);
  maxCarbon_->setRange(0, 2000);
  maxCarbon_->setSpecialValueText(tr("any"));
  maxCarbon_->setSuffix(tr(" gCO2/kWh"));
  cf->addRow(tr("Max carbon"), maxCarbon_);
  form_->addRow(constraints_);

  gpus_ = new QSpinBox(this);
  gpus_->setObjectName("ticketGpus");
  gpus_->setRange(1, 1'000'000);
  gpus_->setValue(8);
  form_->addRow(tr("&GPUs"), gpus_);
  start_ = hourEdit(this);
  start_->setObjectName("ticketStart");
  form_->addRow(tr("&Start"), start_);
  end_ = hourEdit(this);
  end_->setObjectName("ticketEnd");
  form_->addRow(tr("&End"), end_);
  duration_ = new QSpinBox(this);
  duration_->setObjectName("ticketDuration");
  duration_->setRange(1, 24 * 366);
  duration_->setSuffix(tr(" h"));
  duration_->setValue(24);
  form_->addRow(tr("&Duration"), duration_);
  limit_ = new QDoubleSpinBox(this);
  limit_->setObjectName("ticketLimit");
  limit_->setDecimals(2);
  limit_->setRange(0.01, dollars(limits::kMaxPrice));  // what the exchange accepts
  limit_->setPrefix("$");
  limit_->setSuffix(tr(" /GPU-h"));
  limit_->setValue(2.50);
  form_->addRow(tr("&Limit"), limit_);
  tif_ = new QComboBox(this);
  tif_->addItem(tr("GTC (good till cancelled)"), static_cast<int>(TimeInForce::GTC));
  tif_->addItem(tr("GTD (good till date)"), static_cast<int>(TimeInForce::GTD));
  tif_->addItem(tr("IOC (immediate or cancel)"), static_cast<int>(TimeInForce::IOC));
  tif_->addItem(tr("FOK (fill or kill)"), static_cast<int>(TimeInForce::FOK));
  form_->addRow(tr("&Time in force"), tif_);
  expire_ = hourEdit(this);
  form_->addRow(tr("E&xpires"), expire_);
  postOnly_ = new QCheckBox(tr("Post only (never take liquidity)"), this);
  form_->addRow(QString(), postOnly_);

  terms_ = new ListingTermsEditor(this);
  terms_->load(QSettings());
  form_->addRow(terms_);
  askTerms_ = new QLabel(this);
  askTerms_->setObjectName("ticketAskTerms");
  askTerms_->setWordWrap(true);
  askTerms_->setTextFormat(Qt::RichText);
  askTerms_->setFrameShape(QFrame::StyledPanel);
  askTerms_->setToolTip(tr("Guaranteed facts are enforced (a shortfall earns the remedy); estimates are not."));
  form_->addRow(askTerms_);

  quote_ = new QLabel(this);
  quote_->setObjectName("ticketQuote");
  quote_->setWordWrap(true);
  quote_->setTextFormat(Qt::RichText);
  quote_->setMinimumHeight(64);
  quote_->setFrameShape(QFrame::StyledPanel);
  outer->addWidget(quote_);

  auto* buttons = new QHBoxLayout;
  submit_ = new QPushButton(tr("Submit (Enter)"), this);
  submit_->setObjectName("ticketSubmit");
  submit_->setDefault(true);
  cancel_ = new QPushButton(tr("Cancel (Esc)"), this);
  buttons->addWidget(submit_);
  buttons->addWidget(cancel_);
  outer->addLayout(buttons);
  outer->addStretch();

  connect(submit_, &QPushButton::clicked, this, &OrderTicket::submit);
  connect(cancel_, &QPushButton::clicked, this, &OrderTicket::cancel);
  for (auto key : {Qt::Key_Return, Qt::Key_Enter}) {
    auto* s = new QShortcut(QKeySequence(key), this, this, &OrderTicket::submit);
    s->setContext(Qt::WidgetWithChildrenShortcut);
  }
  auto* esc = new QShortcut(QKeySequence(Qt::Key_Escape), this, this, &OrderTicket::cancel);
  esc->setContext(Qt::WidgetWithChildrenShortcut);

  auto requote = [this] { refreshQuote(); };
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    updateVisibility();
    if (kind() == TicketKind::SellBack) fillFromContract();
    refreshQuote();
  });
  connect(cluster_, &QComboBox::currentIndexChanged, this, requote);
  connect(contract_, &QComboBox::currentIndexChanged, this, [this] {
    if (kind() == TicketKind::SellBack) fillFromContract();
  });
  connect(gpus_, &QSpinBox::valueChanged, this, requote);
  connect(start_, &QDateTimeEdit::dateTimeChanged, this, requote);
  connect(end_, &QDateTimeEdit::dateTimeChanged, this, requote);
  connect(duration_, &QSpinBox::valueChanged, this, requote);
  connect(limit_, &QDoubleSpinBox::valueChanged, this, [this] { limitTouched_ = true; });
  connect(tif_, &QComboBox::currentIndexChanged, this, [this] { updateVisibility(); });
  connect(terms_, &ListingTermsEditor::changed, this, requote);

  setNow(currentWallClockHour());
  updateVisibility();
  refreshQuote();
}

TicketKind OrderTicket::kind() const { return static_cast<TicketKind>(kind_->currentData().toInt()); }

void OrderTicket::setKind(TicketKind k) {
  const int i = kind_->findData(static_cast<int>(k));
  if (i >= 0) kind_->setCurrentIndex(i);
}

void OrderTicket::setClusters(const std::vector<Cluster>& clusters) {
  const ClusterId keep = clusterId();
  clusters_ = clusters;
  QSignalBlocker block(cluster_);
  cluster_->clear();
  for (const Cluster& c : clusters_) {
    cluster_->addItem(QStringLiteral("%1  (%2 x %3, %4)")
                          .arg(QString::fromStdString(c.name))
                          .arg(c.totalGpus())
                          .arg(toQString(toString(c.accelerator)))
                          .arg(QString::fromStdString(c.region)),
                      c.id);
  }
  const int i = cluster_->findData(keep);
  cluster_->setCurrentIndex(i >= 0 ? i : 0);
  refreshQuote();
}

void OrderTicket::setContracts(const std::vector<Contract>& contracts, AccountId me) {
  const QVariant keep = contract_->currentData();
  contracts_.clear();
  QSignalBlocker block(contract_);
  contract_->clear();
  for (const Contract& c : contracts) {
    if (c.buyer != me || c.end <= now_) continue;
    contracts_.push_back(c);
    QString name = QString::number(c.cluster);
    for (const Cluster& cl : clusters_) {
      if (cl.id == c.cluster) name = QString::fromStdString(cl.name);
    }
    contract_->addItem(tr("#%1  %2 GPUs %3, %4 to %5 @ %6")
                           .arg(c.id)
                           .arg(c.gpus)
                           .arg(name)
                           .arg(formatHour(c.start))
                           .arg(formatHour(c.end))
                           .arg(formatPrice(c.price)),
                       QVariant::fromValue<qulonglong>(c.id));
  }
  const int i = contract_->findData(keep);
  if (i >= 0) contract_->setCurrentIndex(i);
}

void OrderTicket::setBook(BookSnapshotPtr book) {
  book_ = std::move(book);
  refreshQuote();
}

void OrderTicket::setNow(Hour now) {
  if (now == now_) return;
  const bool first = now_ == 0;
  now_ = now;
  if (first) {
    QSignalBlocker a(start_), b(end_), c(expire_);
    start_->setDateTime(dateTimeOfHour(now + 1));
    end_->setDateTime(dateTimeOfHour(now + 25));
    expire_->setDateTime(dateTimeOfHour(now + 24));
  } else if (start() < now) {
    // Delivered hours cannot trade: keep the window's length, move it to the next hour.
    const Hour len = std::max<Hour>(1, end() - start());
    QSignalBlocker a(start_), b(end_);
    start_->setDateTime(dateTimeOfHour(now + 1));
    end_->setDateTime(dateTimeOfHour(now + 1 + len));
  }
  refreshQuote();
}

ClusterId OrderTicket::clusterId() const { return static_cast<ClusterId>(cluster_->currentData().toUInt()); }
GpuCount OrderTicket::gpus() const { return gpus_->value(); }
Hour OrderTicket::start() const { return hourOfDateTime(start_->dateTime()); }
Hour OrderTicket::end() const { return hourOfDateTime(end_->dateTime()); }
Price OrderTicket::limit() const { return priceFromDollars(limit_->value()); }

void OrderTicket::prefill(ClusterId cluster, const GridSelection& s) {
  const int i = cluster_->findData(cluster);
  if (i >= 0) cluster_->setCurrentIndex(i);
  if (s.side == Side::Sell) setKind(TicketKind::DivisibleSell);
  else if (kind() != TicketKind::DivisibleBuy && kind() != TicketKind::FlexibleBuy) setKind(TicketKind::AllOrNoneBuy);
  if (kind() == TicketKind::FlexibleBuy) duration_->setValue(static_cast<int>(std::max<Hour>(1, std::min<Hour>(duration_->value(), s.end - s.start))));
  gpus_->setValue(s.gpus);
  {
    QSignalBlocker a(start_), b(end_);
    start_->setDateTime(dateTimeOfHour(s.start));
    end_->setDateTime(dateTimeOfHour(s.end));
  }
  limitTouched_ = false;
  refreshQuote();
  gpus_->setFocus();
}

void OrderTicket::fillFromContract() {
  const qulonglong id = contract_->currentData().toULongLong();
  for (const Contract& c : contracts_) {
    if (c.id != id) continue;
    const int i = cluster_->findData(c.cluster);
    if (i >= 0) cluster_->setCurrentIndex(i);
    gpus_->setValue(c.gpus);
    QSignalBlocker a(start_), b(end_);
    start_->setDateTime(dateTimeOfHour(std::max(c.start, now_)));
    end_->setDateTime(dateTimeOfHour(c.end));
  }
  refreshQuote();
}

void OrderTicket::updateVisibility() {
  const TicketKind k = kind();
  form_->setRowVisible(cluster_, k != TicketKind::ConstraintBuy);
  cluster_->setEnabled(k != TicketKind::SellBack);
  form_->setRowVisible(contract_, k == TicketKind::SellBack);
  form_->setRowVisible(constraints_, k == TicketKind::ConstraintBuy);
  form_->setRowVisible(duration_, k == TicketKind::FlexibleBuy || k == TicketKind::ConstraintBuy);
  form_->setRowVisible(expire_, static_cast<TimeInForce>(tif_->currentData().toInt()) == TimeInForce::GTD);
  // A new listing states its terms; a sell-back passes on those of the contract it resells.
  form_->setRowVisible(terms_, k == TicketKind::DivisibleSell);
  form_->setRowVisible(askTerms_, k != TicketKind::DivisibleSell && k != TicketKind::SellBack);
}

std::variant<OrderRequest, QString> OrderTicket::order() const {
  OrderRequest o;
  const TicketKind k = kind();
  o.gpus = gpus_->value();
  o.start = start();
  o.end = end();
  o.limit = limit();
  o.tif = static_cast<TimeInForce>(tif_->currentData().toInt());
  o.postOnly = postOnly_->isChecked();
  if (o.tif == TimeInForce::GTD) o.expireAt = hourOfDateTime(expire_->dateTime());
  if (o.end <= o.start) return tr("The end must be after the start.");
  if (o.end <= now_) return tr("The window has already been delivered (exchange time %1).").arg(formatHour(now_));
  if (k != TicketKind::ConstraintBuy) {
    if (cluster_->currentIndex() < 0) return tr("Choose a cluster.");
    o.cluster = clusterId();
  }
  switch (k) {
    case TicketKind::AllOrNoneBuy:
      o.side = Side::Buy;
      o.fill = FillStyle::AllOrNone;
      break;
    case TicketKind::DivisibleBuy:
      o.side = Side::Buy;
      o.fill = FillStyle::Divisible;
      break;
    case TicketKind::DivisibleSell: {
      o.side = Side::Sell;
      o.fill = FillStyle::Divisible;
      auto t = terms_->terms(o.end - o.start);
      if (const QString* why = std::get_if<QString>(&t)) return *why;
      o.terms = std::get<OfferTerms>(t);
      break;
    }
    case TicketKind::FlexibleBuy:
      o.side = Side::Buy;
      o.fill = FillStyle::AllOrNone;
      if (duration_->value() > o.end - o.start) return tr("The duration is longer than the window.");
      o.duration = duration_->value();
      break;
    case TicketKind::ConstraintBuy: {
      o.side = Side::Buy;
      o.fill = FillStyle::AllOrNone;
      ClusterConstraints c;
      for (int i = 0; i < accelerators_->count(); ++i) {
        const auto* item = accelerators_->item(i);
        if (item->checkState() == Qt::Checked) c.accelerators.push_back(static_cast<Accelerator>(item->data(Qt::UserRole).toInt()));
      }
      c.minGpuMemoryGb = minMemory_->value();
      for (const QString& r : regions_->text().split(',', Qt::SkipEmptyParts)) {
        if (!r.trimmed().isEmpty()) c.regions.push_back(r.trimmed().toStdString());
      }
      if (minFabric_->currentData().toInt() >= 0) c.minFabric = static_cast<FabricClass>(minFabric_->currentData().toInt());
      if (maxCarbon_->value() > 0) c.maxCarbonGramsPerKwh = maxCarbon_->value();
      o.constraints = c;
      if (duration_->value() > o.end - o.start) return tr("The duration is longer than the window.");
      if (duration_->value() < o.end - o.start) o.duration = duration_->value();
      break;
    }
    case TicketKind::SellBack: {
      o.side = Side::Sell;
      o.fill = FillStyle::Divisible;
      if (contract_->currentIndex() < 0) return tr("You hold no contract to sell back.");
      o.sellBack = contract_->currentData().toULongLong();
      for (const Contract& c : contracts_) {
        if (c.id == o.sellBack) o.terms = c.terms;
      }
      break;
    }
  }
  return o;
}

std::optional<FillQuote> OrderTicket::quote() const {
  const auto o = order();
  if (!std::holds_alternative<OrderRequest>(o)) return std::nullopt;
  const OrderRequest& r = std::get<OrderRequest>(o);
  // A named order can only be quoted from a book that shows exactly its cluster.
  if (!book_ || !r.cluster || book_->clusters.size() != 1 || book_->clusters.front() != *r.cluster) return std::nullopt;
  return quoteFill(*book_, r.side, r.gpus, r.start, r.end, r.duration);
}

QString OrderTicket::quoteText() const {
  const auto o = order();
  if (const QString* why = std::get_if<QString>(&o)) return QStringLiteral("<b>%1</b>").arg(why->toHtmlEscaped());
  const OrderRequest& r = std::get<OrderRequest>(o);
  const auto q = quote();
  QString t = tr("%1 GPUs x %2 h = %3 GPU-hours, limit %4/GPU-h = %5")
                  .arg(r.gpus)
                  .arg(r.hours())
                  .arg(static_cast<qlonglong>(r.gpus) * r.hours())
                  .arg(formatPrice(r.limit))
                  .arg(formatMoney(r.limit * r.gpus * r.hours()));
  if (!q) {
    return t + tr("<br><i>No quote: show this cluster alone on the grid to quote it%1.</i>")
                   .arg(r.constraints ? tr(" (constraint orders match several clusters)") : QString());
  }
  const bool buy = r.side == Side::Buy;
  t += QStringLiteral("<br>");
  if (q->availableGpuHours == 0) {
    t += buy ? tr("Nothing offered in this window now.") : tr("No bids in this window now.");
  } else {
    t += tr("%1 if filled now: <b>%2</b>, average <b>%3</b>/GPU-h")
             .arg(buy ? tr("Cost") : tr("Proceeds"))
             .arg(formatMoney(q->total))
             .arg(formatPrice(static_cast<Price>(std::llround(*q->averagePrice()))));
    if (q->availableGpuHours < q->wantedGpuHours)
      t += tr(" (for the %1 of %2 GPU-hours available)").arg(q->availableGpuHours).arg(q->wantedGpuHours);
  }
  t += QStringLiteral("<br>");
  if (q->allOrNoneNow)
    t += tr("<span style='color:#2a2'>Can fill all-or-none right now</span>");
  else
    t += tr("<span style='color:#d33'>Cannot fill all-or-none right now</span>");
  if (r.duration) t += tr("<br>Best window now: %1 to %2").arg(formatHour(q->start)).arg(formatHour(q->end));
  if (!q->complete) t += tr("<br><i>Part of the window is beyond the grid's hours.</i>");
  return t;
}

QString OrderTicket::askTermsText() const {
  const TicketKind k = kind();
  if (k == TicketKind::ConstraintBuy)
    return tr("<i>A constraint order can match several clusters: hover the grid to see each ask's terms.</i>");
  const ClusterId id = clusterId();
  if (!book_ || book_->clusters.size() != 1 || book_->clusters.front() != id)
    return tr("<i>Show this cluster alone on the grid to see the terms of its asks.</i>");
  // The best ask of each hour in the window, grouped by terms: usually one provider's terms.
  std::vector<std::pair<OfferTerms, int>> groups;
  int hours = 0;
  for (Hour h = start(); h < end(); ++h) {
    const BookCell* cell = book_->cell(h);
    if (!cell) continue;
    ++hours;
    if (cell->asks.empty()) continue;
    const OfferTerms& t = cell->asks.front().terms;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == t; });
    if (it == groups.end()) groups.emplace_back(t, 1);
    else ++it->second;
  }
  if (groups.empty()) return tr("<i>Nothing offered in this window: no terms to show.</i>");
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  QString t = tr("<b>Terms of the best asks</b> (what you would buy):");
  constexpr std::size_t kShown = 3;
  for (std::size_t i = 0; i < std::min(kShown, groups.size()); ++i) {
    t += QStringLiteral("<br>%1 <i>(%2 of %3 h)</i>")
             .arg(describeTerms(groups[i].first).toHtmlEscaped())
             .arg(groups[i].second)
             .arg(hours);
  }
  if (groups.size() > kShown) t += tr("<br><i>and %1 other sets of terms</i>").arg(groups.size() - kShown);
  return t;
}

void OrderTicket::refreshQuote() {
  if (!limitTouched_) {
    // Until the trader types a limit, offer the one that would fill now.
    if (const auto q = quote(); q && q->availableGpuHours > 0) {
      const Price cent = kMicrosPerDollar / 100;
      const bool aon = kind() == TicketKind::AllOrNoneBuy || kind() == TicketKind::FlexibleBuy;
      const Price p = aon ? static_cast<Price>(std::ceil(*q->averagePrice())) : q->worstPrice;
      const Price rounded = q->wantedGpuHours > 0 && kind() != TicketKind::DivisibleSell && kind() != TicketKind::SellBack
                                ? ((p + cent - 1) / cent) * cent
                                : (p / cent) * cent;
      QSignalBlocker b(limit_);
      limit_->setValue(dollars(rounded));
    }
  }
  quote_->setText(quoteText());
  if (kind() != TicketKind::DivisibleSell && kind() != TicketKind::SellBack) askTerms_->setText(askTermsText());
}

void OrderTicket::submit() {
  const auto o = order();
  if (const QString* why = std::get_if<QString>(&o)) {
    emit invalidOrder(*why);
    QMessageBox::warning(this, tr("Order not sent"), *why);
    return;
  }
  const OrderRequest& r = std::get<OrderRequest>(o);
  const std::int64_t gpuHours = static_cast<std::int64_t>(r.gpus) * r.hours();
  if (gpuHours > confirmAbove_) {
    const auto answer = QMessageBox::question(
        this, tr("Confirm large order"),
        tr("%1 %2 GPUs for %3 h (%4 GPU-hours) at up to %5/GPU-h, %6 in all?")
            .arg(r.side == Side::Buy ? tr("Buy") : tr("Sell"))
            .arg(r.gpus)
            .arg(r.hours())
            .arg(gpuHours)
            .arg(formatPrice(r.limit))
            .arg(formatMoney(r.limit * gpuHours)));
    if (answer != QMessageBox::Yes) return;
  }
  if (kind() == TicketKind::DivisibleSell) {
    QSettings s;
    terms_->save(s);  // the next listing starts from these terms
  }
  emit submitRequested(r);
}

void OrderTicket::cancel() {
  limitTouched_ = false;
  emit cancelled();
}

}  // namespace tessera::ui
