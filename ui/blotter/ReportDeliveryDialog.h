#pragma once
// "Report delivery problem..." for a contract the account sold: for which hours, how many of
// the contract's GPUs were usable, and what went wrong (GPUs missing, link degraded, power
// curtailed). The exchange applies the contract's remedy.
#include "core/engine/Events.h"
#include "core/settlement/ContractSettlement.h"

#include <QDialog>
#include <QString>

#include <variant>

class QComboBox;
class QDateTimeEdit;
class QLabel;
class QSpinBox;

namespace tessera::ui {

class ReportDeliveryDialog : public QDialog {
  Q_OBJECT
 public:
  ReportDeliveryDialog(const Contract& contract, Hour now, QWidget* parent = nullptr);

  // The report the form describes, or what is wrong with it.
  std::variant<DeliveryReport, QString> report() const;

  QDateTimeEdit* fromEdit() const { return from_; }
  QDateTimeEdit* toEdit() const { return to_; }
  QSpinBox* usableBox() const { return usable_; }
  QComboBox* problemBox() const { return problem_; }

  void accept() override;  // only a valid report closes the dialog

 private:
  void refresh();

  Contract contract_;
  Hour now_;
  QDateTimeEdit* from_;
  QDateTimeEdit* to_;
  QSpinBox* usable_;
  QComboBox* problem_;
  QLabel* check_;
};

}  // namespace tessera::ui
