#include "ui/market/ClusterListModel.h"

#include "ui/shell/DisplayFormat.h"

namespace tessera::ui {

ClusterListModel::ClusterListModel(QObject* parent) : QAbstractTableModel(parent) {}

void ClusterListModel::setClusters(std::vector<Cluster> clusters) {
  beginResetModel();
  clusters_ = std::move(clusters);
  endResetModel();
}

void ClusterListModel::setQuotes(const std::vector<ClusterQuote>& quotes) {
  for (const ClusterQuote& q : quotes) quotes_[q.cluster] = q;
  if (!clusters_.empty()) emit dataChanged(index(0, BestAsk), index(rowCount() - 1, Last));
}

const Cluster* ClusterListModel::clusterAt(int row) const {
  return row >= 0 && row < static_cast<int>(clusters_.size()) ? &clusters_[static_cast<std::size_t>(row)] : nullptr;
}

const ClusterQuote* ClusterListModel::quoteOf(ClusterId id) const {
  auto it = quotes_.find(id);
  return it == quotes_.end() ? nullptr : &it->second;
}

int ClusterListModel::rowOf(ClusterId id) const {
  for (std::size_t i = 0; i < clusters_.size(); ++i) {
    if (clusters_[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

int ClusterListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(clusters_.size());
}
int ClusterListModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ClusterListModel::data(const QModelIndex& index, int role) const {
  const Cluster* c = clusterAt(index.row());
  if (!c) return {};
  if (role == ClusterIdRole) return c->id;
  if (role == Qt::ToolTipRole) {
    return tr("%1\n%2 nodes x %3 %4 (%5 GB), %6 %7 GB/s intra-node\n%8 %9 Gb/s per node, %10 gCO2/kWh")
        .arg(QString::fromStdString(c->name))
        .arg(c->nodeCount)
        .arg(c->gpusPerNode)
        .arg(toQString(toString(c->accelerator)))
        .arg(c->gpuMemoryGb)
        .arg(toQString(toString(c->intraNodeLink)))
        .arg(c->intraNodeGBps)
        .arg(toQString(toString(c->fabric)))
        .arg(c->fabricGbpsPerNode)
        .arg(c->carbonGramsPerKwh);
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  const ClusterQuote* q = quoteOf(c->id);
  auto price = [sort](const std::optional<Price>& p) -> QVariant {
    if (!p) return sort ? QVariant::fromValue<qlonglong>(std::numeric_limits<qlonglong>::max()) : QVariant();
    return sort ? QVariant::fromValue<qlonglong>(*p) : QVariant(formatPrice(*p));
  };
  switch (index.column()) {
    case Name: return QString::fromStdString(c->name);
    case Accelerator: return toQString(toString(c->accelerator));
    case Gpus: return c->totalGpus();
    case Region: return QString::fromStdString(c->region);
    case Fabric: return toQString(toString(c->fabric));
    case Provider: return QString::fromStdString(c->provider);
    case BestAsk: return q ? price(q->bestAsk) : price(std::nullopt);
    case BestBid: return q ? price(q->bestBid) : price(std::nullopt);
    case Last: return q ? price(q->lastTrade) : price(std::nullopt);
  }
  return {};
}

QVariant ClusterListModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Cluster", "GPU", "GPUs", "Region", "Fabric", "Provider", "Ask 24h", "Bid 24h", "Last"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
