#include "ui/shell/TermsFormat.h"

#include "ui/shell/DisplayFormat.h"

#include <QCoreApplication>
#include <QStringList>

namespace tessera::ui {
namespace {

// The texts' translation context (lupdate reads Q_DECLARE_TR_FUNCTIONS).
struct TermsFormatText {
  Q_DECLARE_TR_FUNCTIONS(TermsFormat)
};

}  // namespace

QString guaranteesText(const OfferTerms& t) {
  QStringList g;
  if (t.guaranteesDeviceCount) g << TermsFormatText::tr("devices");
  if (t.guaranteesLocation) g << TermsFormatText::tr("location");
  if (t.guaranteesFabric) g << TermsFormatText::tr("fabric");
  return TermsFormatText::tr("guaranteed: %1")
      .arg(g.isEmpty() ? TermsFormatText::tr("nothing") : g.join(QStringLiteral(", ")));
}

QString remedyText(const OfferTerms& t) {
  const QString credit = t.creditPerUndeliveredGpuHour > 0
                             ? TermsFormatText::tr("credit %1/GPU-h").arg(formatPrice(t.creditPerUndeliveredGpuHour))
                             : TermsFormatText::tr("no credit");
  if (t.remedy == Remedy::Replacement) {
    // The exchange falls back to the credit when the provider has no capacity to give.
    return TermsFormatText::tr("remedy: replacement within %1 h, else %2").arg(t.replacementWithinHours).arg(credit);
  }
  return TermsFormatText::tr("remedy: %1").arg(credit);
}

QString billingLabel(BillingBasis b) {
  switch (b) {
    case BillingBasis::CommittedBlock: return TermsFormatText::tr("committed block");
    case BillingBasis::WallClockDelivered: return TermsFormatText::tr("wall-clock delivered");
    case BillingBasis::SuccessfulWork: return TermsFormatText::tr("successful work");
  }
  return {};
}

QString uptimePercentText(int ppm) {
  // As many decimals as the promise has, at least one: 99.0%, 99.95%, 99.9999%.
  int decimals = 1;
  if (ppm % 1000 != 0) decimals = ppm % 100 == 0 ? 2 : 4;
  return QString::number(ppm / 10'000.0, 'f', decimals) + QLatin1Char('%');
}

QString describeTerms(const OfferTerms& t) {
  QStringList parts;
  parts << guaranteesText(t);
  if (t.estimatedTflopsPerGpu) parts << TermsFormatText::tr("est. %1 TFLOPS/GPU").arg(*t.estimatedTflopsPerGpu);
  parts << TermsFormatText::tr("billed: %1").arg(billingLabel(t.billing));
  parts << TermsFormatText::tr("uptime %1").arg(uptimePercentText(t.uptimePromisePpm));
  parts << remedyText(t);
  return parts.join(QStringLiteral(" \u00b7 "));
}

}  // namespace tessera::ui
