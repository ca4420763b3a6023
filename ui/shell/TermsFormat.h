#pragma once
// How the terminal writes a listing's terms for people: one compact line for tooltips and the
// ticket ("guaranteed: devices, location, fabric · est. 989 TFLOPS · billed: wall-clock
// delivered · uptime 99.0% · remedy: credit $0.50/GPU-h"), and the labels of its parts.
#include "core/domain/OfferTerms.h"

#include <QString>

namespace tessera::ui {

QString describeTerms(const OfferTerms& t);
// "guaranteed: devices, location, fabric" / "guaranteed: nothing"
QString guaranteesText(const OfferTerms& t);
// "remedy: credit $0.50/GPU-h", "remedy: replacement within 4 h, else credit $0.50/GPU-h"
QString remedyText(const OfferTerms& t);
QString billingLabel(BillingBasis b);  // "wall-clock delivered"
QString uptimePercentText(int ppm);    // "99.0%", "99.95%"

}  // namespace tessera::ui
