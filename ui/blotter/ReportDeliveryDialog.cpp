#include "ui/blotter/ReportDeliveryDialog.h"

#include "ui/session/SettlementState.h"
#include "ui/shell/DisplayFormat.h"

#include <QComboBox>
#include <QDateTimeEdit>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace tessera::ui {
namespace {

QDateTimeEdit* hourEdit(QWidget* parent, Hour h) {
  auto* e = new QDateTimeEdit(parent);
  e->setTimeSpec(Qt::UTC);
  e->setDisplayFormat(QStringLiteral("yyyy-MM-dd HH:00 'UTC'"));
  e->setDateTime(dateTimeOfHour(h));
  return e;
}

}  // namespace

ReportDeliveryDialog::ReportDeliveryDialog(const Contract& contract, Hour now, QWidget* parent)
    : QDialog(parent), contract_(contract), now_(now) {
  setObjectName("reportDeliveryDialog");
  setWindowTitle(tr("Report delivery problem: contract #%1").arg(contract.id));
  auto* outer = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Contract #%1: %2 GPUs, %3 to %4 UTC. Hours before the exchange clock (%5) are settled "
                              "and can no longer be reported.")
                               .arg(contract.id)
                               .arg(contract.gpus)
                               .arg(formatHour(contract.start), formatHour(contract.end), formatHour(now)),
                           this);
  intro->setWordWrap(true);
  outer->addWidget(intro);
  auto* form = new QFormLayout;
  outer->addLayout(form);
  const Hour first = std::max(contract.start, now);
  from_ = hourEdit(this, first);
  from_->setObjectName("reportFrom");
  to_ = hourEdit(this, std::min(contract.end, first + 1));
  to_->setObjectName("reportTo");
  form->addRow(tr("&From"), from_);
  form->addRow(tr("&Until"), to_);
  problem_ = new QComboBox(this);
  problem_->setObjectName("reportProblem");
  for (DeliveryProblem p :
       {DeliveryProblem::MissingGpus, DeliveryProblem::LinkDegraded, DeliveryProblem::PowerCurtailed})
    problem_->addItem(deliveryProblemLabel(p), static_cast<int>(p));
  form->addRow(tr("&Problem"), problem_);
  usable_ = new QSpinBox(this);
  usable_->setObjectName("reportUsable");
  usable_->setRange(0, contract.gpus);
  usable_->setValue(std::max(0, contract.gpus - 1));
  usable_->setSuffix(tr(" of %1 GPUs").arg(contract.gpus));
  form->addRow(tr("&Usable GPUs"), usable_);
  check_ = new QLabel(this);
  check_->setObjectName("reportCheck");
  check_->setWordWrap(true);
  outer->addWidget(check_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Report"));
  connect(buttons, &QDialogButtonBox::accepted, this, &ReportDeliveryDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  outer->addWidget(buttons);
  connect(from_, &QDateTimeEdit::dateTimeChanged, this, &ReportDeliveryDialog::refresh);
  connect(to_, &QDateTimeEdit::dateTimeChanged, this, &ReportDeliveryDialog::refresh);
  connect(usable_, &QSpinBox::valueChanged, this, &ReportDeliveryDialog::refresh);
  connect(problem_, &QComboBox::currentIndexChanged, this, [this] {
    // A degraded link or curtailed power usually leaves every GPU there, just slower.
    if (static_cast<DeliveryProblem>(problem_->currentData().toInt()) != DeliveryProblem::MissingGpus)
      usable_->setValue(contract_.gpus);
    refresh();
  });
  refresh();
}

std::variant<DeliveryReport, QString> ReportDeliveryDialog::report() const {
  DeliveryReport r;
  r.contract = contract_.id;
  r.start = hourOfDateTime(from_->dateTime());
  r.end = hourOfDateTime(to_->dateTime());
  r.usableGpus = usable_->value();
  r.problem = static_cast<DeliveryProblem>(problem_->currentData().toInt());
  if (r.end <= r.start) return tr("The end must be after the start.");
  if (r.start < contract_.start || r.end > contract_.end)
    return tr("The hours must lie within the contract, %1 to %2.")
        .arg(formatHour(contract_.start), formatHour(contract_.end));
  if (r.start < now_) return tr("Hours before %1 are already settled; report from %1 on.").arg(formatHour(now_));
  if (r.problem == DeliveryProblem::MissingGpus && r.usableGpus >= contract_.gpus)
    return tr("With GPUs missing, fewer than all %1 are usable.").arg(contract_.gpus);
  return r;
}

void ReportDeliveryDialog::refresh() {
  const auto r = report();
  if (const QString* why = std::get_if<QString>(&r)) {
    check_->setText(QStringLiteral("<b style='color:#d33'>%1</b>").arg(why->toHtmlEscaped()));
    return;
  }
  const DeliveryReport& x = std::get<DeliveryReport>(r);
  check_->setText(tr("%1 for %2 h: %3 of %4 GPUs usable. The exchange applies the contract's remedy.")
                      .arg(deliveryProblemLabel(x.problem))
                      .arg(x.end - x.start)
                      .arg(x.usableGpus)
                      .arg(contract_.gpus));
}

void ReportDeliveryDialog::accept() {
  if (std::holds_alternative<DeliveryReport>(report())) QDialog::accept();
}

}  // namespace tessera::ui
