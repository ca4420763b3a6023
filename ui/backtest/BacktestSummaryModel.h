#pragma once
// The figures of one backtest as a two-column table (figure, value) for the dock.
#include "backtest/BacktestResult.h"

#include <QAbstractTableModel>
#include <QString>

#include <vector>

namespace tessera::ui {

class BacktestSummaryModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  using QAbstractTableModel::QAbstractTableModel;
  void setResult(const backtest::BacktestResult& r, double seconds);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation o, int role) const override;

 private:
  std::vector<std::pair<QString, QString>> rows_;
};

}  // namespace tessera::ui
