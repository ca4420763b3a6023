#include "ui/account/AccountPanel.h"

#include "ui/shell/DisplayFormat.h"

#include <QFormLayout>
#include <QFrame>
#include <QLabel>

namespace tessera::ui {
namespace {

QString signedMoney(Money m) {
  return QStringLiteral("<span style='color:%1'>%2</span>").arg(m >= 0 ? "#2a2" : "#d33", formatMoney(m));
}

}  // namespace

Money accountTotal(const AccountSummary& a, const ForwardFigures& f) {
  if (!a.settlementKnown) return a.balance + a.markValue + f.margin + f.pnl;
  return a.balance + a.escrow - a.soldOnCost + a.proceedsDue + f.margin + a.unrealizedPnl() + f.pnl;
}

QLabel* AccountPanel::row(const QString& label, const char* objectName, const QString& tip) {
  auto* l = new QLabel(QStringLiteral("-"), this);
  l->setObjectName(objectName);
  l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  l->setToolTip(tip);
  // addRow gives the label a buddy, so a single & would be a shortcut marker: callers write &&.
  form_->addRow(label, l);
  return l;
}

AccountPanel::AccountPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("accountPanel");
  form_ = new QFormLayout(this);
  name_ = row(tr("Account"), "accountName");
  balance_ = row(tr("Cash balance"), "accountCash");
  reserved_ = row(tr("  reserved by bids"), "accountReserved",
                  tr("Cash held against working bids at their limits (and the margin of resting forward orders)."));
  available_ = row(tr("  available"), "accountAvailable");
  escrow_ = row(tr("+ In escrow"), "accountEscrow",
                tr("In escrow: paid at fill for contracted GPU-hours not yet delivered; released to the provider\n"
                   "as hours are delivered, refunded for hours that are not (by the billing basis)."));
  soldOn_ = row(tr("- Escrow, hours sold on"), "accountSoldOn",
                tr("The part of your escrow that still pays for GPU-hours you sold on to someone else:\n"
                   "it goes to the provider, not back to you."));
  proceeds_ = row(tr("+ Proceeds due"), "accountProceeds",
                  tr("Proceeds due: what the buyers of contracts you sold hold in escrow for you:\n"
                     "paid to your cash hour by hour as the hours are delivered."));
  forwardMargin_ = row(tr("+ Forward margin"), "accountForwardMargin",
                       tr("Margin your open forward positions hold (returned to cash when they settle)."));
  unrealised_ =
      row(tr("+ Unrealised P&&L"), "accountUnrealised",
          tr("Unrealised P&L of contracts: held GPU-hours still to come (after what you sold) at the best bid now\n"
             "(the last trade on the cluster when there is no bid), less what they cost."));
  forwardPnl_ = row(tr("+ Forwards' P&&L"), "accountForwardPnl",
                    tr("Open forward positions marked to the next-day price index of their class."));
  total_ = row(tr("= Total"), "accountTotal");
  auto* line = new QFrame(this);
  line->setFrameShape(QFrame::HLine);
  form_->addRow(line);
  realised_ = row(tr("Realised P&&L (sales)"), "accountRealised",
                  tr("What your sales made over the cost of the GPU-hours sold (taken from the\n"
                     "contracts bought on that cluster and hour before the sale, oldest first).\n"
                     "Already in the cash and the proceeds due above."));
  credits_ = row(tr("Uptime credits"), "accountCredits",
                 tr("Uptime credits received: what providers paid when a contract missed its uptime promise."));
  held_ = row(tr("Contracts held / orders"), "accountCounts");
  mark_ = row(tr("Held, at marks"), "accountMark",
              tr("Remaining held GPU-hours valued at the best bid now\n"
                 "(the last trade on the cluster when there is no bid)."));
}

void AccountPanel::setAccount(const AccountSummary& a, const ForwardFigures& f, std::size_t contractsHeld,
                              std::size_t workingOrders) {
  name_->setText(a.name);
  balance_->setText(formatMoney(a.balance));
  reserved_->setText(formatMoney(a.reserved));
  available_->setText(formatMoney(a.balance - a.reserved));
  if (a.settlementKnown) {
    escrow_->setText(formatMoney(a.escrow));
    soldOn_->setText(formatMoney(a.soldOnCost));
    proceeds_->setText(formatMoney(a.proceedsDue));
    credits_->setText(formatMoney(a.credits));
    total_->setToolTip(
        tr("Cash + escrow - escrow for hours sold on + proceeds due + forward margin\n"
           "+ unrealised P&L + forwards' P&L: what the account is worth with held hours at\n"
           "the book's marks and forwards at the index."));
  } else if (a.name.isEmpty()) {
    for (QLabel* l : {escrow_, soldOn_, proceeds_, credits_}) l->setText(QStringLiteral("-"));  // nothing heard yet
  } else {
    // The in-process engine moves cash at fill and nothing else: say so rather than show $0.00.
    for (QLabel* l : {escrow_, soldOn_, proceeds_, credits_}) {
      l->setText(tr("<i>n/a (in-process)</i>"));
      l->setToolTip(tr("The in-process engine has no settlement: purchases and sales are paid in cash at the fill."));
    }
    total_->setToolTip(
        tr("Cash + held hours at the book's marks (in-process, sales and purchases are paid in cash at the fill)."));
  }
  forwardMargin_->setText(formatMoney(f.margin));
  unrealised_->setText(signedMoney(a.unrealizedPnl()));
  forwardPnl_->setText(signedMoney(f.pnl));
  total_->setText(QStringLiteral("<b>%1</b>").arg(formatMoney(accountTotal(a, f))));
  realised_->setText(signedMoney(a.realisedPnl));
  held_->setText(tr("%1 / %2").arg(contractsHeld).arg(workingOrders));
  mark_->setText(formatMoney(a.markValue));
}

}  // namespace tessera::ui
