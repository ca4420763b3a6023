#include "ui/account/AccountPanel.h"

#include "ui/shell/DisplayFormat.h"

#include <QFormLayout>
#include <QLabel>

namespace tessera::ui {

AccountPanel::AccountPanel(QWidget* parent) : QWidget(parent) {
  setObjectName("accountPanel");
  auto* f = new QFormLayout(this);
  auto label = [this] {
    auto* l = new QLabel(QStringLiteral("-"), this);
    l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
  };
  name_ = label();
  balance_ = label();
  reserved_ = label();
  available_ = label();
  escrow_ = label();
  escrow_->setObjectName("accountEscrow");
  credits_ = label();
  credits_->setObjectName("accountCredits");
  held_ = label();
  mark_ = label();
  pnl_ = label();
  f->addRow(tr("Account"), name_);
  f->addRow(tr("Cash balance"), balance_);
  f->addRow(tr("Reserved by working bids"), reserved_);
  f->addRow(tr("Available"), available_);
  f->addRow(tr("In escrow (undelivered)"), escrow_);
  f->addRow(tr("Uptime credits received"), credits_);
  f->addRow(tr("Contracts held / orders"), held_);
  f->addRow(tr("Held, marked to book"), mark_);
  // addRow gives the label a buddy, so a single & would be a shortcut marker.
  f->addRow(tr("Unrealised P&&L"), pnl_);
  escrow_->setToolTip(tr("Paid at fill for contracted GPU-hours not yet delivered; released to the provider\n"
                         "as hours are delivered, refunded for hours that are not (by the billing basis)."));
  credits_->setToolTip(tr("Credits the providers paid when a contract missed its uptime promise."));
  mark_->setToolTip(tr("Remaining hours of held contracts valued at the best bid now\n"
                       "(the last trade on the cluster when there is no bid)."));
}

void AccountPanel::setAccount(const AccountSummary& a, std::size_t contractsHeld, std::size_t workingOrders) {
  name_->setText(a.name);
  balance_->setText(formatMoney(a.balance));
  reserved_->setText(formatMoney(a.reserved));
  available_->setText(formatMoney(a.balance - a.reserved));
  if (a.settlementKnown) {
    escrow_->setText(formatMoney(a.escrow));
    credits_->setText(formatMoney(a.credits));
  } else {
    // The in-process engine moves cash at fill and nothing else: say so rather than show $0.00.
    for (QLabel* l : {escrow_, credits_}) l->setText(tr("<i>n/a (no settlement in-process)</i>"));
  }
  held_->setText(tr("%1 / %2").arg(contractsHeld).arg(workingOrders));
  mark_->setText(formatMoney(a.markValue));
  const Money pnl = a.unrealizedPnl();
  pnl_->setText(QStringLiteral("<b style='color:%1'>%2</b>").arg(pnl >= 0 ? "#2a2" : "#d33", formatMoney(pnl)));
}

}  // namespace tessera::ui
