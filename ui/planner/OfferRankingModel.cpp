#include "ui/planner/OfferRankingModel.h"

#include "ui/planner/PlannerFormat.h"

#include <QBrush>
#include <QColor>

namespace tessera::planner {

OfferRankingModel::OfferRankingModel(QObject* parent) : QAbstractTableModel(parent) {}

void OfferRankingModel::setScenario(const cost::WorkloadProfile& w, std::vector<cost::CandidateOffer> candidates) {
  beginResetModel();
  candidates_ = std::move(candidates);
  ranked_ = cost::rankByEffectiveCost(w, candidates_);
  endResetModel();
}

int OfferRankingModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(ranked_.size());
}

int OfferRankingModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

const cost::CandidateOffer& OfferRankingModel::candidateAt(int row) const {
  return candidates_.at(ranked_.at(row).candidate);
}

const cost::CostResult& OfferRankingModel::resultAt(int row) const { return ranked_.at(row).result; }

QVariant OfferRankingModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const cost::CandidateOffer& c = candidateAt(index.row());
  const cost::CostResult& r = resultAt(index.row());
  const auto* b = std::get_if<cost::CostBreakdown>(&r);
  // Grey: cannot serve, or cannot finish inside the offer's window (the detail column says which).
  if (role == Qt::ForegroundRole && (!b || !b->fitsWindow)) return QBrush(QColor(0x8a, 0x8f, 0x98));
  if (role == Qt::TextAlignmentRole && index.column() != Cluster && index.column() != Detail)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) {
    if (!b) return QString::fromStdString(std::get<cost::CostError>(r).message);
    QStringList notes;
    for (const auto& n : b->notes) notes << QString::fromStdString(n);
    return notes.join("\n");
  }
  if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
  const bool raw = role == Qt::UserRole;  // numbers for sorting and tests
  switch (index.column()) {
    case Rank: return b ? QVariant(index.row() + 1) : QVariant(QStringLiteral("-"));
    case Cluster: return QString::fromStdString(c.offer.label.empty() ? c.topology.name : c.offer.label);
    case Rate: return raw ? QVariant(c.offer.pricePerGpuHour) : QVariant(rateText(c.offer.pricePerGpuHour));
    case EffectiveCost:
      if (!b) return {};
      return raw ? QVariant(b->terms.total()) : QVariant(moneyText(b->terms.total()));
    case WallClock:
      if (!b) return {};
      return raw ? QVariant(b->wallClockHours / 24) : QVariant(durationText(b->wallClockHours));
    case Mfu:
      if (!b || !b->mfu) return raw ? QVariant() : QVariant(QStringLiteral("-"));
      return raw ? QVariant(*b->mfu) : QVariant(QString::number(100 * *b->mfu, 'f', 1) + "%");
    case CostPerUnit:
      if (!b) return {};
      return raw ? QVariant(b->costPerUnit)
                 : QVariant(moneyText(b->costPerUnit) + " / " + QString::fromStdString(b->unit));
    case Detail:
      if (!b) return QString::fromStdString(std::get<cost::CostError>(r).message);
      if (!b->fitsWindow)
        return QString("does not fit: needs %1, the offer's window is %2")
            .arg(durationText(b->wallClockHours), durationText(c.offer.windowHours.value_or(0)));
      return QString("%1, %2 per GPU, %3")
          .arg(QString::fromUtf8(cost::toString(b->sync.bottleneck).data()), bandwidthText(b->sync.gbytesPerSecPerGpu),
               countText(b->span.nodes, "node", "nodes"));
  }
  return {};
}

QVariant OfferRankingModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank: return "#";
    case Cluster: return "cluster";
    case Rate: return "rate/GPU-h";
    case EffectiveCost: return "effective cost";
    case WallClock: return "wall clock";
    case Mfu: return "MFU";
    case CostPerUnit: return "per unit";
    case Detail: return "sync bottleneck / why not";
  }
  return {};
}

}  // namespace tessera::planner
