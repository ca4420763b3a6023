#include "ui/shell/PlannerBridge.h"

#include "ui/planner/PlannerPanel.h"

#include "core/cost/MarketOffers.h"

#include <QCoreApplication>
#include <QDir>

namespace tessera::ui {

PlannerBridge::PlannerBridge(TradingSession& session, planner::PlannerPanel* panel, QObject* parent)
    : QObject(parent), session_(session), panel_(panel) {
  refresh();
  // Prices moved on with the clock: recomputing asks for fresh offers, showing the old ones
  // until they arrive.
  connect(&session_, &TradingSession::clockChanged, this, [this](Hour) { refresh(); });
}

void PlannerBridge::refresh() {
  // Setting the source (again) makes the panel recompute through it; setCandidates() would
  // drop the source.
  if (panel_) panel_->setCandidateSource([this](const cost::WorkloadProfile& w) { return candidatesFor(w); });
}

QStringList PlannerBridge::loadWorkloads() {
  QStringList where;
  const QString app = QCoreApplication::applicationDirPath();
  where << qEnvironmentVariable("TESSERA_RESOURCES") + "/workloads" << app + "/../share/tessera/workloads"
        << QStringLiteral(TESSERA_SOURCE_RESOURCES) + "/workloads";
  QStringList problems;
  for (const QString& dir : where) {
    if (!QDir(dir).exists() || QDir(dir).entryList({"*.json"}).isEmpty()) continue;
    for (const std::string& p : panel_->loadWorkloadDirectory(dir.toStdString())) problems << QString::fromStdString(p);
    return problems;
  }
  problems << tr("No workload profiles found (looked in %1).").arg(where.join(", "));
  return problems;
}

std::vector<cost::CandidateOffer> PlannerBridge::candidatesFor(const cost::WorkloadProfile& w) {
  const GpuCount gpus = w.gpus();
  auto it = cache_.find(gpus);
  if (it == cache_.end() || it->second.at != session_.now()) request(gpus);
  return it != cache_.end() ? it->second.offers : std::vector<cost::CandidateOffer>{};
}

void PlannerBridge::request(GpuCount gpus) {
  // One request per GPU count and clock hour in flight; a request the backend could not run
  // (not connected yet) is retried when the clock moves.
  if (auto it = pending_.find(gpus); gpus <= 0 || (it != pending_.end() && it->second == session_.now())) return;
  pending_[gpus] = session_.now();
  const Hour start = session_.now() + kStartAhead;
  QPointer<PlannerBridge> self(this);
  const Hour at = session_.now();
  session_.runOnBook([self, gpus, start, at](const Matcher& book) {
    // On the backend's thread: price every cluster that can supply `gpus` for the window.
    auto offers = cost::candidatesFromBook(book, gpus, start, start + kWindowHours);
    QMetaObject::invokeMethod(
        QCoreApplication::instance(),
        [self, gpus, at, offers = std::move(offers)]() mutable {
          if (!self) return;
          self->pending_.erase(gpus);
          self->cache_[gpus] = Cached{at, std::move(offers)};
          self->refresh();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace tessera::ui
