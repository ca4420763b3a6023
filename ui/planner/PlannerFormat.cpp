#include "ui/planner/PlannerFormat.h"

#include "core/settlement/ContractSettlement.h"

#include <QDateTime>
#include <QLocale>

#include <algorithm>
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

QString moneyText(double dollars) {
  return QString::fromStdString(toDollars(static_cast<Money>(std::llround(dollars * kMicrosPerDollar))));
}

QString rateText(double dollarsPerGpuHour) {
  return (dollarsPerGpuHour < 0 ? "-$" : "$") + QString::number(std::abs(dollarsPerGpuHour), 'f', 3);
}

QString durationText(double hours) {
  const long long h = std::llround(std::max(0.0, hours));
  if (h < 24) return QString("%1 h").arg(h);
  return h % 24 == 0 ? QString("%1 d").arg(h / 24) : QString("%1 d %2 h").arg(h / 24).arg(h % 24);
}

QString flopsText(double flops) {
  static const char* const kPrefixes[] = {"", "k", "M", "G", "T", "P", "E", "Z"};
  int p = 0;
  while (std::abs(flops) >= 1000 && p < 7) {
    flops /= 1000;
    ++p;
  }
  return significant(flops) + " " + kPrefixes[p] + "FLOP";
}

}  // namespace tessera::planner
