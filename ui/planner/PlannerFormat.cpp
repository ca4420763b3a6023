#include "ui/planner/PlannerFormat.h"

#include "core/cost/CostReport.h"

#include <QDateTime>
#include <QLocale>

#include <cmath>

namespace tessera::planner {

namespace {
// Three significant figures without an exponent: 1.8, 25.6, 400.
QString significant(double v) {
  const double a = std::abs(v);
  const int decimals = a >= 100 ? 0 : a >= 10 ? 1 : 2;
  QString s = QString::number(v, 'f', decimals);
  if (s.contains('.')) {
    while (s.endsWith('0')) s.chop(1);
    if (s.endsWith('.')) s.chop(1);
  }
  return s;
}
}  // namespace

QString bandwidthText(double gbytesPerSec) {
  if (gbytesPerSec >= 1000) return significant(gbytesPerSec / 1000) + " TB/s";
  if (gbytesPerSec >= 1) return significant(gbytesPerSec) + " GB/s";
  return significant(gbytesPerSec * 1000) + " MB/s";
}

QString countText(long long n, const char* one, const char* many) {
  return QString::number(n) + " " + QString::fromUtf8(n == 1 ? one : many);
}

QString hourText(Hour h) {
  const QDateTime t = QDateTime::fromSecsSinceEpoch(h * 3600, Qt::UTC);
  return QLocale::c().toString(t, "ddd dd MMM HH:mm") + " UTC";
}

QString moneyText(double dollars) { return QString::fromStdString(cost::money(dollars)); }

}  // namespace tessera::planner
