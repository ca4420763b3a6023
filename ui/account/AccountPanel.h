#pragma once
// The account panel: cash (and what working bids reserve of it), escrow, what buyers of
// contracts sold still owe, forward margin, the P&L of held contracts marked to the book and of
// forwards marked to the index, one total that is the sum of the rows above it, and the P&L
// realised by sales. Every figure comes from the exchange's balance and positions (the held
// shapes of HeldPositions), so each can be checked against the exchange's ledger.
#include "ui/session/SessionTypes.h"

#include <QWidget>

class QFormLayout;
class QLabel;

namespace tessera::ui {

// Open forward positions: margin held and P&L at the index.
struct ForwardFigures {
  Money margin = 0;
  Money pnl = 0;
};

// The account's worth with held contracts at the book's marks and forwards at the index.
// A market that settles: cash + escrow - escrow for hours sold on + proceeds due + forward margin
// + unrealised P&L + forwards' P&L (escrow less what it pays for hours sold on is the cost of the
// held hours still to come, so this is cash + held hours at the marks + proceeds due + forwards).
// In-process (cash moves at the fill, no escrow): cash + held hours at the marks.
[[nodiscard]] Money accountTotal(const AccountSummary& a, const ForwardFigures& f);

class AccountPanel : public QWidget {
  Q_OBJECT
 public:
  explicit AccountPanel(QWidget* parent = nullptr);
  void setAccount(const AccountSummary& a, const ForwardFigures& forwards, std::size_t contractsHeld,
                  std::size_t workingOrders);

 private:
  QLabel* row(const QString& label, const char* objectName, const QString& tip = {});
  QFormLayout* form_;
  QLabel* name_;
  QLabel* balance_;
  QLabel* reserved_;
  QLabel* available_;
  QLabel* escrow_;
  QLabel* soldOn_;
  QLabel* proceeds_;
  QLabel* forwardMargin_;
  QLabel* unrealised_;
  QLabel* forwardPnl_;
  QLabel* total_;
  QLabel* realised_;
  QLabel* credits_;
  QLabel* held_;
  QLabel* mark_;
};

}  // namespace tessera::ui
