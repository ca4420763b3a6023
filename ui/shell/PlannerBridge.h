#pragma once
// Feeds the planner dock (ui/planner's PlannerPanel) from the live book: the panel's planning
// question (workload, GPU kinds, start range from now, budget) is answered by
// cost::planPlacements on the backend's thread, and asked again whenever the exchange clock
// moves, so prices stay fresh while the panel keeps the user's selection. Until the market has
// loaded the panel says it is waiting for it.
#include "ui/session/TradingSession.h"

#include "ui/planner/PlannerPanel.h"

#include "core/cost/MarketOffers.h"
#include "core/net/ReclaimRate.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

#include <map>
#include <optional>

namespace tessera::ui {

class PlannerBridge : public QObject {
  Q_OBJECT
 public:
  PlannerBridge(TradingSession& session, planner::PlannerPanel* panel, QObject* parent = nullptr);
  // Workloads from resources/workloads (next to the binary's share/ dir or the source tree).
  QStringList loadWorkloads();

 private:
  using Question = planner::PlannerPanel::PlanQuestion;
  void ask(const Question& q, planner::PlannerPanel::PlanDone done);
  void run();
  void updateWaiting();

 public:
  // The planner's "firm or interruptible" line for `workload` from the comparisons of the book
  // (cost::compareCapacityOnBook) and the exchange's observed reclaim rates: the cheapest pair's
  // verdict and why (the rate and what it is observed over, the work lost since a checkpoint
  // and the restart, in dollars). Empty when the book has no interruptible pair to compare.
  static QString capacityChoiceText(const cost::WorkloadProfile& workload,
                                    const std::vector<cost::CapacityComparison>& compared,
                                    const std::map<ClusterId, net::ReclaimRate>& observed);

 private:
  TradingSession& session_;
  QPointer<planner::PlannerPanel> panel_;
  // One search at a time on the backend's thread; a question asked meanwhile waits here, and
  // only the latest one is kept.
  bool running_ = false;
  QElapsedTimer runningFor_;  // a search the backend never ran (not connected) is given up on
  std::optional<std::pair<Question, planner::PlannerPanel::PlanDone>> waiting_;
  // The market has loaded once a book has arrived and the clock has passed the first hour the
  // terminal saw (a simulated market lists its opening book over its first hour). Until then an
  // answer with no placement reads "waiting for the market", not "nothing fits".
  bool sawBook_ = false;
  std::optional<Hour> firstHour_;  // the first exchange clock the terminal saw
  bool marketLoaded_ = false;
};

}  // namespace tessera::ui
