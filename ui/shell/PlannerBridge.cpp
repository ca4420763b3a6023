#include "ui/shell/PlannerBridge.h"

#include "core/cost/PlanSearch.h"
#include "core/cost/WorkloadJson.h"
#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

#include <QCoreApplication>
#include <QDir>
#include <QStandardPaths>

namespace tessera::ui {

PlannerBridge::PlannerBridge(TradingSession& session, planner::PlannerPanel* panel, QObject* parent)
    : QObject(parent), session_(session), panel_(panel) {
  panel_->setWaitingForMarket(true);
  panel_->setPlanRunner([this](const Question& q, planner::PlannerPanel::PlanDone done) { ask(q, std::move(done)); });
  // Prices moved on with the clock: the panel asks its question again and updates its rows in place.
  connect(&session_, &TradingSession::clockChanged, this, [this](Hour now) {
    // A book has arrived and the clock has passed the first hour it showed: the market has had
    // an hour to list, and what it lists now is what it offers.
    if (!firstHour_) firstHour_ = now;
    if (!marketLoaded_ && sawBook_ && now > *firstHour_) marketLoaded_ = true;
    updateWaiting();
    if (panel_) panel_->refresh();
  });
  // The panel waits for the market; a question asked before the book arrived waits for it too.
  connect(&session_, &TradingSession::bookChanged, this, [this] {
    if (session_.book()) sawBook_ = true;
    if (!running_ && waiting_ && session_.connection() == ConnectionState::Connected) run();
  });
}

void PlannerBridge::updateWaiting() {
  if (panel_ && marketLoaded_ && session_.connection() == ConnectionState::Connected)
    panel_->setWaitingForMarket(false);
}

QStringList PlannerBridge::loadWorkloads() {
  QStringList where;
  const QString app = QCoreApplication::applicationDirPath();
  // $TESSERA_RESOURCES first (the tests set it), then the installed layout (<prefix>/bin beside
  // <prefix>/share/tessera), then a build folder's (the program beside <build>/resources).
  if (const QString given = qEnvironmentVariable("TESSERA_RESOURCES"); !given.isEmpty()) where << given + "/workloads";
  where << app + "/../share/tessera/workloads" << app + "/resources/workloads";
  QStringList problems;
  bool shipped = false;
  for (const QString& dir : where) {
    if (!QDir(dir).exists() || QDir(dir).entryList({"*.json"}).isEmpty()) continue;
    for (const std::string& p : panel_->loadWorkloadDirectory(dir.toStdString())) problems << QString::fromStdString(p);
    shipped = true;
    break;
  }
  if (!shipped) problems << tr("No workload profiles found (looked in %1).").arg(where.join(", "));
  // The user's own workloads (saved by the planner's workload editor) come after the shipped ones.
  const QString mine = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + "/workloads";
  panel_->setWorkloadFolder(mine);
  for (const QString& f : QDir(mine).entryList({"*.json"}, QDir::Files, QDir::Name)) {
    auto loaded = cost::loadWorkloadFile(QDir(mine).filePath(f).toStdString());
    if (auto* w = std::get_if<cost::WorkloadProfile>(&loaded))
      panel_->addWorkload(*w, false);
    else
      problems << QString::fromStdString(std::get<cost::LoadError>(loaded).message);
  }
  return problems;
}

void PlannerBridge::ask(const Question& q, planner::PlannerPanel::PlanDone done) {
  waiting_ = std::make_pair(q, std::move(done));
  if (running_ && runningFor_.elapsed() > 15000) running_ = false;  // the backend dropped it
  if (!running_ && session_.connection() == ConnectionState::Connected && session_.book()) run();
}

void PlannerBridge::run() {
  if (!waiting_) return;
  auto [q, done] = std::move(*waiting_);
  waiting_.reset();
  running_ = true;
  runningFor_.start();
  cost::PlanRequest r;
  r.workload = q.workload;
  r.accelerators = q.kinds;
  r.earliestStart = session_.now() + q.earliestAhead;
  r.latestStart = session_.now() + q.latestAhead;
  r.budgetDollars = q.budgetDollars;
  QPointer<PlannerBridge> self(this);
  // The exchange's observed reclaim rates, as market data last gave them (copied: the search
  // runs on the backend's thread).
  std::map<ClusterId, net::ReclaimRate> observed = session_.reclaimRates();
  session_.runOnBook([self, r, observed = std::move(observed), done = std::move(done)](const Matcher& book) mutable {
    // On the backend's thread: the search reads the book, nothing else.
    cost::PlanResult result = cost::planPlacements(book, r);
    auto perDay = [&observed](const Cluster& c) {
      const auto it = observed.find(c.id);
      if (it == observed.end()) return cost::reclaimsPerDay({});
      return cost::reclaimsPerDay({it->second.reclaimedContracts, static_cast<double>(it->second.contractedHours)});
    };
    std::vector<cost::CapacityComparison> compared =
        cost::compareCapacityOnBook(book, r.workload, r.accelerators, r.earliestStart, perDay);
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, r = std::move(r), result = std::move(result), compared = std::move(compared),
         observed = std::move(observed), done = std::move(done)]() mutable {
          if (!self) return;
          self->running_ = false;
          if (self->panel_) self->panel_->setCapacityChoice(capacityChoiceText(r.workload, compared, observed));
          done(r, std::move(result));
          self->run();
        },
        Qt::QueuedConnection);
  });
}

QString PlannerBridge::capacityChoiceText(const cost::WorkloadProfile& workload,
                                          const std::vector<cost::CapacityComparison>& compared,
                                          const std::map<ClusterId, net::ReclaimRate>& observed) {
  if (compared.empty()) return {};
  const cost::CapacityComparison& k = compared.front();
  const cost::CapacityChoice& c = k.choice;
  const QString spot = QString::fromStdString(k.interruptible.name), firm = QString::fromStdString(k.firm.name);
  auto dollars = [](double d) { return QString::fromStdString(toDollars(static_cast<Money>(d * 1e6 + 0.5))); };
  const auto* f = std::get_if<cost::CostBreakdown>(&c.firm);
  const auto* i = std::get_if<cost::CostBreakdown>(&c.interruptible);
  QString verdict;
  if (!c.cheaper) {
    verdict = tr("Firm or interruptible: neither %1 nor %2 can run %3.")
                  .arg(firm, spot, QString::fromStdString(workload.name));
  } else if (f && i && f->fitsWindow && i->fitsWindow) {
    const bool spotWins = *c.cheaper == cost::CapacityKind::Interruptible;
    verdict =
        tr("Firm or interruptible for %1: %2 is cheaper, %3 on %4 against %5 on %6 (saves %7).")
            .arg(QString::fromStdString(workload.name), spotWins ? tr("interruptible") : tr("firm"),
                 dollars(spotWins ? i->terms.total() : f->terms.total()), spotWins ? spot : firm,
                 dollars(spotWins ? f->terms.total() : i->terms.total()), spotWins ? firm : spot, dollars(c.saving));
  } else {
    verdict = tr("Firm or interruptible for %1: %2 (%3 against %4).")
                  .arg(QString::fromStdString(workload.name), QString::fromStdString(c.reason), firm, spot);
  }
  // Why: the rate and where it comes from, then what each reclaim costs this workload.
  QString rate;
  const QString perDay = QString::number(k.reclaimsPerDay, 'f', 2);
  if (const auto it = observed.find(k.interruptible.id); it != observed.end() && it->second.contractedHours > 0)
    rate = tr("%1 is reclaimed %2 times a day as the exchange observes it (%3 of its open contracts over %4 "
              "contracted hours; %5 of %6 GPU-hours taken back).")
               .arg(spot, perDay, QString::fromStdString(withThousands(it->second.reclaimedContracts)))
               .arg(QString::fromStdString(withThousands(it->second.contractedHours)),
                    QString::fromStdString(withThousands(it->second.reclaimedGpuHours)),
                    QString::fromStdString(withThousands(it->second.soldGpuHours)));
  else
    rate = tr("%1 has no reclaims observed yet: %2 a day is assumed.").arg(spot, perDay);
  QString loss;
  if (i && i->fitsWindow)
    loss = tr(" Each reclaim loses the work since the last checkpoint (every %1 h) and a %2-minute restart: "
              "%3 over %4 expected reclaims and failures.")
               .arg(QString::number(workload.checkpointIntervalHours, 'g', 3))
               .arg(QString::number(workload.restartMinutes, 'g', 3))
               .arg(dollars(i->terms.failedWork + i->terms.migrationOrRestart))
               .arg(QString::number(i->expectedInterruptions, 'f', 1));
  return verdict + " " + rate + loss;
}

}  // namespace tessera::ui
