#include "ui/market/ClusterFilter.h"

namespace tessera::ui {

ClusterFilter::ClusterFilter(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(ClusterListModel::SortRole);
}

void ClusterFilter::setAccelerator(std::optional<Accelerator> a) {
  accelerator_ = a;
  invalidateFilter();
}
void ClusterFilter::setRegion(QString region) {
  region_ = std::move(region);
  invalidateFilter();
}
void ClusterFilter::setMinFabric(std::optional<FabricClass> f) {
  minFabric_ = f;
  invalidateFilter();
}
void ClusterFilter::setMaxAsk(std::optional<Price> p) {
  maxAsk_ = p;
  invalidateFilter();
}
void ClusterFilter::setText(QString text) {
  text_ = std::move(text);
  invalidateFilter();
}

bool ClusterFilter::filterAcceptsRow(int row, const QModelIndex&) const {
  const auto* m = qobject_cast<const ClusterListModel*>(sourceModel());
  const Cluster* c = m ? m->clusterAt(row) : nullptr;
  if (!c) return false;
  if (accelerator_ && c->accelerator != *accelerator_) return false;
  if (!region_.isEmpty() && QString::fromStdString(c->region) != region_) return false;
  if (minFabric_ && c->fabric < *minFabric_) return false;
  if (maxAsk_) {
    const ClusterQuote* q = m->quoteOf(c->id);
    if (!q || !q->bestAsk || *q->bestAsk > *maxAsk_) return false;
  }
  if (!text_.isEmpty() && !QString::fromStdString(c->name).contains(text_, Qt::CaseInsensitive) &&
      !QString::fromStdString(c->provider).contains(text_, Qt::CaseInsensitive))
    return false;
  return true;
}

}  // namespace tessera::ui
