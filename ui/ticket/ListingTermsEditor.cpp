#include "ui/ticket/ListingTermsEditor.h"

#include "ui/shell/DisplayFormat.h"

#include "core/engine/MarketLimits.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>

#include <cmath>

namespace tessera::ui {
namespace {

constexpr int kMaxTflops = 1'000'000;
constexpr int kMaxReplacementHours = 24 * 30;

}  // namespace

OfferTerms ListingTermsEditor::defaults() {
  OfferTerms t;
  // A credit remedy at zero would promise nothing; start from a small credit instead.
  t.creditPerUndeliveredGpuHour = priceFromDollars(0.25);
  return t;
}

ListingTermsEditor::ListingTermsEditor(QWidget* parent) : QGroupBox(tr("Listing terms"), parent) {
  setObjectName("listingTerms");
  form_ = new QFormLayout(this);
  auto* guaranteed = new QWidget(this);
  auto* gl = new QHBoxLayout(guaranteed);
  gl->setContentsMargins(0, 0, 0, 0);
  devices_ = new QCheckBox(tr("Devices"), guaranteed);
  location_ = new QCheckBox(tr("Location"), guaranteed);
  fabric_ = new QCheckBox(tr("Fabric"), guaranteed);
  for (QCheckBox* b : {devices_, location_, fabric_}) gl->addWidget(b);
  gl->addStretch();
  guaranteed->setToolTip(
      tr("Guaranteed facts (device count, location, fabric): a shortfall in any of them is a\n"
         "breach and earns the remedy."));
  form_->addRow(tr("Guaranteed"), guaranteed);

  tflops_ = new QLineEdit(this);
  tflops_->setObjectName("termsTflops");
  tflops_->setPlaceholderText(tr("not stated"));
  tflops_->setToolTip(tr("Benchmark throughput per GPU. An estimate only: never grounds for a remedy."));
  form_->addRow(tr("Est. TFLOPS/GPU"), tflops_);

  billing_ = new QComboBox(this);
  billing_->setObjectName("termsBilling");
  billing_->addItem(tr("Wall-clock delivered"), static_cast<int>(BillingBasis::WallClockDelivered));
  billing_->setItemData(0, tr("The buyer pays for the GPU-hours delivered; the rest is refunded."), Qt::ToolTipRole);
  billing_->addItem(tr("Committed block"), static_cast<int>(BillingBasis::CommittedBlock));
  billing_->setItemData(1, tr("The buyer pays every contracted hour; a missed promise earns the remedy."),
                        Qt::ToolTipRole);
  billing_->addItem(tr("Successful work"), static_cast<int>(BillingBasis::SuccessfulWork));
  billing_->setItemData(2, tr("As delivered, and hours with a degraded link or power count as not delivered."),
                        Qt::ToolTipRole);
  form_->addRow(tr("Billing"), billing_);

  uptime_ = new QDoubleSpinBox(this);
  uptime_->setObjectName("termsUptime");
  uptime_->setRange(0, 100);
  uptime_->setDecimals(2);
  uptime_->setSingleStep(0.1);
  uptime_->setSuffix(QStringLiteral(" %"));
  uptime_->setToolTip(tr("Share of the contracted GPU-hours promised to be delivered."));
  form_->addRow(tr("Uptime promise"), uptime_);

  remedy_ = new QComboBox(this);
  remedy_->setObjectName("termsRemedy");
  remedy_->addItem(tr("Credit"), static_cast<int>(Remedy::Credit));
  remedy_->setItemData(0, tr("A credit for every GPU-hour not delivered, at the rate below."), Qt::ToolTipRole);
  remedy_->addItem(tr("Replacement"), static_cast<int>(Remedy::Replacement));
  remedy_->setItemData(
      1, tr("The same GPUs on an equal-or-better cluster within the time below; the credit if there are none."),
      Qt::ToolTipRole);
  form_->addRow(tr("Remedy"), remedy_);

  credit_ = new QDoubleSpinBox(this);
  credit_->setObjectName("termsCredit");
  credit_->setRange(0, dollars(limits::kMaxPrice));  // what the exchange accepts
  credit_->setDecimals(2);
  credit_->setPrefix(QStringLiteral("$"));
  credit_->setSuffix(tr(" /GPU-h"));
  credit_->setToolTip(tr("Paid to the buyer for every undelivered GPU-hour when the uptime promise is missed."));
  form_->addRow(tr("Credit"), credit_);

  replaceWithin_ = new QSpinBox(this);
  replaceWithin_->setObjectName("termsReplaceWithin");
  replaceWithin_->setRange(1, kMaxReplacementHours);
  replaceWithin_->setSuffix(tr(" h"));
  form_->addRow(tr("Replace within"), replaceWithin_);

  setTerms(defaults());
  for (QCheckBox* b : {devices_, location_, fabric_})
    connect(b, &QCheckBox::toggled, this, &ListingTermsEditor::changed);
  connect(tflops_, &QLineEdit::textChanged, this, &ListingTermsEditor::changed);
  connect(billing_, &QComboBox::currentIndexChanged, this, &ListingTermsEditor::changed);
  connect(uptime_, &QDoubleSpinBox::valueChanged, this, &ListingTermsEditor::changed);
  connect(remedy_, &QComboBox::currentIndexChanged, this, [this] {
    updateRemedyRows();
    emit changed();
  });
  connect(credit_, &QDoubleSpinBox::valueChanged, this, &ListingTermsEditor::changed);
  connect(replaceWithin_, &QSpinBox::valueChanged, this, &ListingTermsEditor::changed);
}

void ListingTermsEditor::updateRemedyRows() {
  const bool replacement = static_cast<Remedy>(remedy_->currentData().toInt()) == Remedy::Replacement;
  form_->setRowVisible(replaceWithin_, replacement);
  // With replacement the credit still applies when the provider has nothing to give.
  if (auto* label = qobject_cast<QLabel*>(form_->labelForField(credit_)))
    label->setText(replacement ? tr("Fallback credit") : tr("Credit"));
}

std::variant<OfferTerms, QString> ListingTermsEditor::terms(Hour windowHours) const {
  OfferTerms t;
  t.guaranteesDeviceCount = devices_->isChecked();
  t.guaranteesLocation = location_->isChecked();
  t.guaranteesFabric = fabric_->isChecked();
  const QString tf = tflops_->text().trimmed();
  if (!tf.isEmpty()) {
    bool ok = false;
    const int v = tf.toInt(&ok);
    if (!ok || v <= 0 || v > kMaxTflops)
      return tr("The estimated throughput must be a whole number of TFLOPS per GPU from 1 to %1, or empty "
                "if not stated (not '%2').")
          .arg(kMaxTflops)
          .arg(tf);
    t.estimatedTflopsPerGpu = v;
  }
  t.billing = static_cast<BillingBasis>(billing_->currentData().toInt());
  t.uptimePromisePpm = static_cast<int>(std::lround(uptime_->value() * 10'000));
  t.remedy = static_cast<Remedy>(remedy_->currentData().toInt());
  t.creditPerUndeliveredGpuHour = priceFromDollars(credit_->value());
  t.replacementWithinHours = replaceWithin_->value();
  if (t.remedy == Remedy::Credit && t.creditPerUndeliveredGpuHour == 0 && t.uptimePromisePpm > 0)
    return tr(
        "A credit remedy of $0.00 per undelivered GPU-hour gives the buyer nothing when the uptime "
        "promise is missed: set a credit, or choose replacement.");
  if (t.remedy == Remedy::Replacement && windowHours > 0 && t.replacementWithinHours >= windowHours)
    return tr("Replacement within %1 h cannot arrive before this %2 h listing ends: promise a shorter "
              "replacement time, or a credit.")
        .arg(t.replacementWithinHours)
        .arg(windowHours);
  return t;
}

void ListingTermsEditor::setTerms(const OfferTerms& t) {
  devices_->setChecked(t.guaranteesDeviceCount);
  location_->setChecked(t.guaranteesLocation);
  fabric_->setChecked(t.guaranteesFabric);
  tflops_->setText(t.estimatedTflopsPerGpu ? QString::number(*t.estimatedTflopsPerGpu) : QString());
  billing_->setCurrentIndex(std::max(0, billing_->findData(static_cast<int>(t.billing))));
  uptime_->setValue(t.uptimePromisePpm / 10'000.0);
  remedy_->setCurrentIndex(std::max(0, remedy_->findData(static_cast<int>(t.remedy))));
  credit_->setValue(dollars(t.creditPerUndeliveredGpuHour));
  replaceWithin_->setValue(std::clamp(t.replacementWithinHours, 1, kMaxReplacementHours));
  updateRemedyRows();
}

void ListingTermsEditor::save(QSettings& s) const {
  const auto t = terms(0);
  if (!std::holds_alternative<OfferTerms>(t)) return;  // only terms that could be sent
  const OfferTerms& x = std::get<OfferTerms>(t);
  s.beginGroup(QStringLiteral("ticket/terms"));
  s.setValue("devices", x.guaranteesDeviceCount);
  s.setValue("location", x.guaranteesLocation);
  s.setValue("fabric", x.guaranteesFabric);
  s.setValue("tflops", x.estimatedTflopsPerGpu.value_or(0));
  s.setValue("billing", toQString(toString(x.billing)));
  s.setValue("uptimePpm", x.uptimePromisePpm);
  s.setValue("remedy", toQString(toString(x.remedy)));
  s.setValue("creditMicros", QVariant::fromValue<qlonglong>(x.creditPerUndeliveredGpuHour));
  s.setValue("replaceWithinHours", x.replacementWithinHours);
  s.endGroup();
}

void ListingTermsEditor::load(const QSettings& s) {
  const QString g = QStringLiteral("ticket/terms/");
  if (!s.contains(g + "billing")) return;
  const OfferTerms d = defaults();
  OfferTerms t;
  t.guaranteesDeviceCount = s.value(g + "devices", d.guaranteesDeviceCount).toBool();
  t.guaranteesLocation = s.value(g + "location", d.guaranteesLocation).toBool();
  t.guaranteesFabric = s.value(g + "fabric", d.guaranteesFabric).toBool();
  if (const int tf = s.value(g + "tflops", 0).toInt(); tf > 0) t.estimatedTflopsPerGpu = tf;
  // Anything unreadable (an older or hand-edited file) falls back to the default.
  t.billing = parseBillingBasis(s.value(g + "billing").toString().toStdString()).value_or(d.billing);
  t.uptimePromisePpm = std::clamp(s.value(g + "uptimePpm", d.uptimePromisePpm).toInt(), 0, 1'000'000);
  t.remedy = parseRemedy(s.value(g + "remedy").toString().toStdString()).value_or(d.remedy);
  t.creditPerUndeliveredGpuHour = std::max<qlonglong>(
      0, s.value(g + "creditMicros", QVariant::fromValue<qlonglong>(d.creditPerUndeliveredGpuHour)).toLongLong());
  t.replacementWithinHours = s.value(g + "replaceWithinHours", d.replacementWithinHours).toInt();
  setTerms(t);
}

}  // namespace tessera::ui
