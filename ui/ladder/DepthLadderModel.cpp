#include "ui/ladder/DepthLadderModel.h"

#include "ui/shell/DisplayFormat.h"

#include <QBrush>
#include <QColor>
#include <QFont>

#include <algorithm>
#include <map>

namespace tessera::ui {

DepthLadderModel::DepthLadderModel(QObject* parent) : QAbstractTableModel(parent) {}

std::vector<LadderRow> DepthLadderModel::rowsOf(const BookSnapshot& book, const std::vector<OrderView>& own, Hour first,
                                                Hour end) {
  // (side, price) -> fewest GPUs over the hours; a price missing from one hour has none there.
  std::map<std::pair<Side, Price>, GpuCount> levels;
  bool firstHour = true;
  for (Hour h = first; h < end; ++h) {
    const BookCell* cell = book.cell(h);
    std::map<std::pair<Side, Price>, GpuCount> here;
    if (cell) {
      for (const BookLevel& l : cell->asks) here[{Side::Sell, l.price}] += l.gpus;
      for (const BookLevel& l : cell->bids) here[{Side::Buy, l.price}] += l.gpus;
    }
    if (firstHour) {
      levels = std::move(here);
      firstHour = false;
      continue;
    }
    for (auto it = levels.begin(); it != levels.end();) {
      const auto x = here.find(it->first);
      if (x == here.end()) {
        it = levels.erase(it);
      } else {
        it->second = std::min(it->second, x->second);
        ++it;
      }
    }
  }
  std::map<std::pair<Side, Price>, GpuCount> mine;
  for (const OrderView& o : own) {
    const OrderRequest& r = o.request;
    if (!r.cluster || std::find(book.clusters.begin(), book.clusters.end(), *r.cluster) == book.clusters.end())
      continue;
    if (r.end <= first || r.start >= end) continue;
    mine[{r.side, r.limit}] += r.gpus;
  }
  std::vector<LadderRow> rows;
  for (const auto& [key, gpus] : levels) rows.push_back(LadderRow{key.second, key.first, gpus, 0});
  for (const auto& [key, gpus] : mine) {
    auto it = std::find_if(rows.begin(), rows.end(),
                           [&](const LadderRow& r) { return r.side == key.first && r.price == key.second; });
    if (it != rows.end())
      it->ownGpus = gpus;
    else
      rows.push_back(LadderRow{key.second, key.first, 0, gpus});
  }
  // Highest price first; at one price the ask above the bid.
  std::sort(rows.begin(), rows.end(), [](const LadderRow& a, const LadderRow& b) {
    if (a.price != b.price) return a.price > b.price;
    return a.side == Side::Sell && b.side == Side::Buy;
  });
  return rows;
}

void DepthLadderModel::setState(const BookSnapshotPtr& book, const std::vector<OrderView>& own, Hour first, Hour end) {
  std::vector<LadderRow> rows;
  const bool covered = book && end > first && book->cell(first) && book->cell(end - 1);
  if (covered) rows = rowsOf(*book, own, first, end);
  if (rows == rows_ && first == first_ && end == end_ && covered == covered_) return;
  beginResetModel();
  rows_ = std::move(rows);
  first_ = first;
  end_ = end;
  covered_ = covered;
  endResetModel();
}

const LadderRow* DepthLadderModel::rowAt(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? &rows_[static_cast<std::size_t>(row)] : nullptr;
}

int DepthLadderModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int DepthLadderModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DepthLadderModel::data(const QModelIndex& index, int role) const {
  const LadderRow* r = rowAt(index.row());
  if (!r) return {};
  const bool ask = r->side == Side::Sell;
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignCenter);
  if (role == Qt::BackgroundRole) {
    if (index.column() == Bids && !ask && r->gpus) return QBrush(QColor(40, 120, 220, 70));
    if (index.column() == Asks && ask && r->gpus) return QBrush(QColor(220, 70, 60, 70));
    if ((index.column() == MyBids && !ask && r->ownGpus) || (index.column() == MyAsks && ask && r->ownGpus))
      return QBrush(QColor(230, 170, 40, 90));
    return {};
  }
  if (role == Qt::FontRole && index.column() == PriceColumn) {
    QFont f;
    f.setBold(true);
    return f;
  }
  if (role == Qt::ToolTipRole) {
    const QString level = ask ? tr("%1 GPUs offered at %2/GPU-h.").arg(r->gpus).arg(formatPrice(r->price))
                              : tr("%1 GPUs bid at %2/GPU-h.").arg(r->gpus).arg(formatPrice(r->price));
    return level + tr("\nClick the bid side to buy at this price, the ask side to sell.");
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case MyBids: return !ask && r->ownGpus ? QVariant(r->ownGpus) : QVariant();
    case Bids: return !ask && r->gpus ? QVariant(r->gpus) : QVariant();
    case PriceColumn: return formatPrice(r->price);
    case Asks: return ask && r->gpus ? QVariant(r->gpus) : QVariant();
    case MyAsks: return ask && r->ownGpus ? QVariant(r->ownGpus) : QVariant();
  }
  return {};
}

QVariant DepthLadderModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    static const char* tips[] = {"GPUs of your working bids at this price", "GPUs bid at this price",
                                 "Price per GPU-hour", "GPUs offered at this price",
                                 "GPUs of your working offers at this price"};
    return section >= 0 && section < ColumnCount ? tr(tips[section]) : QVariant();
  }
  if (role != Qt::DisplayRole) return {};
  static const char* names[] = {"My bids", "Bids (GPUs)", "$/GPU-h", "Asks (GPUs)", "My asks"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
