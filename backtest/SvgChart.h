#pragma once
// Minimal line charts as SVG, for the HTML report when the Qt chart renderer is not linked.
#include <string>
#include <utility>
#include <vector>

namespace tessera::backtest {

struct ChartSeries {
  std::string name;
  std::string color;                              // CSS colour
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
  bool filled = false;                            // shade the area between the line and zero (drawdown)
};

struct ChartSpec {
  std::string title;
  std::string xLabel;
  std::string yLabel;
  std::vector<ChartSeries> series;
  int width = 900;
  int height = 320;
};

std::string svgLineChart(const ChartSpec& spec);

// Text made safe inside XML/HTML elements and attribute values (< > & " ').
std::string xmlEscape(const std::string& s);

// The three report charts, built from a result's series (x: hours since the run started,
// y: dollars or dollars per GPU-hour). Shared by the SVG and the Qt/PNG renderers.
struct BacktestResult;
std::vector<ChartSpec> reportCharts(const BacktestResult& r);

}  // namespace tessera::backtest
