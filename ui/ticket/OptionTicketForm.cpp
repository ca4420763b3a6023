#include "ui/ticket/OptionTicketForm.h"

#include "ui/shell/DisplayFormat.h"
#include "ui/ticket/TicketInput.h"

#include "core/domain/HourText.h"
#include "core/options/OptionPricing.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>

#include <cmath>
#include <cstdlib>

namespace tessera::ui {
namespace {

using namespace tessera::indexoptions;

// The protocol's bounds on an option order (docs/protocol.md, "Options").
constexpr Price kMaxStrike = 100'000'000;   // $100.00 per GPU-hour
constexpr Price kMaxPremium = 100'000'000;  // $100.00 per GPU-hour
constexpr std::int64_t kMaxGpuHours = 1'000'000'000;

constexpr Accelerator kClasses[] = {Accelerator::H100, Accelerator::H200,  Accelerator::MI300X, Accelerator::A100,
                                    Accelerator::B200, Accelerator::GB200, Accelerator::L40S,   Accelerator::RTX4090};

// A price field's value in whole cents up to `max`, or the reason; `what` names the field.
std::variant<Price, QString> centsUpTo(const QString& text, Price max, const QString& what) {
  const auto p = parseLimitPrice(text);
  if (const QString* why = std::get_if<QString>(&p)) return *why;
  if (std::get<Price>(p) > max)
    return QObject::tr("The exchange takes a %1 of at most %2/GPU-h.").arg(what, formatPrice(max));
  return std::get<Price>(p);
}

QString percentText(double v) { return QString::number(v * 100, 'f', 1) + QStringLiteral("%"); }

QString impliedVolWhy(ImpliedVolError e) {
  switch (e) {
    case ImpliedVolError::BelowIntrinsic: return QObject::tr("is below the option's intrinsic value");
    case ImpliedVolError::AboveBound: return QObject::tr("is above what any volatility gives");
    case ImpliedVolError::NoTime:
      return QObject::tr("has no volatility: the period is in delivery or the class has no index yet");
    case ImpliedVolError::NotConverged: return QObject::tr("implies a volatility above 1,000%");
  }
  return {};
}

}  // namespace

OptionTicketForm::OptionTicketForm(QWidget* parent) : QWidget(parent) {
  setObjectName("optionTicket");
  auto* form = new QFormLayout(this);
  form->setContentsMargins(0, 0, 0, 0);
  accelerator_ = new QComboBox(this);
  accelerator_->setObjectName("optionClass");
  for (Accelerator a : kClasses) accelerator_->addItem(toQString(toString(a)), static_cast<int>(a));
  accelerator_->setToolTip(tr("The accelerator class whose price index the option is on"));
  form->addRow(tr("Cl&ass"), accelerator_);
  period_ = new QComboBox(this);
  period_->setObjectName("optionPeriod");
  form->addRow(tr("E&xpiry"), period_);
  kind_ = new QComboBox(this);
  kind_->setObjectName("optionKind");
  kind_->addItem(tr("Call: pays the average index above the strike"), static_cast<int>(OptionKind::Call));
  kind_->addItem(tr("Put: pays the strike above the average index"), static_cast<int>(OptionKind::Put));
  kind_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  kind_->setMinimumContentsLength(16);
  form->addRow(tr("Call/&put"), kind_);
  strike_ = new QLineEdit(QStringLiteral("2.00"), this);
  strike_->setObjectName("optionStrike");
  form->addRow(tr("St&rike"),
               fieldWithReason(this, strike_, &strikeError_, "optionStrikeError", QStringLiteral("$"), tr("/GPU-h")));
  side_ = new QComboBox(this);
  side_->setObjectName("optionSide");
  side_->addItem(tr("Buy: pay the premium"), static_cast<int>(Side::Buy));
  side_->addItem(tr("Write: receive the premium, post margin"), static_cast<int>(Side::Sell));
  side_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  side_->setMinimumContentsLength(16);
  form->addRow(tr("Si&de"), side_);
  gpuHours_ = new QLineEdit(QStringLiteral("1,000"), this);
  gpuHours_->setObjectName("optionGpuHours");
  gpuHours_->setToolTip(tr("Notional: the option pays its payoff per GPU-hour on this many GPU-hours"));
  form->addRow(tr("&Notional"),
               fieldWithReason(this, gpuHours_, &gpuHoursError_, "optionGpuHoursError", {}, tr("GPU-h")));
  premium_ = new QLineEdit(QStringLiteral("0.10"), this);
  premium_->setObjectName("optionPremium");
  premium_->setToolTip(tr("Limit premium: the most a buy pays, the least a write receives, per GPU-hour"));
  form->addRow(tr("Pre&mium"), fieldWithReason(this, premium_, &premiumError_, "optionPremiumError",
                                               QStringLiteral("$"), tr("/GPU-h")));
  reference_ = new QLabel(this);
  reference_->setObjectName("optionReference");
  reference_->setWordWrap(true);
  reference_->setFrameShape(QFrame::StyledPanel);
  reference_->setToolTip(
      tr("Reference value and delta: the exchange's Black-76 value of the option on the period's average "
         "index. Implied volatility: the volatility at which that value equals your premium."));
  form->addRow(reference_);

  connect(accelerator_, &QComboBox::currentIndexChanged, this, [this] {
    emit chainWanted(accelerator());
    validate();
    emit changed();
  });
  for (QComboBox* c : {period_, kind_, side_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] {
      validate();
      emit changed();
    });
  connect(strike_, &QLineEdit::textEdited, this, [this] { strikeChosen_ = true; });
  for (QComboBox* c : {accelerator_, period_})
    connect(c, &QComboBox::currentIndexChanged, this, [this] { offerStrike(); });
  for (QLineEdit* e : {strike_, gpuHours_, premium_})
    connect(e, &QLineEdit::textChanged, this, [this] {
      validate();
      emit changed();
    });
  setNow(currentWallClockHour());
}

Accelerator OptionTicketForm::accelerator() const {
  return static_cast<Accelerator>(accelerator_->currentData().toInt());
}

void OptionTicketForm::setNow(Hour now) {
  if (now == now_) return;
  now_ = now;
  fillPeriods();
}

void OptionTicketForm::fillPeriods() {
  // The periods listed at the exchange's hour; the chosen one stays while it is listed.
  const auto keep = period();
  const QSignalBlocker block(period_);
  period_->clear();
  for (const DeliveryPeriod& p : listedPeriods(now_)) {
    period_->addItem(QString::fromStdString(periodName(p)), QVariant::fromValue(p.start));
    period_->setItemData(period_->count() - 1, static_cast<int>(p.kind), Qt::UserRole + 1);
    period_->setItemData(
        period_->count() - 1,
        tr("Settles on the mean next-day index from %1 to %2 UTC")
            .arg(QString::fromStdString(isoHour(p.start)).left(10), QString::fromStdString(isoHour(p.end)).left(10)),
        Qt::ToolTipRole);
    if (keep && *keep == p) period_->setCurrentIndex(period_->count() - 1);
  }
  validate();
}

std::optional<DeliveryPeriod> OptionTicketForm::period() const {
  if (period_->currentIndex() < 0) return std::nullopt;
  return periodStarting(static_cast<PeriodKind>(period_->currentData(Qt::UserRole + 1).toInt()),
                        static_cast<Hour>(period_->currentData().toLongLong()));
}

std::optional<OptionSeries> OptionTicketForm::series() const {
  const auto p = period();
  const auto strike = centsUpTo(strike_->text(), kMaxStrike, tr("strike"));
  if (!p || !std::holds_alternative<Price>(strike)) return std::nullopt;
  return OptionSeries{accelerator(), static_cast<OptionKind>(kind_->currentData().toInt()), p->kind, p->start,
                      std::get<Price>(strike)};
}

void OptionTicketForm::setChain(const net::OptionChainView& chain) {
  chains_[chain.accelerator] = chain;
  if (chain.accelerator != accelerator()) return;
  offerStrike();
  validate();
}

void OptionTicketForm::offerStrike() {
  const auto chain = chains_.find(accelerator());
  const auto p = period();
  if (strikeChosen_ || chain == chains_.end() || !p) return;
  std::optional<Price> forward;
  for (const auto& cp : chain->second.periods)
    if (cp.period == *p) forward = cp.forward;
  if (!forward) return;
  std::optional<Price> nearest;
  for (const auto& r : chain->second.rows)
    if (r.series.periodKind == p->kind && r.series.start == p->start &&
        (!nearest || std::llabs(r.series.strike - *forward) < std::llabs(*nearest - *forward)))
      nearest = r.series.strike;
  if (nearest && limitText(*nearest) != strike_->text()) strike_->setText(limitText(*nearest));
}

void OptionTicketForm::prefill(const OptionSeries& s, Side side, std::optional<Price> premium) {
  accelerator_->setCurrentIndex(accelerator_->findData(static_cast<int>(s.accelerator)));
  for (int i = 0; i < period_->count(); ++i)
    if (period_->itemData(i).toLongLong() == s.start &&
        period_->itemData(i, Qt::UserRole + 1).toInt() == static_cast<int>(s.periodKind))
      period_->setCurrentIndex(i);
  kind_->setCurrentIndex(kind_->findData(static_cast<int>(s.kind)));
  strikeChosen_ = true;
  strike_->setText(limitText(s.strike));
  side_->setCurrentIndex(side_->findData(static_cast<int>(side)));
  if (premium) premium_->setText(limitText(std::max<Price>(*premium, kMicrosPerDollar / 100)));
  // The click chose everything but the quantity: the notional is where the trader types next,
  // and Enter there sends.
  gpuHours_->setFocus(Qt::OtherFocusReason);
  gpuHours_->selectAll();
  validate();
}

std::variant<net::OptionNewOrder, QString> OptionTicketForm::order() const {
  net::OptionNewOrder o;
  o.side = static_cast<Side>(side_->currentData().toInt());
  const auto p = period();
  if (!p) return tr("Expiry: choose a delivery period.");
  const auto strike = centsUpTo(strike_->text(), kMaxStrike, tr("strike"));
  if (const QString* why = std::get_if<QString>(&strike)) return tr("Strike: %1").arg(*why);
  const auto g = parseWholeNumber(gpuHours_->text(), tr("GPU-hours"), 1, kMaxGpuHours);
  if (const QString* why = std::get_if<QString>(&g)) return tr("Notional: %1").arg(*why);
  const auto premium = centsUpTo(premium_->text(), kMaxPremium, tr("premium"));
  if (const QString* why = std::get_if<QString>(&premium)) return tr("Premium: %1").arg(*why);
  o.series = OptionSeries{accelerator(), static_cast<OptionKind>(kind_->currentData().toInt()), p->kind, p->start,
                          std::get<Price>(strike)};
  o.gpuHours = std::get<std::int64_t>(g);
  o.premium = std::get<Price>(premium);
  return o;
}

void OptionTicketForm::validate() {
  auto reason = [](const auto& v) { return std::holds_alternative<QString>(v) ? std::get<QString>(v) : QString(); };
  showReason(strikeError_, strike_, reason(centsUpTo(strike_->text(), kMaxStrike, tr("strike"))));
  showReason(gpuHoursError_, gpuHours_, reason(parseWholeNumber(gpuHours_->text(), tr("GPU-hours"), 1, kMaxGpuHours)));
  showReason(premiumError_, premium_, reason(centsUpTo(premium_->text(), kMaxPremium, tr("premium"))));
  reference_->setText(referenceText());
}

QString OptionTicketForm::referenceText() const {
  const auto s = series();
  if (!s) return tr("Choose an expiry and a strike to see the option's reference value.");
  const auto chain = chains_.find(s->accelerator);
  if (chain == chains_.end())
    return tr("Waiting for the exchange's %1 option chain…").arg(toQString(toString(s->accelerator)));
  const net::OptionChainView& c = chain->second;
  std::optional<Price> forward;
  for (const auto& p : c.periods)
    if (p.period.kind == s->periodKind && p.period.start == s->start) forward = p.forward;
  if (!forward)
    return tr("%1 has no forward for %2 yet (no index or forward trade): no reference value.")
        .arg(toQString(toString(s->accelerator)), QString::fromStdString(periodName(s->period())));
  QStringList parts;
  const net::OptionChainRow* row = nullptr;
  for (const auto& r : c.rows)
    if (r.series == *s) row = &r;
  // The series' value on the chain's curve: the exchange's own pricing on the period's forward.
  IndexCurve curve;
  curve.terms = {TermPoint{0, static_cast<double>(*forward) / kMicrosPerDollar}};
  curve.volatility = c.volatility.value_or(kDefaultVolatility);
  const auto mine = referenceValue(*s, curve, c.asOf);
  // The exchange's own figures for a series on its chain; the same pricing here for any other.
  if (row && row->value)
    parts << tr("Reference value %1/GPU-h").arg(formatPrice(*row->value));
  else if (mine)
    parts << tr("Reference value %1/GPU-h").arg(formatPrice(mine->value));
  if (row && row->delta)
    parts << tr("delta %1").arg(QString::number(*row->delta, 'f', 2));
  else if (mine)
    parts << tr("delta %1").arg(QString::number(mine->greeks.delta, 'f', 2));
  parts << tr("forward %1, volatility %2").arg(formatPrice(*forward), percentText(curve.volatility));
  if (row && (row->bid || row->ask))
    parts << tr("book bid %1, ask %2")
                 .arg(row->bid ? formatPrice(*row->bid) : tr("none"), row->ask ? formatPrice(*row->ask) : tr("none"));
  else
    parts << tr("no orders in this series yet");
  const auto o = order();
  if (const auto* typed = std::get_if<net::OptionNewOrder>(&o)) {
    const auto iv = impliedVolatilityOf(*s, curve, c.asOf, typed->premium);
    if (const double* v = std::get_if<double>(&iv))
      parts << tr("your premium implies %1 volatility").arg(percentText(*v));
    else
      parts << tr("your premium %1").arg(impliedVolWhy(std::get<ImpliedVolError>(iv)));
    const Money total = typed->premium * typed->gpuHours;
    parts << (typed->side == Side::Buy
                  ? tr("you pay at most %1 in premium").arg(formatMoney(total))
                  : tr("you receive at least %1 in premium and post the scenario margin").arg(formatMoney(total)));
  }
  return parts.join(QStringLiteral(" · "));
}

}  // namespace tessera::ui
