#pragma once
// The option chain dock: options on the price index (docs/settlement.md, "Options"). Pick an
// accelerator class and a delivery period (month, quarter, year); the table lists the strikes
// with the bid, ask, reference value, implied volatility and delta of the call on the left and
// the put on the right, in dollars per GPU-hour. Clicking a call or put cell fills the ticket
// with that series and its price; Buy pays the premium, Write sells the option and posts the
// scenario margin. The panel only shows and asks; TradingSession does the rest.
#include "core/net/OptionViews.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace tessera::ui {

class OptionChainPanel : public QWidget {
  Q_OBJECT
 public:
  explicit OptionChainPanel(QWidget* parent = nullptr);

  void setAvailable(bool available, const QString& whyNot);
  void setChain(const net::OptionChainView& chain);
  void addNotice(const QString& text);

  Accelerator selectedAccelerator() const;
  // The order the ticket would send now for `side`.
  net::OptionNewOrder orderFor(Side side) const;
  // The chain table's columns: the call's five, the strike, the put's five.
  enum Column {
    CallBid,
    CallAsk,
    CallValue,
    CallIv,
    CallDelta,
    Strike,
    PutBid,
    PutAsk,
    PutValue,
    PutIv,
    PutDelta,
    Columns
  };

 signals:
  void chainWanted(tessera::Accelerator accelerator);
  void submitRequested(tessera::net::OptionNewOrder order);

 private:
  void fillTable();
  void pickCell(int row, int column);

  QComboBox* accelerator_;
  QComboBox* period_;
  QLabel* curve_;
  QLabel* status_;
  QTableWidget* table_;
  QComboBox* kind_;
  QDoubleSpinBox* strike_;
  QSpinBox* gpuHours_;
  QDoubleSpinBox* premium_;
  QPushButton* buy_;
  QPushButton* write_;
  QListWidget* notices_;
  net::OptionChainView chain_;
  bool available_ = false;
};

}  // namespace tessera::ui
Q_DECLARE_METATYPE(tessera::net::OptionNewOrder)
