#pragma once
// Stacked bars of the effective-cost terms (compute, communication stall, failed work,
// restarts, storage and egress, orchestration) for each offer that could serve a workload, side
// by side, with each offer's hourly rate marked on a second axis: the cheapest-looking offer
// (lowest rate) and the cheapest real one (lowest effective cost) are both labelled, and a line
// above the bars says why the cheapest one is cheapest (the term that differs most).
#include "core/cost/EffectiveCostModel.h"

#include <QMap>
#include <QWidget>

#include <functional>

#include <string>
#include <vector>

class QCustomPlot;
class QCPBars;
class QCPGraph;
class QCPTextElement;

namespace tessera::planner {

struct ChartOffer {
  std::string label;
  cost::CostResult result;
};

class EffectiveCostChart : public QWidget {
  Q_OBJECT

 public:
  explicit EffectiveCostChart(QWidget* parent = nullptr);

  // `emptyText` is what the chart says when no offer can be drawn (why there is none).
  void setOffers(const std::vector<ChartOffer>& offers, const QString& workloadName = {},
                 const QString& emptyText = {});

  QCustomPlot* plot() const { return plot_; }
  // Why the cheapest offer wins, in words (empty with fewer than two offers).
  QString whyText() const { return why_; }
  // The line under the title: why the cheapest wins, or why nothing is drawn.
  QString statusLine() const;
  // The terminal's plot style (theme); called now and for every later replot's look.
  void setPlotStyle(const std::function<void(QCustomPlot*)>& style);
  int barCount() const { return shown_; }                  // offers drawn
  int cheapestRateIndex() const { return cheapestRate_; }  // among drawn offers, -1 if none
  int cheapestRealIndex() const { return cheapestReal_; }
  double stackedTotal(int index) const;  // sum of the bars at `index`
  QCPTextElement* titleElement() const { return title_; }
  QCPTextElement* whyElement() const { return whyLine_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void fitTextToWidth();
  QCustomPlot* plot_;
  std::vector<QCPBars*> bars_;
  QCPGraph* rate_ = nullptr;
  QCPTextElement* title_ = nullptr;
  QCPTextElement* whyLine_ = nullptr;
  QString why_;
  QString status_;  // the why-line before wrapping
  QString xLabel_;
  QMap<double, QString> ticks_, compactTicks_;  // the bars' labels, in full and for a short chart
  int shown_ = 0;
  int cheapestRate_ = -1;
  int cheapestReal_ = -1;
};

}  // namespace tessera::planner
