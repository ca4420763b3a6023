#pragma once
// How the planner views write numbers for people, one way for the table, the charts, the maps
// and the editor: bandwidth with a unit chosen for its size ("1.8 TB/s", "400 GB/s"), counts
// with their noun ("1 node", "16 nodes"), delivery hours as UTC dates, durations in days and
// hours ("13 d 4 h"), dollars as the exchange writes them (core/settlement's toDollars:
// "$1,234,567.89"), hourly rates to a tenth of a cent ("$2.413"), FLOPs with an SI prefix
// ("3.1 PFLOP/s").
#include "core/domain/Types.h"

#include <QString>

namespace tessera::planner {

QString bandwidthText(double gbytesPerSec);
QString countText(long long n, const char* one, const char* many);
QString hourText(Hour h);                    // "Tue 06 Jan 14:00 UTC"
QString moneyText(double dollars);           // "$2,160,412.50", "-$12.00"
QString rateText(double dollarsPerGpuHour);  // "$2.413" (an average ask keeps its tenth of a cent)
QString durationText(double hours);          // "13 d 4 h", "14 d", "20 h"
QString flopsText(double flops);             // "360 PFLOP", "3.6 EFLOP"

}  // namespace tessera::planner
