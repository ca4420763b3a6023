#include "ui/shell/DisplayFormat.h"

#include "core/settlement/ContractSettlement.h"

#include <QLocale>
#include <QObject>
#include <QTimeZone>

#include <algorithm>
#include <cmath>

namespace tessera::ui {

double dollars(Money m) { return static_cast<double>(m) / static_cast<double>(kMicrosPerDollar); }

Price priceFromDollars(double d) { return static_cast<Price>(std::llround(d * kMicrosPerDollar)); }

QString formatPrice(Price p) {
  const QString s = QString::number(std::abs(dollars(p)), 'f', 2);
  return (p < 0 ? QStringLiteral("-$") : QStringLiteral("$")) + s;
}

QString formatMoney(Money m) { return QString::fromStdString(toDollars(m)); }

QString formatCount(std::int64_t n) {
  return QLocale(QLocale::English, QLocale::UnitedStates).toString(static_cast<qlonglong>(n));
}

QDateTime dateTimeOfHour(Hour h) { return QDateTime::fromSecsSinceEpoch(h * 3600, QTimeZone::utc()); }

Hour hourOfDateTime(const QDateTime& t) {
  const qint64 s = t.toSecsSinceEpoch();
  return static_cast<Hour>(s >= 0 ? s / 3600 : (s - 3599) / 3600);
}

Hour currentWallClockHour() { return hourOfDateTime(QDateTime::currentDateTimeUtc()); }

QString formatHour(Hour h) { return QLocale::c().toString(dateTimeOfHour(h), QStringLiteral("ddd dd MMM HH:00")); }
QString formatHourShort(Hour h) { return QLocale::c().toString(dateTimeOfHour(h), QStringLiteral("HH:00")); }
QString formatDay(Hour h) { return QLocale::c().toString(dateTimeOfHour(h), QStringLiteral("ddd dd MMM")); }

QString formatNextCall(std::int64_t nextCallUnix, int periodSeconds) {
  if (periodSeconds <= 0) return QObject::tr("at the next exchange hour");
  const qint64 left = std::max<qint64>(0, nextCallUnix - QDateTime::currentSecsSinceEpoch());
  return QObject::tr("in %1 min %2 s").arg(left / 60).arg(left % 60, 2, 10, QChar('0'));
}

QString toQString(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

}  // namespace tessera::ui
