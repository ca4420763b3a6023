#include "ui/shell/PlannerBridge.h"

#include "core/cost/PlanSearch.h"
#include "core/cost/WorkloadJson.h"

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
  session_.runOnBook([self, r, done = std::move(done)](const Matcher& book) mutable {
    // On the backend's thread: the search reads the book, nothing else.
    cost::PlanResult result = cost::planPlacements(book, r);
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, r = std::move(r), result = std::move(result), done = std::move(done)]() mutable {
          if (!self) return;
          self->running_ = false;
          done(r, std::move(result));
          self->run();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace tessera::ui
