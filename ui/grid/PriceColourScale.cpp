#include "ui/grid/PriceColourScale.h"

#include <algorithm>
#include <array>

namespace tessera::ui {

void PriceColourScale::setRange(Price low, Price high) {
  low_ = low;
  high_ = std::max(high, low + 1);
}

double PriceColourScale::position(Price p) const {
  return std::clamp(static_cast<double>(p - low_) / static_cast<double>(high_ - low_), 0.0, 1.0);
}

QColor PriceColourScale::colour(Price p) const { return colourAt(position(p)); }

QColor PriceColourScale::colourAt(double t) {
  // A perceptually ordered ramp that stays readable on dark and light backgrounds.
  struct Stop {
    double at;
    int r, g, b;
  };
  static constexpr std::array<Stop, 6> stops{{{0.0, 40, 90, 200},
                                              {0.25, 30, 160, 210},
                                              {0.5, 60, 185, 90},
                                              {0.7, 235, 210, 60},
                                              {0.85, 240, 140, 40},
                                              {1.0, 215, 45, 45}}};
  t = std::clamp(t, 0.0, 1.0);
  for (std::size_t i = 1; i < stops.size(); ++i) {
    if (t <= stops[i].at) {
      const Stop& a = stops[i - 1];
      const Stop& b = stops[i];
      const double f = (t - a.at) / (b.at - a.at);
      auto mix = [f](int x, int y) { return static_cast<int>(x + (y - x) * f + 0.5); };
      return QColor(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
    }
  }
  return QColor(stops.back().r, stops.back().g, stops.back().b);
}

}  // namespace tessera::ui
