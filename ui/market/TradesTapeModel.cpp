#include "ui/market/TradesTapeModel.h"

#include "ui/shell/DisplayFormat.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace tessera::ui {

TradesTapeModel::TradesTapeModel(ClusterNames names, QObject* parent)
    : QAbstractTableModel(parent), names_(std::move(names)) {}

void TradesTapeModel::addTrades(const std::vector<TradePrint>& trades) {
  if (trades.empty()) return;
  const std::size_t n = std::min(trades.size(), kRows);
  beginInsertRows({}, 0, static_cast<int>(n) - 1);
  for (std::size_t i = trades.size() - n; i < trades.size(); ++i) trades_.push_front(trades[i]);
  endInsertRows();
  if (trades_.size() > kRows) {
    beginRemoveRows({}, static_cast<int>(kRows), static_cast<int>(trades_.size()) - 1);
    trades_.resize(kRows);
    endRemoveRows();
  }
}

const TradePrint* TradesTapeModel::tradeAt(int row) const {
  return row >= 0 && row < static_cast<int>(trades_.size()) ? &trades_[static_cast<std::size_t>(row)] : nullptr;
}

int TradesTapeModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(trades_.size());
}
int TradesTapeModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TradesTapeModel::data(const QModelIndex& index, int role) const {
  const TradePrint* t = tradeAt(index.row());
  if (!t) return {};
  if (role == Qt::FontRole && t->mine) {
    QFont f;
    f.setBold(true);
    return f;
  }
  if (role == Qt::ForegroundRole && index.column() == Price) {
    if (!t->aggressor) return QBrush(QColor(60, 110, 200));  // a call's price: neither side took
    return QBrush(*t->aggressor == Side::Buy ? QColor(40, 170, 70) : QColor(220, 60, 60));
  }
  if (role == Qt::TextAlignmentRole && (index.column() == Price || index.column() == Gpus || index.column() == Hours))
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole) {
    return tr("Traded at exchange hour %1: %2 GPUs of %3 for %4 h from %5 at %6/GPU-h (%7)")
        .arg(formatHour(t->exchangeTime))
        .arg(t->gpus)
        .arg(names_(t->cluster))
        .arg(t->end - t->start)
        .arg(formatHour(t->start), formatPrice(t->price),
             !t->aggressor ? tr("cleared at call %1: every order waited for the call and trades at the "
                                "hour's clearing price, so nobody took liquidity")
                                 .arg(t->call)
             : *t->aggressor == Side::Buy ? tr("the buyer took the offer")
                                          : tr("the seller hit the bid"));
  }
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Time: return formatHourShort(t->exchangeTime);  // the day is in the tooltip
    case Cluster: return names_(t->cluster) + (t->mine ? tr("  (mine)") : QString());
    case Gpus: return t->gpus;
    case Start: return formatHour(t->start);
    case Hours: return QVariant::fromValue<qlonglong>(t->end - t->start);
    case Price: return formatPrice(t->price);
    case Aggressor:
      if (!t->aggressor) return tr("at call %1").arg(t->call);
      return *t->aggressor == Side::Buy ? tr("buyer took") : tr("seller hit");
  }
  return {};
}

QVariant TradesTapeModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Time", "$/GPU-h", "GPUs", "Hours", "Delivery from", "Cluster", "Aggressor"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tessera::ui
