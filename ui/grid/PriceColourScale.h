#pragma once
// Price per GPU-hour to colour: cheap is cool blue, dear is hot red.
#include "core/domain/Types.h"

#include <QColor>

namespace tessera::ui {

class PriceColourScale {
 public:
  void setRange(Price low, Price high);
  Price low() const { return low_; }
  Price high() const { return high_; }
  QColor colour(Price p) const;
  // 0..1 position of `p` in the range.
  double position(Price p) const;
  static QColor colourAt(double position);

 private:
  Price low_ = 0;
  Price high_ = 1;
};

}  // namespace tessera::ui
