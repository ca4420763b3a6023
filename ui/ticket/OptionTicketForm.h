#pragma once
// The order ticket's option mode (docs/settlement.md, "Options"): a European call or put on the
// price index of an accelerator class, per delivery period, bought (paying the premium) or
// written (receiving it and posting the scenario margin). Every field is read exactly as typed
// (TicketInput); a value that cannot be sent shows its reason under the field. Beside the order
// the form shows what the exchange says the series is worth: the chain's reference value, delta
// and book for a listed strike; for any other strike the same Black-76 pricing
// (core/options/OptionPricing) on the chain's forward for the period and its volatility; and the
// volatility the typed premium implies.
#include "core/net/OptionViews.h"

#include <QWidget>

#include <map>
#include <variant>

class QComboBox;
class QLabel;
class QLineEdit;

namespace tessera::ui {

class OptionTicketForm : public QWidget {
  Q_OBJECT
 public:
  explicit OptionTicketForm(QWidget* parent = nullptr);

  // The exchange's hour: the listed delivery periods follow it.
  void setNow(Hour now);
  // A chain from the exchange (any class; the form keeps the last one of each).
  void setChain(const net::OptionChainView& chain);
  // Fills the form with a series, a side and, if given, a premium (a click on the chain), and
  // puts the focus on the notional.
  void prefill(const indexoptions::OptionSeries& series, Side side, std::optional<Price> premium);

  Accelerator accelerator() const;
  // The order the form describes (its cl_ord_id empty), or the first reason it cannot be sent.
  std::variant<net::OptionNewOrder, QString> order() const;
  // Shows each field's reason under it and refreshes the reference line.
  void validate();
  // The reference value, delta, book and implied volatility of the series the form names.
  QString referenceText() const;

 signals:
  void changed();
  // The form's class changed: its chain is wanted from the exchange.
  void chainWanted(tessera::Accelerator accelerator);

 private:
  void fillPeriods();
  std::optional<indexoptions::DeliveryPeriod> period() const;
  std::optional<indexoptions::OptionSeries> series() const;

  QComboBox* accelerator_;
  QComboBox* period_;
  QComboBox* kind_;
  QLineEdit* strike_;
  QComboBox* side_;
  QLineEdit* gpuHours_;
  QLineEdit* premium_;
  QLabel* strikeError_;
  QLabel* gpuHoursError_;
  QLabel* premiumError_;
  QLabel* reference_;
  Hour now_ = 0;
  std::map<Accelerator, net::OptionChainView> chains_;
  // Until the trader types a strike or picks a series, the strike follows the chain: the listed
  // strike nearest the period's forward.
  bool strikeChosen_ = false;
  void offerStrike();
};

}  // namespace tessera::ui
