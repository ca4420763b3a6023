#pragma once
// Offers for one workload ranked by effective cost, as a table: rank, cluster, hourly rate,
// effective cost, wall clock, MFU, cost per unit, and the sync bottleneck or the reason an
// offer cannot serve the workload.
#include "core/cost/EffectiveCostModel.h"

#include <QAbstractTableModel>

#include <vector>

namespace tessera::planner {

class OfferRankingModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Rank, Cluster, Rate, EffectiveCost, WallClock, Mfu, CostPerUnit, Detail, ColumnCount };

  explicit OfferRankingModel(QObject* parent = nullptr);

  // Evaluates and ranks; the candidates are kept so a row can be mapped back to its offer.
  void setScenario(const cost::WorkloadProfile& w, std::vector<cost::CandidateOffer> candidates);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

  const cost::CandidateOffer& candidateAt(int row) const;
  const cost::CostResult& resultAt(int row) const;
  const std::vector<cost::RankedOffer>& ranked() const { return ranked_; }
  const std::vector<cost::CandidateOffer>& candidates() const { return candidates_; }

 private:
  std::vector<cost::CandidateOffer> candidates_;
  std::vector<cost::RankedOffer> ranked_;
};

}  // namespace tessera::planner
