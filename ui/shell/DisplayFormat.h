#pragma once
// How the terminal writes prices, money, hours and cluster facts for people.
#include "core/domain/Cluster.h"
#include "core/domain/Types.h"

#include <QDateTime>
#include <QString>

namespace tessera::ui {

QString formatPrice(Price p);             // "$2.41"
QString formatMoney(Money m);             // "$1,234,567.89", "-$12.00"
QString formatCount(std::int64_t n);      // GPUs, GPU-hours, orders: "1,234,567"
QString formatHour(Hour h);               // "Wed 02 Dec 14:00"
QString formatHourShort(Hour h);          // "14:00"
QString formatDay(Hour h);                // "Wed 02 Dec"
QDateTime dateTimeOfHour(Hour h);         // UTC
Hour hourOfDateTime(const QDateTime& t);  // floor to the hour
Hour currentWallClockHour();
QString toQString(std::string_view s);
Price priceFromDollars(double dollars);  // rounded to the micro-dollar
double dollars(Money m);
// When the next call of the call mode is: "in 4 min 07 s" (a periodic call, `nextCallUnix` in
// Unix seconds), else "at the next exchange hour".
QString formatNextCall(std::int64_t nextCallUnix, int periodSeconds);

}  // namespace tessera::ui
