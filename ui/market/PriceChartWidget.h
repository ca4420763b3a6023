#pragma once
// Traded price per GPU-hour over exchange time for the watched clusters, one line per
// delivery tenor (next 24 h, next week, next month): the hourly volume-weighted average.
#include "ui/session/SessionTypes.h"

#include <QWidget>

#include <deque>

class QCustomPlot;
class QCPItemText;

namespace tessera::ui {

// Which tenor a trade belongs to, by how far ahead of the exchange clock its delivery starts
// (the price index's rule, core/settlement/PriceIndex.h); none for delivery beyond a month.
std::optional<Tenor> tenorOf(const TradePrint& t);

class PriceChartWidget : public QWidget {
  Q_OBJECT
 public:
  explicit PriceChartWidget(QWidget* parent = nullptr);
  void setClusters(std::vector<ClusterId> clusters, QString title);
  void setTrades(const std::deque<TradePrint>& trades);
  void setDark(bool dark);
  QCustomPlot* plot() const { return plot_; }
  int pointCount(Tenor t) const;

 private:
  void updateEmpty(bool empty);
  QCustomPlot* plot_;
  QCPItemText* empty_;  // why the chart is empty, when it is
  std::vector<ClusterId> clusters_;
  QString title_;
};

}  // namespace tessera::ui
