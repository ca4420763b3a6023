#include "ui/planner/PlacementTableModel.h"

#include "ui/planner/PlannerFormat.h"

#include <QBrush>
#include <QColor>

#include <algorithm>
#include <cmath>

namespace tessera::planner {

PlacementTableModel::PlacementTableModel(QObject* parent) : QAbstractTableModel(parent) {}

std::vector<PlacementTableModel::Row> PlacementTableModel::orderedRows() const {
  std::vector<Row> rows;
  for (const auto& p : plan_.placements) rows.push_back({p.cluster.id, p.cost.terms.total()});
  for (const auto& u : plan_.unfit) rows.push_back({u.cluster.id, std::nullopt});
  return rows;
}

void PlacementTableModel::reindex() {
  placementOfRow_.assign(rows_.size(), -1);
  unfitOfRow_.assign(rows_.size(), -1);
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    for (std::size_t i = 0; i < plan_.placements.size(); ++i)
      if (plan_.placements[i].cluster.id == rows_[r].cluster) placementOfRow_[r] = static_cast<int>(i);
    for (std::size_t i = 0; i < plan_.unfit.size(); ++i)
      if (plan_.unfit[i].cluster.id == rows_[r].cluster) unfitOfRow_[r] = static_cast<int>(i);
  }
}

void PlacementTableModel::setPlan(cost::PlanResult plan) {
  beginResetModel();
  plan_ = std::move(plan);
  rows_ = orderedRows();
  reindex();
  endResetModel();
}

void PlacementTableModel::updatePlan(cost::PlanResult plan) {
  plan_ = std::move(plan);
  std::vector<Row> appended;
  for (const Row& r : orderedRows())
    if (std::none_of(rows_.begin(), rows_.end(), [&](const Row& k) { return k.cluster == r.cluster; }))
      appended.push_back({r.cluster, std::nullopt});
  if (!appended.empty()) {
    beginInsertRows({}, static_cast<int>(rows_.size()), static_cast<int>(rows_.size() + appended.size()) - 1);
    rows_.insert(rows_.end(), appended.begin(), appended.end());
    reindex();
    endInsertRows();
  } else {
    reindex();
  }
  if (!rows_.empty()) emit dataChanged(this->index(0, 0), this->index(rowCount() - 1, ColumnCount - 1));
}

void PlacementTableModel::rerank() {
  emit layoutAboutToBeChanged();
  const QModelIndexList before = persistentIndexList();
  std::vector<ClusterId> clusterOf;
  for (const QModelIndex& i : before) clusterOf.push_back(clusterAt(i.row()));
  rows_ = orderedRows();
  reindex();
  QModelIndexList after;
  for (int k = 0; k < before.size(); ++k) {
    const int row = rowOf(clusterOf[static_cast<std::size_t>(k)]);
    after << (row < 0 ? QModelIndex() : this->index(row, before[k].column()));
  }
  changePersistentIndexList(before, after);
  emit layoutChanged();
}

ClusterId PlacementTableModel::clusterAt(int row) const {
  return row >= 0 && row < rowCount() ? rows_[static_cast<std::size_t>(row)].cluster : 0;
}

int PlacementTableModel::rowOf(ClusterId cluster) const {
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].cluster == cluster) return static_cast<int>(r);
  return -1;
}

const cost::PlannedPlacement* PlacementTableModel::placementAt(int row) const {
  if (row < 0 || row >= rowCount() || placementOfRow_[static_cast<std::size_t>(row)] < 0) return nullptr;
  return &plan_.placements[static_cast<std::size_t>(placementOfRow_[static_cast<std::size_t>(row)])];
}

const cost::ClusterUnfit* PlacementTableModel::unfitAt(int row) const {
  if (row < 0 || row >= rowCount() || unfitOfRow_[static_cast<std::size_t>(row)] < 0) return nullptr;
  return &plan_.unfit[static_cast<std::size_t>(unfitOfRow_[static_cast<std::size_t>(row)])];
}

int PlacementTableModel::rankAt(int row) const {
  if (row < 0 || row >= rowCount()) return 0;
  return placementOfRow_[static_cast<std::size_t>(row)] + 1;
}

bool PlacementTableModel::orderIsStale() const {
  const std::vector<Row> ranked = orderedRows();
  if (ranked.size() != rows_.size()) return true;
  for (std::size_t r = 0; r < rows_.size(); ++r)
    if (ranked[r].cluster != rows_[r].cluster) return true;
  return false;
}

int PlacementTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int PlacementTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString PlacementTableModel::changeText(const Row& row) const {
  const cost::PlannedPlacement* p = placementAt(rowOf(row.cluster));
  if (p && !row.costWhenRanked) return QStringLiteral("new since ranked");
  if (!p && row.costWhenRanked) return QStringLiteral("gone since ranked");
  if (!p) return {};
  const double delta = p->cost.terms.total() - *row.costWhenRanked;
  if (std::abs(delta) < 0.005) return {};
  return (delta > 0 ? QStringLiteral("▲ +") : QStringLiteral("▼ -")) + moneyText(std::abs(delta));
}

QVariant PlacementTableModel::data(const QModelIndex& idx, int role) const {
  if (!idx.isValid() || idx.row() >= rowCount()) return {};
  const Row& row = rows_[static_cast<std::size_t>(idx.row())];
  const cost::PlannedPlacement* p = placementAt(idx.row());
  const cost::ClusterUnfit* u = unfitAt(idx.row());
  const int col = idx.column();
  if (role == Qt::ForegroundRole && !p) return QBrush(QColor(0x8a, 0x8f, 0x98));
  if (role == Qt::BackgroundRole && !changeText(row).isEmpty()) return QBrush(QColor(255, 193, 7, 48));
  if (role == Qt::TextAlignmentRole && col != Cluster && col != Detail && col != Change && col != Start)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) {
    if (u) return QString::fromStdString(u->reason);
    if (!p) return {};
    QStringList notes;
    for (const auto& n : p->cost.notes) notes << QString::fromStdString(n);
    return notes.join("\n");
  }
  if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
  const bool raw = role == Qt::UserRole;
  const QString clusterName = QString::fromStdString((p ? p->cluster : u->cluster).name);
  switch (col) {
    case Rank:
      if (raw) return rankAt(idx.row());
      return p ? QString::number(rankAt(idx.row())) : QStringLiteral("–");
    case Cluster: return clusterName;
    case Gpus: {
      const auto& c = p ? p->cluster : u->cluster;
      if (raw) return p ? p->gpus : c.totalGpus();
      return p ? QString("%1 × %2").arg(p->gpus).arg(QString::fromUtf8(toString(c.accelerator).data()))
               : QString("has %1 × %2").arg(c.totalGpus()).arg(QString::fromUtf8(toString(c.accelerator).data()));
    }
    case Start:
      if (!p) return {};
      return raw ? QVariant(static_cast<qlonglong>(p->start)) : QVariant(hourText(p->start));
    case Days:
      if (!p) return {};
      return raw ? QVariant(static_cast<double>(p->end - p->start) / 24.0)
                 : QVariant(durationText(static_cast<double>(p->end - p->start)));
    case AskRate:
      if (!p) return {};
      return raw ? QVariant(p->offer.pricePerGpuHour) : QVariant(rateText(p->offer.pricePerGpuHour));
    case EffectiveCost:
      if (!p) return {};
      return raw ? QVariant(p->cost.terms.total()) : QVariant(moneyText(p->cost.terms.total()));
    case EffectiveRate:
      if (!p) return {};
      return raw ? QVariant(p->cost.effectivePricePerGpuHour) : QVariant(rateText(p->cost.effectivePricePerGpuHour));
    case Mfu:
      if (!p || !p->cost.mfu) return raw ? QVariant() : QVariant(QStringLiteral("–"));
      return raw ? QVariant(*p->cost.mfu) : QVariant(QString::number(100 * *p->cost.mfu, 'f', 1) + "%");
    case Change: return changeText(row);
    case Detail:
      if (u) return QString::fromStdString(u->reason);
      return QString("%1, sync over %2 at %3 per GPU")
          .arg(countText(p->cost.span.nodes, "node", "nodes"),
               QString::fromUtf8(cost::toString(p->cost.sync.bottleneck).data()),
               bandwidthText(p->cost.sync.gbytesPerSecPerGpu));
  }
  return {};
}

QVariant PlacementTableModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Rank: return "Rank by effective cost now (rows keep their places while prices update; Re-rank sorts again)";
      case Start: return "The cheapest start in the range asked for";
      case Days: return "The window the order would occupy: the job's wall clock on this cluster, in whole hours";
      case AskRate: return "Average ask over the window for these GPUs (what an all-or-none bid pays per GPU-hour)";
      case EffectiveCost:
        return "Cost of the completed work: instance + storage and egress + orchestration + failed work + restarts";
      case EffectiveRate: return "Effective cost per GPU-hour of pure compute";
      case Change: return "What moved since the table was ranked";
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank: return "#";
    case Cluster: return "cluster";
    case Gpus: return "GPUs";
    case Start: return "start";
    case Days: return "window";
    case AskRate: return "ask $/GPU-h";
    case EffectiveCost: return "effective cost";
    case EffectiveRate: return "effective $/GPU-h";
    case Mfu: return "MFU";
    case Change: return "since ranked";
    case Detail: return "placement / why it cannot serve";
  }
  return {};
}

}  // namespace tessera::planner
