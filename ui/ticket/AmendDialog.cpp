#include "ui/ticket/AmendDialog.h"

#include "ui/ticket/TicketInput.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tessera::ui {

AmendDialog::AmendDialog(const OrderRequest& order, OrderId shownId, GpuCount maxGpus, const QString& description,
                         QWidget* parent)
    : QDialog(parent), order_(order), maxGpus_(maxGpus) {
  setObjectName("amendDialog");
  setWindowTitle(tr("Amend order #%1").arg(shownId));
  auto* v = new QVBoxLayout(this);
  auto* what = new QLabel(description, this);
  what->setWordWrap(true);
  v->addWidget(what);
  auto* form = new QFormLayout;
  limit_ = new QLineEdit(limitText(order.limit), this);
  limit_->setObjectName("amendLimit");
  gpus_ = new QLineEdit(QString::number(order.gpus), this);
  gpus_->setObjectName("amendGpus");
  form->addRow(tr("Limit $/GPU-h"), limit_);
  form->addRow(tr("GPUs"), gpus_);
  v->addLayout(form);
  auto* note = new QLabel(
      tr("Fewer GPUs at the same price keep the order's place in the queue; anything else re-queues it."), this);
  note->setWordWrap(true);
  v->addWidget(note);
  reason_ = new QLabel(this);
  reason_->setObjectName("amendReason");
  reason_->setWordWrap(true);
  reason_->setStyleSheet(QStringLiteral("color:#e5484d; font-weight:600;"));
  v->addWidget(reason_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  ok_->setText(tr("Amend"));
  v->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, [this] {
    if (problem().isEmpty()) accept();
  });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(limit_, &QLineEdit::textChanged, this, &AmendDialog::validate);
  connect(gpus_, &QLineEdit::textChanged, this, &AmendDialog::validate);
  validate();
  resize(460, sizeHint().height());
}

std::optional<Price> AmendDialog::newLimit() const {
  const auto p = parseLimitPrice(limit_->text());
  if (const Price* x = std::get_if<Price>(&p); x && *x != order_.limit) return *x;
  return std::nullopt;
}

std::optional<GpuCount> AmendDialog::newGpus() const {
  const auto g = parseWholeNumber(gpus_->text(), tr("GPUs"), 1, maxGpus_);
  if (const auto* x = std::get_if<std::int64_t>(&g); x && *x != order_.gpus) return static_cast<GpuCount>(*x);
  return std::nullopt;
}

QString AmendDialog::problem() const {
  if (const auto p = parseLimitPrice(limit_->text()); std::holds_alternative<QString>(p))
    return tr("Limit: %1").arg(std::get<QString>(p));
  const auto g = parseWholeNumber(gpus_->text(), tr("GPUs"), 1, maxGpus_);
  if (std::holds_alternative<QString>(g)) return tr("GPUs: %1").arg(std::get<QString>(g));
  if (!newLimit() && !newGpus()) return tr("Change the limit or the GPUs to amend.");
  return {};
}

void AmendDialog::validate() {
  const QString why = problem();
  reason_->setText(why);
  ok_->setEnabled(why.isEmpty());
}

}  // namespace tessera::ui
