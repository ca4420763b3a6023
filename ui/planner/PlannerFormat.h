#pragma once
// How the planner views write numbers for people: bandwidth with a unit chosen for its size
// ("1.8 TB/s", "400 GB/s"), counts with their noun ("1 node", "16 nodes"), delivery hours as
// UTC dates, dollars as the cost model's reports write them (cost::money).
#include "core/domain/Types.h"

#include <QString>

namespace tessera::planner {

QString bandwidthText(double gbytesPerSec);
QString countText(long long n, const char* one, const char* many);
QString hourText(Hour h);           // "Tue 06 Jan 14:00 UTC"
QString moneyText(double dollars);  // "$2.160M", "$12.3k", "$840.00"

}  // namespace tessera::planner
