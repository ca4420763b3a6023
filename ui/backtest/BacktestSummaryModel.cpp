#include "ui/backtest/BacktestSummaryModel.h"

#include "core/settlement/ContractSettlement.h"
#include "core/settlement/CountText.h"

namespace tessera::ui {
namespace {
QString usd(Money micros) { return QString::fromStdString(toDollars(micros)); }
QString count(std::int64_t n) { return QString::fromStdString(withThousands(n)); }
QString perHour(qint64 micros) {
  return micros == 0 ? QStringLiteral("n/a")
                     : QStringLiteral("$%1/GPU-h").arg(static_cast<double>(micros) / 1e6, 0, 'f', 4);
}
}  // namespace

void BacktestSummaryModel::setResult(const backtest::BacktestResult& r, double seconds) {
  beginResetModel();
  const auto& s = r.summary;
  rows_ = {
      {tr("P&L"), usd(s.finalEquity)},
      {tr("Cash"), usd(s.finalCash)},
      {tr("Max drawdown"), usd(s.maxDrawdown)},
      {tr("Fill rate"), QStringLiteral("%1 %").arg(s.fillRate * 100, 0, 'f', 1)},
      {tr("Fills / contracts"), QStringLiteral("%1 / %2").arg(count(s.fills), count(s.contracts))},
      {tr("Orders placed / rejected"), QStringLiteral("%1 / %2").arg(count(s.ordersPlaced), count(s.ordersRejected))},
      {tr("Bought / sold GPU-h"), QStringLiteral("%1 / %2").arg(count(s.boughtGpuHours), count(s.soldGpuHours))},
      {tr("Average paid"), perHour(s.averagePaid)},
      {tr("Market VWAP (same clusters)"), perHour(s.marketVwap)},
      {tr("Effective cost per useful GPU-h"), perHour(s.effectiveCostPerUsefulGpuHour)},
      {tr("Unfilled demand"),
       QStringLiteral("%1 of %2 GPU-h").arg(count(s.unfilledDemandGpuHours), count(s.demandGpuHours))},
      {tr("Replay"), QStringLiteral("%1 inputs in %2 s").arg(count(r.inputs)).arg(seconds, 0, 'f', 2)},
  };
  endResetModel();
}

void BacktestSummaryModel::clear() {
  beginResetModel();
  rows_.clear();
  endResetModel();
}

int BacktestSummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}
int BacktestSummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 2; }

QVariant BacktestSummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const auto& r = rows_[static_cast<std::size_t>(index.row())];
  if (role == Qt::DisplayRole) return index.column() == 0 ? r.first : r.second;
  if (role == Qt::TextAlignmentRole && index.column() == 1) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant BacktestSummaryModel::headerData(int section, Qt::Orientation o, int role) const {
  if (role != Qt::DisplayRole || o != Qt::Horizontal) return {};
  return section == 0 ? tr("Figure") : tr("Value");
}

}  // namespace tessera::ui
