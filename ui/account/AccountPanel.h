#pragma once
// The account panel: cash balance, cash reserved by working bids, escrow paid for GPU-hours
// not yet delivered, uptime credits received, and held contracts marked to the current book.
#include "ui/session/SessionTypes.h"

#include <QWidget>

class QLabel;

namespace tessera::ui {

class AccountPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AccountPanel(QWidget* parent = nullptr);
  void setAccount(const AccountSummary& a, std::size_t contractsHeld, std::size_t workingOrders);

 private:
  QLabel* name_;
  QLabel* balance_;
  QLabel* reserved_;
  QLabel* available_;
  QLabel* escrow_;
  QLabel* credits_;
  QLabel* held_;
  QLabel* mark_;
  QLabel* pnl_;
};

}  // namespace tessera::ui
