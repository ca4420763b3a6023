#pragma once
// Stacked bars of the five cost terms for each offer that could serve a workload, side by
// side, with each offer's hourly rate marked on a second axis: the cheapest-looking offer
// (lowest rate) and the cheapest real one (lowest effective cost) are both labelled.
#include "core/cost/EffectiveCostModel.h"

#include <QWidget>

#include <string>
#include <vector>

class QCustomPlot;
class QCPBars;
class QCPGraph;

namespace tessera::planner {

struct ChartOffer {
  std::string label;
  cost::CostResult result;
};

class EffectiveCostChart : public QWidget {
  Q_OBJECT

 public:
  explicit EffectiveCostChart(QWidget* parent = nullptr);

  void setOffers(const std::vector<ChartOffer>& offers, const QString& workloadName = {});

  QCustomPlot* plot() const { return plot_; }
  int barCount() const { return shown_; }                 // offers drawn
  int cheapestRateIndex() const { return cheapestRate_; }  // among drawn offers, -1 if none
  int cheapestRealIndex() const { return cheapestReal_; }
  double stackedTotal(int index) const;                   // sum of the bars at `index`

 private:
  QCustomPlot* plot_;
  std::vector<QCPBars*> bars_;
  QCPGraph* rate_ = nullptr;
  int shown_ = 0;
  int cheapestRate_ = -1;
  int cheapestReal_ = -1;
};

}  // namespace tessera::planner
