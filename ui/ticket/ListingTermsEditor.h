#pragma once
// The "Listing terms" section of the order ticket for sell orders: what is guaranteed (device
// count, location, fabric) versus estimated (TFLOPS per GPU), the billing basis, the uptime
// promise and the remedy (a credit per undelivered GPU-hour, or replacement within N hours).
// The last terms sent are remembered in QSettings.
#include "core/domain/OfferTerms.h"
#include "core/domain/Types.h"

#include <QGroupBox>
#include <QString>

#include <variant>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLineEdit;
class QSettings;
class QSpinBox;

namespace tessera::ui {

class ListingTermsEditor : public QGroupBox {
  Q_OBJECT
 public:
  explicit ListingTermsEditor(QWidget* parent = nullptr);

  // The terms the form describes for a listing of `windowHours` hours, or what is wrong.
  std::variant<OfferTerms, QString> terms(Hour windowHours) const;
  void setTerms(const OfferTerms& t);
  // The terms a new listing starts with before any were remembered.
  static OfferTerms defaults();

  void save(QSettings& s) const;
  void load(const QSettings& s);

  QCheckBox* deviceCountBox() const { return devices_; }
  QCheckBox* locationBox() const { return location_; }
  QCheckBox* fabricBox() const { return fabric_; }
  QLineEdit* tflopsEdit() const { return tflops_; }
  QComboBox* billingBox() const { return billing_; }
  QDoubleSpinBox* uptimeBox() const { return uptime_; }
  QComboBox* remedyBox() const { return remedy_; }
  QDoubleSpinBox* creditBox() const { return credit_; }
  QSpinBox* replaceWithinBox() const { return replaceWithin_; }

 signals:
  void changed();

 private:
  void updateRemedyRows();

  QFormLayout* form_;
  QCheckBox* devices_;
  QCheckBox* location_;
  QCheckBox* fabric_;
  QLineEdit* tflops_;
  QComboBox* billing_;
  QDoubleSpinBox* uptime_;
  QComboBox* remedy_;
  QDoubleSpinBox* credit_;
  QSpinBox* replaceWithin_;
};

}  // namespace tessera::ui
