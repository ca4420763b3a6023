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
  held_ = label();
  mark_ = label();
  pnl_ = label();
  f->addRow(tr("Account"), name_);
  f->addRow(tr("Cash balance"), balance_);
  f->addRow(tr("Reserved by working bids"), reserved_);
  f->addRow(tr("Available"), available_);
  f->addRow(tr("Contracts held / orders"), held_);
  f->addRow(tr("Held, marked to book"), mark_);
  f->addRow(tr("Unrealised P&L"), pnl_);
  mark_->setToolTip(tr("Remaining hours of held contracts valued at the best bid now\n"
                       "(the last trade on the cluster when there is no bid)."));
}

void AccountPanel::setAccount(const AccountSummary& a, std::size_t contractsHeld, std::size_t workingOrders) {
  name_->setText(a.name);
  balance_->setText(formatMoney(a.balance));
  reserved_->setText(formatMoney(a.reserved));
  available_->setText(formatMoney(a.balance - a.reserved));
  held_->setText(tr("%1 / %2").arg(contractsHeld).arg(workingOrders));
  mark_->setText(formatMoney(a.markValue));
  const Money pnl = a.unrealizedPnl();
  pnl_->setText(QStringLiteral("<b style='color:%1'>%2</b>").arg(pnl >= 0 ? "#2a2" : "#d33", formatMoney(pnl)));
}

}  // namespace tessera::ui
