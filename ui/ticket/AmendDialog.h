#pragma once
// Amend a working order's limit and/or GPUs, from the grid or the blotter. Fields are read as
// typed (TicketInput); a value that cannot be sent shows its reason and disables OK.
#include "core/domain/Order.h"

#include <QDialog>

#include <optional>

class QLabel;
class QLineEdit;
class QPushButton;

namespace tessera::ui {

class AmendDialog : public QDialog {
  Q_OBJECT
 public:
  // `shownId`: the id the trader knows the order by; `maxGpus`: the cluster's GPUs.
  AmendDialog(const OrderRequest& order, OrderId shownId, GpuCount maxGpus, const QString& description,
              QWidget* parent = nullptr);

  // What changes (nullopt: unchanged); only meaningful when accepted.
  std::optional<Price> newLimit() const;
  std::optional<GpuCount> newGpus() const;
  QString problem() const;

 private:
  void validate();

  OrderRequest order_;
  GpuCount maxGpus_;
  QLineEdit* limit_;
  QLineEdit* gpus_;
  QLabel* reason_;
  QPushButton* ok_;
};

}  // namespace tessera::ui
