#pragma once
// The option chain dock: options on the price index (docs/settlement.md, "Options"). Pick an
// accelerator class and a delivery period (month, quarter, year); the table lists the strikes
// with the bid, ask, reference value, implied volatility and delta of the call on the left and
// the put on the right, in dollars per GPU-hour. Clicking a call or put cell picks that series
// for the order ticket (OrderTicket's option mode): an ask to buy at it, a bid to write at it,
// any other cell to buy at the reference value. The panel only shows and asks; TradingSession
// and the ticket do the rest.
#include "core/net/OptionViews.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QListWidget;
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
  // Shows the chain of `a` (asks the exchange for it when the class changes).
  void showAccelerator(Accelerator a);
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
  // A cell was clicked: the series, the side a trader takes against that price, and the price
  // (the cell's, else the reference value; none when the series has neither).
  void seriesPicked(const tessera::indexoptions::OptionSeries& series, tessera::Side side,
                    std::optional<tessera::Price> premium);

 private:
  void fillTable();
  void pickCell(int row, int column);

  QComboBox* accelerator_;
  QComboBox* period_;
  QLabel* curve_;
  QLabel* status_;
  QTableWidget* table_;
  QListWidget* notices_;
  net::OptionChainView chain_;
  bool available_ = false;
};

}  // namespace tessera::ui
