#pragma once
// Feeds the planner dock (ui/planner's PlannerPanel) with candidate offers priced from the live
// book: for the selected workload's GPU count over tomorrow's 24 hours, computed on the backend's
// thread (cost::candidatesFromBook) and cached until the exchange clock moves.
#include "ui/session/TradingSession.h"

#include "core/cost/EffectiveCostModel.h"

#include <QObject>
#include <QPointer>

#include <map>

namespace tessera::planner {
class PlannerPanel;
}

namespace tessera::ui {

class PlannerBridge : public QObject {
  Q_OBJECT
 public:
  PlannerBridge(TradingSession& session, planner::PlannerPanel* panel, QObject* parent = nullptr);
  // Workloads from resources/workloads (next to the binary's share/ dir or the source tree).
  QStringList loadWorkloads();
  // Offers are priced for a day-ahead window: near-term hours are usually already taken.
  static constexpr Hour kStartAhead = 24;
  static constexpr Hour kWindowHours = 24;

 private:
  std::vector<cost::CandidateOffer> candidatesFor(const cost::WorkloadProfile& w);
  void request(GpuCount gpus);
  void refresh();

  TradingSession& session_;
  QPointer<planner::PlannerPanel> panel_;
  struct Cached {
    Hour at = 0;  // the exchange clock it was priced at
    std::vector<cost::CandidateOffer> offers;
  };
  std::map<GpuCount, Cached> cache_;
  std::map<GpuCount, Hour> pending_;
};

}  // namespace tessera::ui
