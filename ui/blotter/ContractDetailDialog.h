#pragma once
// One contract in detail: its facts, and for a contract the account bought, what is held of it
// after its sales as a step function of GPUs over its hours (chart and table), with the P&L
// realised on the GPU-hours sold and the remaining held hours marked to the book.
#include "ui/blotter/ClusterNames.h"
#include "ui/session/SessionTypes.h"

#include <QDialog>

class QCustomPlot;
class QTableWidget;

namespace tessera::ui {

class ContractDetailDialog : public QDialog {
  Q_OBJECT
 public:
  // `held`: the contract's shape and marks when the account bought it (null for one it sold).
  ContractDetailDialog(const Contract& contract, const ContractMark* held, Hour now, const ClusterNames& names,
                       QWidget* parent = nullptr);
  QCustomPlot* chart() const { return chart_; }
  QTableWidget* steps() const { return steps_; }

 private:
  QCustomPlot* chart_ = nullptr;
  QTableWidget* steps_ = nullptr;
};

}  // namespace tessera::ui
