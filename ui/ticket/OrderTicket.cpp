#include "ui/ticket/OrderTicket.h"

#include <QDateTime>

#include "ui/shell/DisplayFormat.h"
#include "ui/shell/TermsFormat.h"
#include "ui/ticket/ListingTermsEditor.h"
#include "ui/ticket/OptionTicketForm.h"
#include "ui/ticket/OrderMessages.h"
#include "ui/ticket/TicketInput.h"

#include "core/engine/Matcher.h"

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
#include <QLocale>
#include <QPointer>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>
#include <map>

namespace tessera::ui {
namespace {

// Capacity bought (an option is neither: its side is the option form's).
bool isBuy(TicketKind k) {
  return k != TicketKind::DivisibleSell && k != TicketKind::SellBack && k != TicketKind::Option;
}

QDateTimeEdit* hourEdit(QWidget* parent) {
  auto* e = new QDateTimeEdit(parent);
  e->setTimeSpec(Qt::UTC);
  e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:00 'UTC'"));
  e->setCalendarPopup(true);
  return e;
}

constexpr Hour kMaxQuotedHours = 24 * 62;  // longer windows are not quoted from the engine's book

constexpr Accelerator kAccelerators[] = {Accelerator::A100, Accelerator::H100,   Accelerator::H200,
                                         Accelerator::B200, Accelerator::GB200,  Accelerator::MI300X,
                                         Accelerator::L40S, Accelerator::RTX4090};

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
  kind_->addItem(tr("Option on the price index (call or put)"), static_cast<int>(TicketKind::Option));
  form_->addRow(tr("&Order type"), kind_);
  options_ = new OptionTicketForm(this);
  form_->addRow(options_);

  cluster_ = new QComboBox(this);
  cluster_->setObjectName("ticketCluster");
  cluster_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  cluster_->setMinimumContentsLength(22);
  form_->addRow(tr("C&luster"), cluster_);
  tradingMode_ = new QLabel(this);
  tradingMode_->setObjectName("ticketTradingMode");
  tradingMode_->setWordWrap(true);
  form_->addRow(tr("Trading"), tradingMode_);
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

  gpus_ = new QLineEdit(QStringLiteral("8"), this);
  gpus_->setObjectName("ticketGpus");
  gpusRow_ = fieldWithReason(this, gpus_, &gpusError_, "ticketGpusError");
  form_->addRow(tr("&GPUs"), gpusRow_);
  start_ = hourEdit(this);
  start_->setObjectName("ticketStart");
  startRow_ = fieldWithReason(this, start_, &startError_, "ticketStartError");
  form_->addRow(tr("&Start"), startRow_);
  end_ = hourEdit(this);
  end_->setObjectName("ticketEnd");
  endRow_ = fieldWithReason(this, end_, &endError_, "ticketEndError");
  form_->addRow(tr("&End"), endRow_);
  duration_ = new QLineEdit(QStringLiteral("24"), this);
  duration_->setObjectName("ticketDuration");
  durationRow_ = fieldWithReason(this, duration_, &durationError_, "ticketDurationError", {}, tr("h"));
  form_->addRow(tr("&Duration"), durationRow_);
  limit_ = new QLineEdit(QStringLiteral("2.50"), this);
  limit_->setObjectName("ticketLimit");
  limitRow_ = fieldWithReason(this, limit_, &limitError_, "ticketLimitError", QStringLiteral("$"), tr("/GPU-h"));
  form_->addRow(tr("&Limit"), limitRow_);
  limitSource_ = new QLabel(this);
  limitSource_->setObjectName("ticketLimitSource");
  limitSource_->setWordWrap(true);
  form_->addRow(QString(), limitSource_);
  form_->setRowVisible(limitSource_, false);
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
  capacity_ = new QComboBox(this);
  capacity_->setObjectName("ticketCapacity");
  capacity_->addItem(tr("Firm"), false);
  capacity_->addItem(tr("Interruptible (cheaper; the provider may reclaim it with notice)"), true);
  capacity_->setToolTip(
      tr("Firm and interruptible capacity trade in separate books. A named cluster is one or the "
         "other; constraints with Interruptible also match interruptible clusters."));
  form_->addRow(tr("Ca&pacity"), capacity_);
  checkpoint_ = new QLineEdit(QStringLiteral("1"), this);
  checkpoint_->setObjectName("ticketCheckpoint");
  checkpointRow_ = fieldWithReason(this, checkpoint_, &checkpointError_, "ticketCheckpointError", {}, tr("h"));
  checkpoint_->setToolTip(tr("How often the job saves a checkpoint: a reclaim loses the work since the last one."));
  form_->addRow(tr("Checkpoint e&very"), checkpointRow_);
  onFill_ = new QLineEdit(this);
  onFill_->setObjectName("ticketOnFill");
  onFill_->setPlaceholderText(tr("optional, e.g. sbatch train.sh"));
  onFill_->setToolTip(
      tr("A shell command run once for each contract this buy fills, with the contract in "
         "TESSERA_* environment variables (TESSERA_CLUSTER, TESSERA_GPUS, TESSERA_START, ...; "
         "docs/cli.md \"buy --on-fill\"). Never run twice for one contract, across restarts."));
  form_->addRow(tr("On &fill run"), onFill_);

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

  planNote_ = new QLabel(this);
  planNote_->setObjectName("ticketPlanNote");
  planNote_->setWordWrap(true);
  planNote_->setFrameShape(QFrame::StyledPanel);
  planNote_->hide();
  outer->addWidget(planNote_);
  quote_ = new QLabel(this);
  quote_->setObjectName("ticketQuote");
  quote_->setWordWrap(true);
  quote_->setTextFormat(Qt::RichText);
  quote_->setMinimumHeight(64);
  quote_->setFrameShape(QFrame::StyledPanel);
  outer->addWidget(quote_);
  status_ = new QLabel(this);
  status_->setObjectName("ticketStatus");
  status_->setWordWrap(true);
  status_->hide();
  outer->addWidget(status_);
  bookQuoteTimer_ = new QTimer(this);
  bookQuoteTimer_->setSingleShot(true);
  bookQuoteTimer_->setInterval(250);
  connect(bookQuoteTimer_, &QTimer::timeout, this, &OrderTicket::requestBookQuote);

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

  // A field the trader edits ends the offer of a limit from the book (see proposeLimit_).
  auto requote = [this] {
    proposeLimit_ = false;
    refreshQuote();
  };
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    updateVisibility();
    if (kind() == TicketKind::SellBack) fillFromContract();
    refreshQuote();
  });
  auto rewindow = [this, requote] {
    requote();
    noteWindow();
  };
  connect(cluster_, &QComboBox::currentIndexChanged, this, rewindow);
  connect(cluster_, &QComboBox::currentIndexChanged, this, [this] { showTradingMode(); });
  // A named cluster is firm or interruptible: the capacity control follows it.
  connect(cluster_, &QComboBox::currentIndexChanged, this, [this] {
    if (const Cluster* c = chosenCluster()) capacity_->setCurrentIndex(c->interruptible() ? 1 : 0);
  });
  connect(capacity_, &QComboBox::currentIndexChanged, this, [this, requote] {
    updateVisibility();
    requote();
  });
  connect(checkpoint_, &QLineEdit::textChanged, this, requote);
  connect(contract_, &QComboBox::currentIndexChanged, this, [this] {
    if (kind() == TicketKind::SellBack) fillFromContract();
  });
  connect(gpus_, &QLineEdit::textChanged, this, requote);
  connect(start_, &QDateTimeEdit::dateTimeChanged, this, rewindow);
  connect(end_, &QDateTimeEdit::dateTimeChanged, this, rewindow);
  connect(start_, &QDateTimeEdit::dateTimeChanged, this, [this] { windowChosen_ = true; });
  connect(end_, &QDateTimeEdit::dateTimeChanged, this, [this] { windowChosen_ = true; });
  connect(duration_, &QLineEdit::textChanged, this, requote);
  connect(limit_, &QLineEdit::textChanged, this, [this] {
    if (!settingLimit_) {
      limitTouched_ = true;
      form_->setRowVisible(limitSource_, false);
    }
    validate();
    quote_->setText(quoteText());
  });
  connect(tif_, &QComboBox::currentIndexChanged, this, [this] {
    updateVisibility();
    refreshQuote();
  });
  connect(expire_, &QDateTimeEdit::dateTimeChanged, this, requote);
  connect(postOnly_, &QCheckBox::toggled, this, requote);
  connect(accelerators_, &QListWidget::itemChanged, this, requote);
  connect(minMemory_, &QSpinBox::valueChanged, this, requote);
  connect(regions_, &QLineEdit::textChanged, this, requote);
  connect(minFabric_, &QComboBox::currentIndexChanged, this, requote);
  connect(maxCarbon_, &QSpinBox::valueChanged, this, requote);
  connect(terms_, &ListingTermsEditor::changed, this, requote);
  connect(options_, &OptionTicketForm::changed, this, [this] {
    if (kind() == TicketKind::Option) validate();
  });
  connect(options_, &OptionTicketForm::chainWanted, this, &OrderTicket::optionChainWanted);

  // A provisional window from the wall clock; the exchange's clock, when it first comes, sets
  // the real one (a paper account's simulated clock is often days ahead of the wall clock).
  showWindowFrom(currentWallClockHour());
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
    const QString spot = c.interruptible() ? tr(", interruptible, %1 h notice").arg(c.noticeHours) : QString();
    cluster_->addItem(QStringLiteral("%1  (%2 x %3, %4%5)")
                          .arg(QString::fromStdString(c.name))
                          .arg(c.totalGpus())
                          .arg(toQString(toString(c.accelerator)))
                          .arg(QString::fromStdString(c.region), spot),
                      c.id);
  }
  const int i = cluster_->findData(keep);
  cluster_->setCurrentIndex(i >= 0 ? i : 0);
  if (const Cluster* c = chosenCluster(); c && kind() != TicketKind::ConstraintBuy)
    capacity_->setCurrentIndex(c->interruptible() ? 1 : 0);
  refreshQuote();
}

void OrderTicket::setContracts(const std::vector<Contract>& contracts, AccountId me,
                               const std::vector<ContractMark>& held) {
  const QVariant keep = contract_->currentData();
  held_ = held;
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
  validate();
}

void OrderTicket::sellBack(ContractId id) {
  setKind(TicketKind::SellBack);
  const int i = contract_->findData(QVariant::fromValue<qulonglong>(id));
  if (i >= 0 && i != contract_->currentIndex())
    contract_->setCurrentIndex(i);  // fills from it
  else
    fillFromContract();
}

GpuCount OrderTicket::heldThroughout(Hour start, Hour end) const {
  const qulonglong id = contract_->currentData().toULongLong();
  const Contract* c = nullptr;
  for (const Contract& x : contracts_)
    if (x.id == id) c = &x;
  if (!c) return 0;
  const auto h = std::find_if(held_.begin(), held_.end(), [&](const ContractMark& m) { return m.contract == id; });
  if (h == held_.end()) return c->gpus;  // no shape known: the contract as bought
  GpuCount least = c->gpus;
  for (Hour t = std::max(start, c->start); t < std::min(end, c->end); ++t) least = std::min(least, h->heldGpusAt(t));
  return least;
}

void OrderTicket::setBook(BookSnapshotPtr book) {
  book_ = std::move(book);
  refreshQuote();
}

void OrderTicket::showWindowFrom(Hour now, Hour hours) {
  QSignalBlocker a(start_), b(end_), c(expire_);
  windowChosen_ = false;
  start_->setDateTime(dateTimeOfHour(now + 1));
  end_->setDateTime(dateTimeOfHour(now + 1 + hours));
  expire_->setDateTime(dateTimeOfHour(now + 24));
}

void OrderTicket::setCallAuction(const CallAuctionView& view) {
  calls_ = view;
  showTradingMode();
}

QString OrderTicket::tradingModeText() const {
  const bool constraints = kind() == TicketKind::ConstraintBuy;
  if (cluster_->currentIndex() < 0 && !constraints) return {};
  const bool call = constraints ? calls_.schedule.allClusters : calls_.callMode(clusterId());
  if (!call) return tr("Continuously");
  return tr("In calls: the next call is %1")
      .arg(formatNextCall(calls_.schedule.nextCallUnix, calls_.schedule.periodSeconds));
}

void OrderTicket::showTradingMode() {
  const QString text = tradingModeText();
  tradingMode_->setText(text);
  // The rule in full where a short line is all the form has room for.
  tradingMode_->setToolTip(text.startsWith(tr("In calls"))
                               ? tr("The order waits for the next call and trades at its clearing price. GTC or GTD "
                                    "only; cancel, do not amend.")
                           : text.isEmpty() ? QString()
                                            : tr("The order trades on arrival and then rests in the book."));
}

void OrderTicket::setNow(Hour now) {
  if (now == now_) return;
  const bool first = now_ == 0;
  now_ = now;
  options_->setNow(now);
  // The ticket's own offer starts at the next hour; a chosen window stays where it is.
  if (first)
    showWindowFrom(now);
  else if (!windowChosen_)
    showWindowFrom(now, std::max<Hour>(end() - start(), 1));
  validate();
  refreshQuote();
}

void OrderTicket::renewDeliveredWindow() {
  if (now_ == 0 || start() >= now_) return;
  showWindowFrom(now_, std::max<Hour>(end() - start(), 1));
  validate();
  refreshQuote();
}

void OrderTicket::offerLimitOnce() {
  if (limitTouched_ && !sentContent_) return;
  limitTouched_ = false;
  proposeLimit_ = true;
  refreshQuote();
}

ClusterId OrderTicket::clusterId() const { return static_cast<ClusterId>(cluster_->currentData().toUInt()); }

bool OrderTicket::interruptibleChosen() const { return capacity_->currentData().toBool(); }

const Cluster* OrderTicket::chosenCluster() const {
  if (cluster_->currentIndex() < 0) return nullptr;
  const ClusterId id = clusterId();
  for (const Cluster& c : clusters_)
    if (c.id == id) return &c;
  return nullptr;
}
GpuCount OrderTicket::gpus() const { return static_cast<GpuCount>(parsedGpus().value_or(0)); }
Hour OrderTicket::start() const { return hourOfDateTime(start_->dateTime()); }
Hour OrderTicket::end() const { return hourOfDateTime(end_->dateTime()); }
Price OrderTicket::limit() const { return parsedLimit().value_or(0); }

GpuCount OrderTicket::maxGpus() const {
  const TicketKind k = kind();
  if (k == TicketKind::SellBack) return heldThroughout(start(), end());
  GpuCount most = 0;
  for (const Cluster& c : clusters_) {
    if (k == TicketKind::ConstraintBuy || c.id == clusterId()) most = std::max<GpuCount>(most, c.totalGpus());
  }
  return most > 0 ? most : limits::kMaxClusterGpus;
}

std::optional<std::int64_t> OrderTicket::parsedGpus() const {
  const auto v = parseWholeNumber(gpus_->text(), tr("GPUs"), 1, maxGpus());
  if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
  return std::nullopt;
}

std::optional<Price> OrderTicket::parsedLimit() const {
  const auto v = parseLimitPrice(limit_->text());
  if (const auto* p = std::get_if<Price>(&v)) return *p;
  return std::nullopt;
}

std::optional<Hour> OrderTicket::parsedDuration() const {
  const auto v = parseWholeNumber(duration_->text(), tr("hours"), 1, limits::kMaxWindowHours);
  if (const auto* n = std::get_if<std::int64_t>(&v)) return *n;
  return std::nullopt;
}

void OrderTicket::setLimitText(Price p) {
  settingLimit_ = true;
  limit_->setText(limitText(p));
  settingLimit_ = false;
}

void OrderTicket::validate() {
  if (planNote_) planNote_->setVisible(planApplies());
  if (kind() == TicketKind::Option) return validateOption();
  const TicketKind k = kind();
  const auto g = parseWholeNumber(gpus_->text(), tr("GPUs"), 1, maxGpus());
  QString gpusWhy = std::holds_alternative<QString>(g) ? std::get<QString>(g) : QString();
  if (gpusWhy.contains(tr("allowed here")) && k == TicketKind::SellBack)
    gpusWhy = tr("You hold %1 GPUs of this contract in every hour of the window: you can sell back at most that.")
                  .arg(heldThroughout(start(), end()));
  else if (gpusWhy.contains(tr("allowed here")) && maxGpus() < limits::kMaxClusterGpus)
    gpusWhy = tr("%1 GPUs is more than the cluster has (%2).").arg(gpus_->text().trimmed()).arg(maxGpus());
  showReason(gpusError_, gpus_, gpusWhy);
  const auto l = parseLimitPrice(limit_->text());
  showReason(limitError_, limit_, std::holds_alternative<QString>(l) ? std::get<QString>(l) : QString());
  QString startWhy, endWhy;
  if (start() < now_)
    startWhy = tr("The start has been delivered: exchange time is %1 UTC. Choose a later start.").arg(formatHour(now_));
  if (end() <= start())
    endWhy = tr("The end must be after the start (%1 UTC).").arg(formatHour(start()));
  else if (end() - start() > limits::kMaxWindowHours)
    endWhy = tr("The window is longer than the exchange allows (five years).");
  showReason(startError_, start_, startWhy);
  showReason(endError_, end_, endWhy);
  QString durationWhy;
  if (k == TicketKind::FlexibleBuy || k == TicketKind::ConstraintBuy) {
    const auto d = parseWholeNumber(duration_->text(), tr("hours"), 1, limits::kMaxWindowHours);
    if (const auto* why = std::get_if<QString>(&d))
      durationWhy = *why;
    else if (end() > start() && std::get<std::int64_t>(d) > end() - start())
      durationWhy = tr("%1 h is longer than the window (%2 h).").arg(std::get<std::int64_t>(d)).arg(end() - start());
  }
  showReason(durationError_, duration_, durationWhy);
  // A form that still describes the order last sent is not sent again.
  const auto o = order();
  forgetNotSent(std::get_if<QString>(&o));
  if (sentContent_ && (!std::holds_alternative<OrderRequest>(o) || std::get<OrderRequest>(o) != *sentContent_)) {
    sentContent_.reset();
    sentId_ = shownId_ = 0;
    status_->hide();
  }
  submit_->setEnabled(canSubmit());
}

QString OrderTicket::problem() const {
  if (kind() == TicketKind::Option) {
    const auto o = options_->order();
    if (const QString* why = std::get_if<QString>(&o)) return *why;
    return {};
  }
  const auto o = order();
  if (const QString* why = std::get_if<QString>(&o)) return *why;
  return {};
}

bool OrderTicket::canSubmit() const {
  return problem().isEmpty() && !(kind() == TicketKind::Option ? sentOption_.has_value() : sentContent_.has_value());
}

void OrderTicket::validateOption() {
  options_->validate();
  const auto o = options_->order();
  forgetNotSent(std::get_if<QString>(&o));
  auto same = [](const net::OptionNewOrder& a, const net::OptionNewOrder& b) {
    return a.side == b.side && a.series == b.series && a.gpuHours == b.gpuHours && a.premium == b.premium;
  };
  if (sentOption_ &&
      (!std::holds_alternative<net::OptionNewOrder>(o) || !same(std::get<net::OptionNewOrder>(o), *sentOption_))) {
    sentOption_.reset();
    status_->hide();
  }
  submit_->setEnabled(canSubmit());
}

void OrderTicket::setOptionChain(const net::OptionChainView& chain) { options_->setChain(chain); }

void OrderTicket::prefillOption(const indexoptions::OptionSeries& series, Side side, std::optional<Price> premium) {
  setKind(TicketKind::Option);
  options_->prefill(series, side, premium);
  validate();
}

void OrderTicket::submitOption() {
  validate();
  if (sentOption_) {
    status_->setText(tr("Already sent. Change any field to send another option order."));
    status_->show();
    return;
  }
  const auto o = options_->order();
  if (const QString* why = std::get_if<QString>(&o)) return refuse(*why);
  const net::OptionNewOrder order = std::get<net::OptionNewOrder>(o);
  const QString what = tr("%1 %2 GPU-h of %3 at %4/GPU-h")
                           .arg(order.side == Side::Buy ? tr("Buy") : tr("Write"))
                           .arg(QLocale().toString(static_cast<qlonglong>(order.gpuHours)))
                           .arg(QString::fromStdString(indexoptions::seriesName(order.series)))
                           .arg(formatPrice(order.premium));
  if (order.gpuHours > confirmAbove_ &&
      QMessageBox::question(this, tr("Confirm large option order"), tr("Send this option order?\n\n%1").arg(what)) !=
          QMessageBox::Yes)
    return;
  sentOption_ = order;
  submit_->setEnabled(false);
  status_->setText(tr("Sent: %1. The exchange's answer shows in the option chain dock. Change any field to send "
                      "another order.")
                       .arg(what));
  status_->show();
  emit optionSubmitRequested(order);
}

std::optional<OrderId> OrderTicket::sentOrderId() const {
  if (!sentContent_) return std::nullopt;
  return shownId_ ? shownId_ : sentId_;
}

void OrderTicket::noteAccepted(OrderId sentId, OrderId shownId) {
  if (!sentContent_ || sentId != sentId_) return;
  shownId_ = shownId;
  status_->setText(tr("Accepted as order #%1. Change any field to send another order.").arg(shownId));
  status_->show();
}

void OrderTicket::noteRejected(OrderId sentId, const QString& why) {
  if (!sentContent_ || sentId != sentId_) return;
  status_->setText(tr("Not accepted: %1").arg(why));
  status_->show();
}

void OrderTicket::prefillPlan(const PlanPrefill& plan) {
  setKind(TicketKind::AllOrNoneBuy);
  prefill(plan.cluster, plan.window);
  plan_ = plan;
  planNote_->setText(plan.effectiveCostNote);
  setLimitText(plan.limit);
  limitTouched_ = true;  // the plan's limit, not the book's
  validate();
  refreshQuote();
}

bool OrderTicket::planApplies() const {
  return plan_ && kind() == TicketKind::AllOrNoneBuy && cluster_->currentIndex() >= 0 && clusterId() == plan_->cluster;
}

void OrderTicket::prefill(ClusterId cluster, const GridSelection& s) {
  plan_.reset();
  const int i = cluster_->findData(cluster);
  if (i >= 0) cluster_->setCurrentIndex(i);
  if (s.side == Side::Sell)
    setKind(TicketKind::DivisibleSell);
  else if (kind() != TicketKind::DivisibleBuy && kind() != TicketKind::FlexibleBuy)
    setKind(TicketKind::AllOrNoneBuy);
  if (kind() == TicketKind::FlexibleBuy && parsedDuration().value_or(0) > s.end - s.start)
    duration_->setText(QString::number(s.end - s.start));
  gpus_->setText(QString::number(s.gpus));
  {
    QSignalBlocker a(start_), b(end_);
    start_->setDateTime(dateTimeOfHour(s.start));
    end_->setDateTime(dateTimeOfHour(s.end));
  }
  limitTouched_ = false;
  proposeLimit_ = true;
  form_->setRowVisible(limitSource_, false);
  refreshQuote();
  noteWindow();
  gpus_->setFocus();
}

void OrderTicket::prefillAtPrice(ClusterId cluster, Side side, Hour start, Hour end, GpuCount gpus, Price price) {
  const auto typed = parsedGpus();
  setKind(side == Side::Buy ? TicketKind::DivisibleBuy : TicketKind::DivisibleSell);
  prefill(cluster, GridSelection{start, end, static_cast<GpuCount>(typed.value_or(gpus)), side});
  setLimitText(price);
  limitTouched_ = true;  // the price the trader chose: quotes do not replace it
  validate();
  refreshQuote();
}

void OrderTicket::fillFromContract() {
  const qulonglong id = contract_->currentData().toULongLong();
  for (const Contract& c : contracts_) {
    if (c.id != id) continue;
    const int i = cluster_->findData(c.cluster);
    if (i >= 0) cluster_->setCurrentIndex(i);
    {
      QSignalBlocker a(start_), b(end_);
      start_->setDateTime(dateTimeOfHour(std::max(c.start, now_)));
      end_->setDateTime(dateTimeOfHour(c.end));
    }
    gpus_->setText(QString::number(heldThroughout(std::max(c.start, now_), c.end)));
    offerSellBackLimit(c);
  }
  refreshQuote();
  noteWindow();
}

void OrderTicket::noteWindow() {
  const ClusterId cluster = kind() == TicketKind::ConstraintBuy ? 0 : clusterId();
  const std::tuple<ClusterId, Hour, Hour> now{cluster, start(), end()};
  if (now == notedWindow_ || start() >= end()) return;
  notedWindow_ = now;
  emit windowChanged(cluster, start(), end());
}

void OrderTicket::offerSellBackLimit(const Contract& c) {
  // What the held GPUs would sell for: the book's bids for this shape, else the contract's mark
  // (its held hours to come at the book's marks), else what it cost. Never the last ticket's limit.
  const Price cent = kMicrosPerDollar / 100;
  const GpuCount gpus = static_cast<GpuCount>(parsedGpus().value_or(0));
  Price price = 0;
  QString source;
  if (book_ && gpus > 0 && book_->clusters.size() == 1 && book_->clusters.front() == c.cluster) {
    const FillQuote q = quoteFill(*book_, Side::Sell, gpus, start(), end(), 0, std::nullopt);
    if (q.availableGpuHours > 0) {
      price = (q.worstPrice / cent) * cent;
      source = q.availableGpuHours < q.wantedGpuHours
                   ? tr("From the book: the best bids take %1 of these GPU-hours, down to %2.")
                         .arg(QLocale(QLocale::English, QLocale::UnitedStates)
                                  .toString(static_cast<qlonglong>(q.availableGpuHours)),
                              formatPrice(price))
                   : tr("From the book: the best bids for these GPUs and hours, down to %1.").arg(formatPrice(price));
    }
  }
  if (price == 0) {
    const auto h = std::find_if(held_.begin(), held_.end(), [&](const ContractMark& m) { return m.contract == c.id; });
    if (h != held_.end() && h->remainingCost > 0 && c.price > 0) {
      // markValue / remainingCost is the mark as a share of the contract's price, hour for hour.
      const double mark =
          static_cast<double>(h->markValue) / static_cast<double>(h->remainingCost) * static_cast<double>(c.price);
      price = (static_cast<Price>(mark) / cent) * cent;
      if (price > 0)
        source = tr("No bids for this shape on the grid: the contract's mark, %1.").arg(formatPrice(price));
    }
  }
  if (price == 0) {
    price = c.price;
    source = tr("No bids and no mark: the price the contract was bought at, %1.").arg(formatPrice(price));
  }
  setLimitText(price);
  limitTouched_ = true;  // offered once; the book moving on does not rewrite it
  proposeLimit_ = false;
  limitSource_->setText(source);
  form_->setRowVisible(limitSource_, true);
}

void OrderTicket::updateVisibility() {
  const TicketKind k = kind();
  const bool option = k == TicketKind::Option;
  showTradingMode();
  form_->setRowVisible(options_, option);
  // An option order has none of the capacity rows.
  for (QWidget* row : std::initializer_list<QWidget*>{tradingMode_, gpusRow_, startRow_, endRow_, limitRow_, tif_,
                                                      postOnly_, capacity_})
    form_->setRowVisible(row, !option);
  quote_->setVisible(!option);
  form_->setRowVisible(cluster_, k != TicketKind::ConstraintBuy && !option);
  cluster_->setEnabled(k != TicketKind::SellBack);
  form_->setRowVisible(contract_, k == TicketKind::SellBack);
  form_->setRowVisible(constraints_, k == TicketKind::ConstraintBuy);
  form_->setRowVisible(durationRow_, k == TicketKind::FlexibleBuy || k == TicketKind::ConstraintBuy);
  form_->setRowVisible(expire_, !option && static_cast<TimeInForce>(tif_->currentData().toInt()) == TimeInForce::GTD);
  // A new listing states its terms; a sell-back passes on those of the contract it resells.
  form_->setRowVisible(terms_, k == TicketKind::DivisibleSell);
  form_->setRowVisible(onFill_, onFillAvailable_ && isBuy(k));
  capacity_->setEnabled(k != TicketKind::SellBack);
  form_->setRowVisible(checkpointRow_,
                       interruptibleChosen() && (k == TicketKind::AllOrNoneBuy || k == TicketKind::FlexibleBuy ||
                                                 k == TicketKind::ConstraintBuy));
  form_->setRowVisible(askTerms_, k != TicketKind::DivisibleSell && k != TicketKind::SellBack && !option);
  if (k != TicketKind::SellBack) form_->setRowVisible(limitSource_, false);
}

std::variant<OrderRequest, QString> OrderTicket::order() const {
  OrderRequest o;
  const TicketKind k = kind();
  // Every value is read exactly as shown; the first field that cannot be sent is the reason.
  const auto g = parseWholeNumber(gpus_->text(), tr("GPUs"), 1, maxGpus());
  if (const QString* why = std::get_if<QString>(&g)) return tr("GPUs: %1").arg(*why);
  o.gpus = static_cast<GpuCount>(std::get<std::int64_t>(g));
  o.start = start();
  o.end = end();
  const auto l = parseLimitPrice(limit_->text());
  if (const QString* why = std::get_if<QString>(&l)) return tr("Limit: %1").arg(*why);
  o.limit = std::get<Price>(l);
  o.tif = static_cast<TimeInForce>(tif_->currentData().toInt());
  o.postOnly = postOnly_->isChecked();
  if (o.tif == TimeInForce::GTD) {
    o.expireAt = hourOfDateTime(expire_->dateTime());
    if (*o.expireAt <= now_)
      return tr("Expires: the expiry must be after the exchange time (%1 UTC).").arg(formatHour(now_));
  }
  if (o.start < now_) return tr("Start: the start has been delivered (exchange time %1 UTC).").arg(formatHour(now_));
  if (o.end <= o.start) return tr("End: the end must be after the start.");
  if (o.end - o.start > limits::kMaxWindowHours) return tr("End: the window is longer than the exchange allows.");
  if (k != TicketKind::ConstraintBuy) {
    if (cluster_->currentIndex() < 0) return tr("Choose a cluster.");
    o.cluster = clusterId();
  }
  o.interruptible = interruptibleChosen();
  if (const Cluster* c = chosenCluster(); c && k != TicketKind::ConstraintBuy) {
    // A sell-back resells the contract's own kind of capacity.
    if (k == TicketKind::SellBack) o.interruptible = c->interruptible();
    if (c->interruptible() != o.interruptible)
      return c->interruptible() ? tr("Capacity: %1 is interruptible capacity; choose Interruptible or a firm cluster.")
                                      .arg(QString::fromStdString(c->name))
                                : tr("Capacity: %1 is firm capacity; choose Firm or an interruptible cluster.")
                                      .arg(QString::fromStdString(c->name));
  }
  if (o.interruptible &&
      (k == TicketKind::AllOrNoneBuy || k == TicketKind::FlexibleBuy || k == TicketKind::ConstraintBuy)) {
    const auto every = parseWholeNumber(checkpoint_->text(), tr("hours"), 1, limits::kMaxWindowHours);
    if (const QString* why = std::get_if<QString>(&every)) return tr("Checkpoint every: %1").arg(*why);
    o.checkpointHours = static_cast<Hour>(std::get<std::int64_t>(every));
  }
  auto duration = [&]() -> std::variant<Hour, QString> {
    const auto d = parseWholeNumber(duration_->text(), tr("hours"), 1, limits::kMaxWindowHours);
    if (const QString* why = std::get_if<QString>(&d)) return tr("Duration: %1").arg(*why);
    if (std::get<std::int64_t>(d) > o.end - o.start) return tr("Duration: longer than the window.");
    return static_cast<Hour>(std::get<std::int64_t>(d));
  };
  switch (k) {
    case TicketKind::Option:
      // An option is no capacity order: OptionTicketForm::order() reads it.
      return tr("This is an option ticket.");
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
    case TicketKind::FlexibleBuy: {
      o.side = Side::Buy;
      o.fill = FillStyle::AllOrNone;
      const auto d = duration();
      if (const QString* why = std::get_if<QString>(&d)) return *why;
      o.duration = std::get<Hour>(d);
      break;
    }
    case TicketKind::ConstraintBuy: {
      o.side = Side::Buy;
      o.fill = FillStyle::AllOrNone;
      ClusterConstraints c;
      for (int i = 0; i < accelerators_->count(); ++i) {
        const auto* item = accelerators_->item(i);
        if (item->checkState() == Qt::Checked)
          c.accelerators.push_back(static_cast<Accelerator>(item->data(Qt::UserRole).toInt()));
      }
      c.minGpuMemoryGb = minMemory_->value();
      for (const QString& r : regions_->text().split(',', Qt::SkipEmptyParts)) {
        if (!r.trimmed().isEmpty()) c.regions.push_back(r.trimmed().toStdString());
      }
      if (minFabric_->currentData().toInt() >= 0)
        c.minFabric = static_cast<FabricClass>(minFabric_->currentData().toInt());
      if (maxCarbon_->value() > 0) c.maxCarbonGramsPerKwh = maxCarbon_->value();
      c.acceptsInterruptible = o.interruptible;
      o.constraints = c;
      const auto d = duration();
      if (const QString* why = std::get_if<QString>(&d)) return *why;
      if (std::get<Hour>(d) < o.end - o.start) o.duration = std::get<Hour>(d);
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
  if (planApplies()) o.costFactors = plan_->costFactors;
  return o;
}

std::optional<FillQuote> OrderTicket::quote() const {
  const auto o = order();
  if (!std::holds_alternative<OrderRequest>(o)) return std::nullopt;
  const OrderRequest& r = std::get<OrderRequest>(o);
  // The grid's snapshot quotes a named cluster it shows alone; anything else comes from the
  // market's own book (bookQuote_), for exactly this order.
  if (book_ && r.cluster && book_->clusters.size() == 1 && book_->clusters.front() == *r.cluster) {
    const bool divisible = r.fill == FillStyle::Divisible;
    return quoteFill(*book_, r.side, r.gpus, r.start, r.end, r.duration,
                     divisible ? std::optional<Price>(r.limit) : std::nullopt);
  }
  if (bookQuote_ && bookQuote_->order == r) return bookQuote_->quote;
  return std::nullopt;
}

QString OrderTicket::describeQuote(const OrderRequest& r, const FillQuote& q, const QString& where) const {
  const QString good = QStringLiteral("<span style='color:#3a3'>%1</span>");
  const QString bad = QStringLiteral("<span style='color:#e5484d'>%1</span>");
  QString t;
  if (r.side == Side::Sell) {
    // A sell hits bids at or above its limit; the rest rests as an ask.
    if (q.availableGpuHours == 0) {
      t = tr("No bids at or above your %1 limit now: the whole order would rest as an ask%2.")
              .arg(formatPrice(r.limit), where);
    } else {
      t = good.arg(tr("Would sell %1 of %2 GPU-hours now for <b>%3</b> (average %4/GPU-h)%5.")
                       .arg(formatCount(q.availableGpuHours), formatCount(q.wantedGpuHours), formatMoney(q.total),
                            formatPrice(static_cast<Price>(std::llround(*q.averagePrice()))), where));
      if (q.availableGpuHours < q.wantedGpuHours)
        t += tr(" The other %1 GPU-hours would rest as an ask.")
                 .arg(formatCount(q.wantedGpuHours - q.availableGpuHours));
    }
  } else if (r.fill == FillStyle::Divisible) {
    if (q.availableGpuHours == 0) {
      t = tr("Nothing offered at or below your %1 limit now: the whole order would rest as a bid%2.")
              .arg(formatPrice(r.limit), where);
    } else {
      t = good.arg(tr("Would buy %1 of %2 GPU-hours now for <b>%3</b> (average %4/GPU-h)%5.")
                       .arg(formatCount(q.availableGpuHours), formatCount(q.wantedGpuHours), formatMoney(q.total),
                            formatPrice(static_cast<Price>(std::llround(*q.averagePrice()))), where));
      if (q.availableGpuHours < q.wantedGpuHours)
        t +=
            tr(" The other %1 GPU-hours would rest as a bid.").arg(formatCount(q.wantedGpuHours - q.availableGpuHours));
    }
  } else {
    // All-or-none: every GPU of every hour, with the limit bounding the average price.
    const bool all = q.allOrNoneNow && q.availableGpuHours == q.wantedGpuHours;
    const std::optional<double> avg = q.averagePrice();
    const QString window = r.duration ? tr(" in %1 to %2").arg(formatHour(q.start), formatHour(q.end)) : QString();
    if (all && avg && *avg <= static_cast<double>(r.limit)) {
      t = good.arg(tr("Can fill all-or-none now%1%2: <b>%3</b>, average %4/GPU-h, within your %5 limit.")
                       .arg(window, where, formatMoney(q.total), formatPrice(static_cast<Price>(std::ceil(*avg))),
                            formatPrice(r.limit)));
    } else if (all && avg) {
      t = bad.arg(
          tr("Cannot fill now: the whole rectangle%1%2 averages %3/GPU-h, above your %4 limit. It would rest as a bid.")
              .arg(window, where, formatPrice(static_cast<Price>(std::ceil(*avg))), formatPrice(r.limit)));
    } else {
      t = bad.arg(tr("Cannot fill all-or-none now: %1 of the %2 GPU-hours are offered%3%4. It would rest as a bid.")
                      .arg(formatCount(q.availableGpuHours), formatCount(q.wantedGpuHours), window, where));
    }
  }
  if (r.tif == TimeInForce::IOC) t += tr("<br>IOC: whatever does not trade at once is cancelled.");
  if (r.tif == TimeInForce::FOK) t += tr("<br>FOK: unless it fills completely at once, nothing trades.");
  if (r.postOnly && q.availableGpuHours > 0)
    t += bad.arg(tr("<br>Post only: it would trade now, so the exchange would reject it."));
  if (!q.complete) t += tr("<br><i>Part of the window is beyond the hours the book shows.</i>");
  return t;
}

QString OrderTicket::quoteText() const {
  const auto o = order();
  if (const QString* why = std::get_if<QString>(&o))
    return QStringLiteral("<b style='color:#e5484d'>%1</b>").arg(tr("Not ready to send: %1").arg(why->toHtmlEscaped()));
  const OrderRequest& r = std::get<OrderRequest>(o);
  QString t = describeOrder(r, [this](ClusterId id) {
                for (const Cluster& c : clusters_)
                  if (c.id == id) return QString::fromStdString(c.name);
                return tr("cluster %1").arg(id);
              }).toHtmlEscaped();
  t += QStringLiteral("<br>");
  const bool fromGrid = book_ && r.cluster && book_->clusters.size() == 1 && book_->clusters.front() == *r.cluster;
  if (fromGrid) return t + describeQuote(r, *quote(), QString());
  if (bookQuote_ && bookQuote_->order == r) {
    if (!bookQuote_->quote) {
      if (r.constraints)
        return t + tr("<span style='color:#e5484d'>No cluster matches the constraints (%1 looked at).</span>")
                       .arg(bookQuote_->candidates);
      return t + tr("<i>Cannot quote this window (longer than %1 days).</i>").arg(kMaxQuotedHours / 24);
    }
    QString where;
    if (r.constraints) {
      QString name = tr("cluster %1").arg(bookQuote_->cluster);
      for (const Cluster& c : clusters_)
        if (c.id == bookQuote_->cluster) name = QString::fromStdString(c.name);
      where = tr(" on %1 (best of %2 matching clusters)").arg(name.toHtmlEscaped()).arg(bookQuote_->candidates);
    }
    return t + describeQuote(r, *bookQuote_->quote, where);
  }
  if (!bookReader_) return t + tr("<i>No quote: show this cluster alone on the grid to quote it.</i>");
  return t + tr("<i>Quoting from the book...</i>");
}

void OrderTicket::requestBookQuote() {
  if (!bookReader_) return;
  const auto o = order();
  if (!std::holds_alternative<OrderRequest>(o)) return;
  const OrderRequest r = std::get<OrderRequest>(o);
  if (bookQuote_ && bookQuote_->order == r && bookQuoteAsked_ && *bookQuoteAsked_ == r) return;
  bookQuoteAsked_ = r;
  QPointer<OrderTicket> self(this);
  bookReader_([self, r](const Matcher& m) {
    BookQuote out;
    out.order = r;
    if (r.end - r.start <= kMaxQuotedHours) {
      for (const Cluster& c : m.clusters()) {
        if (r.cluster ? c.id != *r.cluster : !(r.constraints && r.constraints->matches(c) && c.totalGpus() >= r.gpus))
          continue;
        ++out.candidates;
        BookSnapshot snap;
        snap.clusters = {c.id};
        snap.firstHour = r.start;
        snap.cells.resize(static_cast<std::size_t>(r.end - r.start));
        const Side against = r.side == Side::Buy ? Side::Sell : Side::Buy;
        for (Hour h = r.start; h < r.end; ++h) {
          auto& cell = snap.cells[static_cast<std::size_t>(h - r.start)];
          (against == Side::Sell ? cell.asks : cell.bids) = m.depth(c.id, h, against, 64);
        }
        const bool divisible = r.fill == FillStyle::Divisible;
        FillQuote q = quoteFill(snap, r.side, r.gpus, r.start, r.end, r.duration,
                                divisible ? std::optional<Price>(r.limit) : std::nullopt);
        // The cheapest fully fillable placement wins; else the one with the most available.
        auto better = [&](const FillQuote& a, const FillQuote& b) {
          if (a.allOrNoneNow != b.allOrNoneNow) return a.allOrNoneNow;
          if (a.availableGpuHours != b.availableGpuHours) return a.availableGpuHours > b.availableGpuHours;
          return a.total < b.total;
        };
        if (!out.quote || better(q, *out.quote)) {
          out.quote = q;
          out.cluster = c.id;
        }
      }
    }
    QMetaObject::invokeMethod(
        self.data(),
        [self, out] {
          if (!self) return;
          self->bookQuote_ = out;
          // The limit offered for a ticket just opened, once the market has quoted it.
          if (self->proposeLimit_ && !self->limitTouched_) self->refreshQuote();
          self->quote_->setText(self->quoteText());
          emit self->quoteChanged();
        },
        Qt::QueuedConnection);
  });
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
    if (it == groups.end())
      groups.emplace_back(t, 1);
    else
      ++it->second;
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
  if (kind() == TicketKind::Option) {
    validate();
    emit quoteChanged();
    return;
  }
  if (!limitTouched_ && proposeLimit_) {
    // Until the trader types a limit, offer the one that would fill now (shown, and sent as shown).
    if (const auto q = quote(); q && q->availableGpuHours > 0) {
      const Price cent = kMicrosPerDollar / 100;
      const bool aon = kind() == TicketKind::AllOrNoneBuy || kind() == TicketKind::FlexibleBuy ||
                       kind() == TicketKind::ConstraintBuy;
      const Price p = aon ? static_cast<Price>(std::ceil(*q->averagePrice())) : q->worstPrice;
      const bool buy = kind() != TicketKind::DivisibleSell && kind() != TicketKind::SellBack;
      const Price rounded = buy ? ((p + cent - 1) / cent) * cent : (p / cent) * cent;
      if (rounded > 0 && rounded != parsedLimit()) setLimitText(rounded);
      proposeLimit_ = false;
    }
  }
  validate();
  quote_->setText(quoteText());
  if (kind() != TicketKind::DivisibleSell && kind() != TicketKind::SellBack) askTerms_->setText(askTermsText());
  const auto o = order();
  const bool fromGrid = std::holds_alternative<OrderRequest>(o) && book_ && std::get<OrderRequest>(o).cluster &&
                        book_->clusters.size() == 1 && book_->clusters.front() == *std::get<OrderRequest>(o).cluster;
  if (!fromGrid && bookReader_ && std::holds_alternative<OrderRequest>(o) &&
      !(bookQuote_ && bookQuote_->order == std::get<OrderRequest>(o)) && !bookQuoteTimer_->isActive())
    bookQuoteTimer_->start();
  emit quoteChanged();
}

void OrderTicket::refuse(const QString& why) {
  // The reason is already shown next to the field; say it once more where the eye is.
  status_->setText(tr("Not sent. %1").arg(why));
  status_->show();
  notSentWhy_ = why;
  emit invalidOrder(why);
}

void OrderTicket::forgetNotSent(const QString* why) {
  // "Not sent" stays only while the reason it gives is still the ticket's problem.
  if (notSentWhy_.isEmpty() || (why && *why == notSentWhy_)) return;
  notSentWhy_.clear();
  status_->hide();
}

void OrderTicket::submit() {
  if (kind() == TicketKind::Option) return submitOption();
  validate();
  if (sentContent_) {
    // The same ticket again: nothing new is sent (Enter pressed twice, Submit clicked twice).
    status_->setText(tr("Already sent%1. Change any field to send another order.")
                         .arg(shownId_ ? tr(" as order #%1").arg(shownId_) : QString()));
    status_->show();
    return;
  }
  const auto o = order();
  if (const QString* why = std::get_if<QString>(&o)) return refuse(*why);
  OrderRequest r = std::get<OrderRequest>(o);
  const std::int64_t gpuHours = static_cast<std::int64_t>(r.gpus) * r.hours();
  if (gpuHours > confirmAbove_) {
    const QString full = describeOrder(r, [this](ClusterId id) {
      for (const Cluster& c : clusters_)
        if (c.id == id) return QString::fromStdString(c.name);
      return tr("cluster %1").arg(id);
    });
    const auto answer = QMessageBox::question(this, tr("Confirm large order"), tr("Send this order?\n\n%1").arg(full));
    if (answer != QMessageBox::Yes) return;
  }
  if (kind() == TicketKind::DivisibleSell) {
    QSettings s;
    terms_->save(s);  // the next listing starts from these terms
  }
  // The client order id is fixed with the content: the same ticket cannot become two orders.
  sentContent_ = r;
  limitTouched_ = true;  // the book moving on does not rewrite the limit of a sent ticket
  sentId_ = r.id = newOrderId_ ? newOrderId_() : 0;
  shownId_ = 0;
  submit_->setEnabled(false);
  status_->setText(tr("Sent; waiting for the exchange. Change any field to send another order."));
  status_->show();
  emit submitRequested(r);
}

void OrderTicket::setOnFillAvailable(bool available) {
  onFillAvailable_ = available;
  updateVisibility();
}

QString OrderTicket::onFillCommand() const {
  return onFillAvailable_ && isBuy(kind()) ? onFill_->text().trimmed() : QString();
}

void OrderTicket::cancel() {
  limitTouched_ = false;
  emit cancelled();
}

}  // namespace tessera::ui
