#include "ui/shell/TermsFormat.h"

#include "ui/shell/DisplayFormat.h"

#include <QCoreApplication>
#include <QStringList>

namespace tessera::ui {
namespace {

QString tr(const char* s) { return QCoreApplication::translate("TermsFormat", s); }

}  // namespace

QString guaranteesText(const OfferTerms& t) {
  QStringList g;
  if (t.guaranteesDeviceCount) g << tr("devices");
  if (t.guaranteesLocation) g << tr("location");
  if (t.guaranteesFabric) g << tr("fabric");
  return tr("guaranteed: %1").arg(g.isEmpty() ? tr("nothing") : g.join(QStringLiteral(", ")));
}

QString remedyText(const OfferTerms& t) {
  const QString credit = t.creditPerUndeliveredGpuHour > 0
                             ? tr("credit %1/GPU-h").arg(formatPrice(t.creditPerUndeliveredGpuHour))
                             : tr("no credit");
  if (t.remedy == Remedy::Replacement) {
    // The exchange falls back to the credit when the provider has no capacity to give.
    return tr("remedy: replacement within %1 h, else %2").arg(t.replacementWithinHours).arg(credit);
  }
  return tr("remedy: %1").arg(credit);
}

QString billingLabel(BillingBasis b) {
  switch (b) {
    case BillingBasis::CommittedBlock: return tr("committed block");
    case BillingBasis::WallClockDelivered: return tr("wall-clock delivered");
    case BillingBasis::SuccessfulWork: return tr("successful work");
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
  if (t.estimatedTflopsPerGpu) parts << tr("est. %1 TFLOPS/GPU").arg(*t.estimatedTflopsPerGpu);
  parts << tr("billed: %1").arg(billingLabel(t.billing));
  parts << tr("uptime %1").arg(uptimePercentText(t.uptimePromisePpm));
  parts << remedyText(t);
  return parts.join(QStringLiteral(" \u00b7 "));
}

}  // namespace tessera::ui
