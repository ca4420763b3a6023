#pragma once
// The order ticket: every order type the engine trades, a live quote from the book
// (total if filled now, average price, whether it fills all-or-none now), Enter to submit,
// Escape to cancel, and a confirmation above a configurable size.
#include "ui/grid/OrderBookGridView.h"
#include "ui/session/FillQuote.h"

#include <QWidget>

#include <variant>

class QCheckBox;
class QComboBox;
class QDateTimeEdit;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QGroupBox;
class QFormLayout;

namespace tessera::ui {

class ListingTermsEditor;

enum class TicketKind { AllOrNoneBuy, DivisibleBuy, DivisibleSell, FlexibleBuy, ConstraintBuy, SellBack };

class OrderTicket : public QWidget {
  Q_OBJECT
 public:
  explicit OrderTicket(QWidget* parent = nullptr);

  void setClusters(const std::vector<Cluster>& clusters);
  void setContracts(const std::vector<Contract>& contracts, AccountId me);
  void setBook(BookSnapshotPtr book);
  void setNow(Hour now);
  // Orders of more GPU-hours than this ask for confirmation first (0: always ask).
  void setConfirmAboveGpuHours(std::int64_t gpuHours) { confirmAbove_ = gpuHours; }
  std::int64_t confirmAboveGpuHours() const { return confirmAbove_; }

  // Fills the ticket from a rectangle dragged on the grid.
  void prefill(ClusterId cluster, const GridSelection& selection);
  void setKind(TicketKind kind);
  TicketKind kind() const;

  // The order the form describes, or what is wrong with it.
  std::variant<OrderRequest, QString> order() const;
  // The quote for the current form, if the book shows its cluster.
  std::optional<FillQuote> quote() const;
  QString quoteText() const;
  // Buy orders: the terms of the best asks in the window the order would trade against.
  QString askTermsText() const;
  ListingTermsEditor* listingTerms() const { return terms_; }

  ClusterId clusterId() const;
  GpuCount gpus() const;
  Hour start() const;
  Hour end() const;
  Price limit() const;

 public slots:
  // Validates, asks for confirmation if large, then emits submitRequested.
  void submit();
  void cancel();

 signals:
  void submitRequested(const tessera::OrderRequest& order);
  void cancelled();
  void invalidOrder(const QString& why);

 private:
  void updateVisibility();
  void refreshQuote();
  void fillFromContract();

  QComboBox* kind_;
  QComboBox* cluster_;
  QComboBox* contract_;
  QSpinBox* gpus_;
  QDateTimeEdit* start_;
  QDateTimeEdit* end_;
  QSpinBox* duration_;
  QDoubleSpinBox* limit_;
  QComboBox* tif_;
  QDateTimeEdit* expire_;
  QCheckBox* postOnly_;
  QGroupBox* constraints_;
  QListWidget* accelerators_;
  QSpinBox* minMemory_;
  QLineEdit* regions_;
  QComboBox* minFabric_;
  QSpinBox* maxCarbon_;
  ListingTermsEditor* terms_;
  QLabel* askTerms_;
  QLabel* quote_;
  QPushButton* submit_;
  QPushButton* cancel_;
  QFormLayout* form_;

  std::vector<Cluster> clusters_;
  std::vector<Contract> contracts_;
  BookSnapshotPtr book_;
  Hour now_ = 0;
  std::int64_t confirmAbove_ = 100'000;
  bool limitTouched_ = false;
};

}  // namespace tessera::ui
