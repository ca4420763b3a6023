#include "backtest/SvgChart.h"

#include "backtest/BacktestResult.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tessera::backtest {
namespace {

// 1, 2 or 5 times a power of ten, so tick labels read naturally.
double niceStep(double range, int ticks) {
  const double raw = range / std::max(1, ticks);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

std::string num(double v) {
  char b[32];
  if (std::fabs(v) >= 1e6)
    std::snprintf(b, sizeof b, "%.1fM", v / 1e6);
  else if (std::fabs(v) >= 1e4)
    std::snprintf(b, sizeof b, "%.0fk", v / 1e3);
  else if (std::fabs(v) >= 100 || v == std::floor(v))
    std::snprintf(b, sizeof b, "%.0f", v);
  else
    std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

}  // namespace

std::string xmlEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else if (c == '\'')
      o += "&#39;";
    else
      o += c;
  }
  return o;
}

std::string svgLineChart(const ChartSpec& spec) {
  const int W = spec.width, H = spec.height, left = 70, right = 20, top = 36, bottom = 48;
  double x0 = 1e300, x1 = -1e300, y0 = 0, y1 = 0;
  bool any = false;
  for (const auto& s : spec.series)
    for (auto [x, y] : s.points) {
      x0 = std::min(x0, x);
      x1 = std::max(x1, x);
      if (!any) y0 = y1 = y;
      y0 = std::min(y0, y);
      y1 = std::max(y1, y);
      any = true;
    }
  std::ostringstream o;
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << W << "' height='" << H << "' viewBox='0 0 " << W << ' ' << H
    << "' font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n"
    << "<text x='" << W / 2 << "' y='20' text-anchor='middle' font-size='15' font-weight='bold'>"
    << xmlEscape(spec.title) << "</text>\n";
  if (!any) {
    o << "<text x='" << W / 2 << "' y='" << H / 2
      << "' text-anchor='middle' fill='#666'>no data: the run has no hourly series (no inputs replayed)</text></svg>\n";
    return o.str();
  }
  if (x1 <= x0) x1 = x0 + 1;
  if (y1 <= y0) {
    y1 += 1;
    y0 -= 1;
  }
  const double pad = (y1 - y0) * 0.05;
  y0 -= pad;
  y1 += pad;
  const double pw = W - left - right, ph = H - top - bottom;
  auto X = [&](double x) { return left + (x - x0) / (x1 - x0) * pw; };
  auto Y = [&](double y) { return top + (y1 - y) / (y1 - y0) * ph; };
  const double ys = niceStep(y1 - y0, 5), xs = niceStep(x1 - x0, 8);
  for (double y = std::ceil(y0 / ys) * ys; y <= y1; y += ys) {
    o << "<line x1='" << left << "' x2='" << W - right << "' y1='" << Y(y) << "' y2='" << Y(y)
      << "' stroke='#e4e4e4'/><text x='" << left - 6 << "' y='" << Y(y) + 4 << "' text-anchor='end'>" << num(y)
      << "</text>\n";
  }
  for (double x = std::ceil(x0 / xs) * xs; x <= x1; x += xs) {
    o << "<line x1='" << X(x) << "' x2='" << X(x) << "' y1='" << top << "' y2='" << H - bottom
      << "' stroke='#f0f0f0'/><text x='" << X(x) << "' y='" << H - bottom + 16 << "' text-anchor='middle'>" << num(x)
      << "</text>\n";
  }
  o << "<rect x='" << left << "' y='" << top << "' width='" << pw << "' height='" << ph
    << "' fill='none' stroke='#999'/>\n";
  o << "<text x='" << left + pw / 2 << "' y='" << H - 10 << "' text-anchor='middle'>" << xmlEscape(spec.xLabel)
    << "</text>\n";
  o << "<text transform='translate(16," << top + ph / 2 << ") rotate(-90)' text-anchor='middle'>"
    << xmlEscape(spec.yLabel) << "</text>\n";
  // Legend entries side by side, each as wide as its name (about 7 px a character at 12 px).
  int lx = left + 10;
  for (const auto& s : spec.series) {
    if (s.points.empty()) continue;
    std::ostringstream path;
    for (std::size_t i = 0; i < s.points.size(); ++i)
      path << (i ? " L" : "M") << X(s.points[i].first) << ',' << Y(s.points[i].second);
    if (s.filled) {
      o << "<path d='" << path.str() << " L" << X(s.points.back().first) << ',' << Y(std::clamp(0.0, y0, y1)) << " L"
        << X(s.points.front().first) << ',' << Y(std::clamp(0.0, y0, y1)) << " Z' fill='" << s.color
        << "' fill-opacity='0.25' stroke='none'/>\n";
    }
    o << "<path d='" << path.str() << "' fill='none' stroke='" << s.color << "' stroke-width='2'/>\n";
    o << "<line x1='" << lx << "' x2='" << lx + 18 << "' y1='" << top + 12 << "' y2='" << top + 12 << "' stroke='"
      << s.color << "' stroke-width='3'/><text x='" << lx + 24 << "' y='" << top + 16 << "'>" << xmlEscape(s.name)
      << "</text>\n";
    lx += 24 + 7 * static_cast<int>(s.name.size()) + 20;
  }
  o << "</svg>\n";
  return o.str();
}

std::vector<ChartSpec> reportCharts(const BacktestResult& r) {
  const double h0 = r.series.empty() ? 0 : static_cast<double>(r.series.front().hour);
  auto dollars = [](Money m) { return static_cast<double>(m) / 1e6; };
  // P&L = cash + GPU-hours still to be delivered, marked at the cluster's last trade price.
  ChartSpec equity{"Equity curve (P&L)", "hours since start", "US dollars", {}};
  ChartSeries eq{"equity", "#1f77b4", {}}, cash{"cash", "#999999", {}};
  ChartSpec price{"Price paid vs market", "hours since start", "$ per GPU-hour", {}};
  ChartSeries mkt{"market VWAP (hour)", "#bbbbbb", {}},
      mktToDate{"market VWAP, same clusters (to date)", "#2ca02c", {}}, paid{"average paid (to date)", "#d62728", {}};
  ChartSpec dd{"Drawdown", "hours since start", "US dollars", {}};
  ChartSeries down{"drawdown", "#d62728", {}, true};
  for (const auto& p : r.series) {
    const double x = static_cast<double>(p.hour) - h0;
    eq.points.emplace_back(x, dollars(p.equity));
    cash.points.emplace_back(x, dollars(p.cash));
    down.points.emplace_back(x, dollars(p.drawdown));
    if (p.marketVwap > 0) mkt.points.emplace_back(x, dollars(p.marketVwap));
    if (p.marketVwapToDate > 0) mktToDate.points.emplace_back(x, dollars(p.marketVwapToDate));
    if (p.averagePaid > 0) paid.points.emplace_back(x, dollars(p.averagePaid));
  }
  equity.series = {eq, cash};
  price.series = {mkt, mktToDate, paid};
  dd.series = {down};
  return {equity, price, dd};
}

}  // namespace tessera::backtest
